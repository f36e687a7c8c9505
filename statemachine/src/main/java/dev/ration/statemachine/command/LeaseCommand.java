package dev.ration.statemachine.command;

/**
 * The lease ledger's commands: limits, leases and epochs. Codes 1-19 of the log format (Tick,
 * code 6, is the replica's).
 */
public sealed interface LeaseCommand extends Command
    permits SetLimit, AcquireLease, RenewLease, ReturnLease, NewEpoch {

  /** Calls the {@code handler} method for this command. */
  <R> R accept(Handler<R> handler);

  @Override
  default Class<LeaseCommand> family() {
    return LeaseCommand.class;
  }

  /** One method per lease command: whoever applies them must handle every one. */
  interface Handler<R> {
    R setLimit(SetLimit command);

    R acquire(AcquireLease command);

    R renew(RenewLease command);

    R returnLease(ReturnLease command);

    R newEpoch(NewEpoch command);
  }
}
