package dev.ration.statemachine.command;

/**
 * The quota ledger's commands: catalog changes, check-and-reserve, reservation
 * settlement, usage ingestion, consumer acknowledgements, reconciliation repairs. Codes 40–59
 * of the log format are theirs; see {@link BatchCodec}. All come from clients and are
 * idempotent by their request key (the replica's shared idempotency).
 */
public sealed interface QuotaCommand extends Command
    permits SetQuota, Reserve, CompleteReservation, CancelReservation, IngestUsage, AckUsage,
        Reconcile {
  int FIRST_CODE = 40;
  int LAST_CODE = 59;

  /** Calls the {@code handler} method for this command. */
  <R> R accept(Handler<R> handler);

  @Override
  default Class<QuotaCommand> family() {
    return QuotaCommand.class;
  }

  /** One method per quota command: whoever applies them must handle every one. */
  interface Handler<R> {
    R setQuota(SetQuota command);

    R reserve(Reserve command);

    R complete(CompleteReservation command);

    R cancel(CancelReservation command);

    R ingest(IngestUsage command);

    R ack(AckUsage command);

    R reconcile(Reconcile command);
  }
}
