package dev.ration.statemachine.command;

/**
 * A state-machine command: the payload of one proposal inside a replicated {@link Batch}.
 *
 * <p>Commands are plain values. Everything that must be the same on every replica (the time,
 * the request key) travels with them in the batch; nothing is read from the applying machine.
 * Wire codes are explicit and append-only (see {@link #code()}); never derive them from ordinals.
 */
public sealed interface Command
    permits SetLimit, AcquireLease, RenewLease, ReturnLease, NewEpoch, Tick,
        // --- ttl (issue 4): codes 20–29
        PutEntry, CompareAndSetEntry, RefreshEntry, DeleteEntry, SetNamespace
        // --- end ttl
        ,
        // --- quota (issue 6): codes 40-59, see QuotaCommand
        QuotaCommand
        // --- end quota
    {

  /** The command's stable code in the log format. Append-only. */
  int code();

  /** True for commands a client sends (they carry a request key and are idempotent). */
  default boolean fromClient() {
    return true;
  }
}
