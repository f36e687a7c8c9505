package dev.ration.statemachine.quota;

/**
 * Bounds of the quota ledger. Like StateOptions, every replica must use the same values.
 *
 * @param dedupRetentionMillis how long (ledger time) a usage event id is remembered; an
 *     ingested event whose event time is older than this is refused (it could no longer be
 *     told from a duplicate)
 * @param settledRetentionMillis how long a settled reservation is remembered (repeat
 *     complete/cancel answers, reconciliation)
 * @param maxFutureSkewMillis how far ahead of ledger time an ingested event time may be
 * @param maxReservationTtlMillis longest reservation lifetime
 * @param maxItemsPerReservation most resources one all-or-nothing reservation may name
 * @param maxScanRecords most records one query or reconciliation reads
 */
public record QuotaOptions(
    long dedupRetentionMillis,
    long settledRetentionMillis,
    long maxFutureSkewMillis,
    long maxReservationTtlMillis,
    int maxItemsPerReservation,
    int maxScanRecords) {

  public static final long MIN_RESERVATION_TTL_MILLIS = 100;

  public static QuotaOptions defaults() {
    return new QuotaOptions(3_600_000L, 3_600_000L, 60_000L, 7 * 86_400_000L, 16, 100_000);
  }

  public QuotaOptions {
    if (dedupRetentionMillis < 1_000 || settledRetentionMillis < 1_000 || maxFutureSkewMillis < 0
        || maxReservationTtlMillis < MIN_RESERVATION_TTL_MILLIS || maxItemsPerReservation < 1
        || maxScanRecords < 1) {
      throw new IllegalArgumentException("bad quota bounds dedupRetentionMillis="
          + dedupRetentionMillis + " settledRetentionMillis=" + settledRetentionMillis
          + " maxFutureSkewMillis=" + maxFutureSkewMillis + " maxReservationTtlMillis="
          + maxReservationTtlMillis + " maxItemsPerReservation=" + maxItemsPerReservation
          + " maxScanRecords=" + maxScanRecords);
    }
  }
}
