package dev.ration.statemachine.command;

/**
 * A state-machine command: the payload of one proposal inside a replicated {@link Batch}.
 *
 * <p>Commands are plain values. Everything that must be the same on every replica (the time,
 * the request key) travels with them in the batch; nothing is read from the applying machine.
 * Wire codes are explicit and append-only (see {@link #code()}); never derive them from ordinals.
 *
 * <p>Commands come in families, one per ledger: {@link LeaseCommand}, {@link TtlCommand},
 * {@link QuotaCommand}, {@link SecurityCommand}, {@link PlacementCommand}; {@link Tick} and
 * {@link SlottedIds} are the replica's own. Each family is a sealed interface with
 * a handler that has one method per command, so a new command does not compile until the
 * ledger that applies it handles it (Java 17 has no exhaustive switch over sealed types; the
 * visitor gives the same guarantee). The replica routes a command by its {@link #family()} to
 * the one ledger that applies that family, and checks at start that every family has one.
 */
public sealed interface Command
    permits LeaseCommand, TtlCommand, QuotaCommand, SecurityCommand, PlacementCommand, Tick,
        SlottedIds {

  /** The command's stable code in the log format. Append-only. */
  int code();

  /** True for commands a client sends (they carry a request key and are idempotent). */
  default boolean fromClient() {
    return true;
  }

  /** The sealed family this command belongs to; the ledger applying that family applies it. */
  Class<? extends Command> family();

  /**
   * What this command acts on: the tenants it names, the ids its ledger resolves to tenants, or
   * state of no tenant. Every command kind declares it (no default), so a new kind cannot reach
   * authorization or routing undeclared.
   */
  Touches touches();
}
