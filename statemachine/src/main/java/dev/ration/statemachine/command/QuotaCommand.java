package dev.ration.statemachine.command;

/**
 * The quota ledger's commands (DESIGN §4): catalog changes, check-and-reserve, reservation
 * settlement, usage ingestion, consumer acknowledgements, reconciliation repairs. Codes 40–59
 * of the log format are theirs; see {@link QuotaCommandCodec}. All come from clients and are
 * idempotent by their request key (the replica's shared idempotency).
 */
public sealed interface QuotaCommand extends Command
    permits SetQuota, Reserve, CompleteReservation, CancelReservation, IngestUsage, AckUsage,
        Reconcile {
  int FIRST_CODE = 40;
  int LAST_CODE = 59;
}
