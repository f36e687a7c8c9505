package dev.ration.statemachine.quota;

/**
 * Bounds only the quota ledger uses, held by {@link dev.ration.statemachine.StateOptions#quota()}
 * (the one record of replicated bounds; names are bounded there, by {@code maxNameBytes}). Like
 * every replicated bound, every replica must use the same values.
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
    atLeast("dedupRetentionMillis", dedupRetentionMillis, 1_000);
    atLeast("settledRetentionMillis", settledRetentionMillis, 1_000);
    atLeast("maxFutureSkewMillis", maxFutureSkewMillis, 0);
    atLeast("maxReservationTtlMillis", maxReservationTtlMillis, MIN_RESERVATION_TTL_MILLIS);
    atLeast("maxItemsPerReservation", maxItemsPerReservation, 1);
    atLeast("maxScanRecords", maxScanRecords, 1);
  }

  private static void atLeast(String field, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(field + " " + value + " < " + min);
    }
  }
}
