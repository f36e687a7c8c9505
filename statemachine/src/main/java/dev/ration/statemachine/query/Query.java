package dev.ration.statemachine.query;

/** A read-only question to the state. Reads never change state and are not replicated. */
public sealed interface Query {
  /** One limit with its ledger; empty answer if unknown. */
  record GetLimit(String tenant, String resource) implements Query {}

  /** Every limit with its ledger, ordered by (tenant, resource). */
  record ListLimits() implements Query {}

  /** Leases of one limit, or of all limits when tenant and resource are empty; ordered by id. */
  record ListLeases(String tenant, String resource) implements Query {}

  /** Applied index, ledger clock, epoch, counts. */
  record Status() implements Query {}
}
