package dev.ration.statemachine.query;

import dev.ration.statemachine.command.Touches;

/**
 * A read-only question to the state. Reads never change state and are not replicated.
 *
 * <p>Every kind declares what it reads ({@link #touches()}, no default), as commands do: a read
 * of one tenant is answered only by the group serving that tenant's slot; a listing over every
 * tenant ({@link Touches#cluster()}) answers what this group holds.
 */
public sealed interface Query {
  /** What this read looks at: one tenant's state, or state over every tenant. */
  Touches touches();

  /** One limit with its ledger; empty answer if unknown. */
  record GetLimit(String tenant, String resource) implements Query {
    @Override
    public Touches touches() {
      return Touches.tenant(tenant);
    }
  }

  /** Every limit with its ledger, ordered by (tenant, resource). */
  record ListLimits() implements Query {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** Leases of one limit, or of all limits when tenant and resource are empty; ordered by id. */
  record ListLeases(String tenant, String resource) implements Query {
    @Override
    public Touches touches() {
      return tenant.isEmpty() ? Touches.cluster() : Touches.tenant(tenant);
    }
  }

  /** Applied index, ledger clock, epoch, counts. */
  record Status() implements Query {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** One live TTL entry (expiry judged at max(state now, readNowMillis)). */
  record GetEntry(String namespace, String key) implements Query {
    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }
  }

  /** Live entries of a namespace whose key starts with {@code prefix}, in key order. */
  record ListEntries(String namespace, String prefix, int limit) implements Query {
    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }
  }

  /** One namespace's capacity and counters. */
  record GetNamespace(String namespace) implements Query {
    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }
  }

  /** Every namespace, in name order (for metrics). */
  record ListNamespaces() implements Query {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** One limit's concurrency cap, slot ledger and slot-holding leases; empty if unknown. */
  record GetSlots(String tenant, String resource) implements Query {
    @Override
    public Touches touches() {
      return Touches.tenant(tenant);
    }
  }

  /** A question to the quota ledger. */
  record Quota(QuotaQuery query) implements Query {
    @Override
    public Touches touches() {
      return query.touches();
    }
  }

  /** Every token (without secret material), by id. */
  record ListTokens() implements Query {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** The grants of {@code identity}, or of everyone when it is empty, in (identity, role, tenant) order. */
  record ListGrants(String identity) implements Query {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** The group's slot table: how many slots it serves, moves in or out, or does not hold. */
  record SlotTable() implements Query {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }

  /** Security audit records from {@code fromSequence} on, at most {@code max}. */
  record ReadSecurityAudit(long fromSequence, int max) implements Query {
    @Override
    public Touches touches() {
      return Touches.cluster();
    }
  }
}
