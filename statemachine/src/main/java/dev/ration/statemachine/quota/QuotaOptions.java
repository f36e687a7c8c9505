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
 * @param usageRetentionMillis how long (ledger time) a usage log record is kept at least after
 *     it was recorded; it is compacted once this passed and every registered consumer has
 *     acknowledged it. At least the dedup and settled retentions (an event id and a settled
 *     reservation's events are looked up in the log while they are remembered)
 * @param usageMaxRetentionMillis how long a usage log record is kept at most, acknowledged or
 *     not: a consumer that stalls longer loses the records past it and is told so when it reads
 * @param auditRetentionMillis how long an audit record (catalog change, reconciliation) is kept
 */
public record QuotaOptions(
    long dedupRetentionMillis,
    long settledRetentionMillis,
    long maxFutureSkewMillis,
    long maxReservationTtlMillis,
    int maxItemsPerReservation,
    int maxScanRecords,
    long usageRetentionMillis,
    long usageMaxRetentionMillis,
    long auditRetentionMillis) {

  public static final long MIN_RESERVATION_TTL_MILLIS = 100;
  public static final long DEFAULT_USAGE_RETENTION_MILLIS = 86_400_000L;
  public static final long DEFAULT_USAGE_MAX_RETENTION_MILLIS = 7 * 86_400_000L;
  public static final long DEFAULT_AUDIT_RETENTION_MILLIS = 365 * 86_400_000L;

  public static QuotaOptions defaults() {
    return new QuotaOptions(3_600_000L, 3_600_000L, 60_000L, 7 * 86_400_000L, 16, 100_000);
  }

  /** The given bounds with the default usage-log and audit retentions. */
  public QuotaOptions(long dedupRetentionMillis, long settledRetentionMillis,
      long maxFutureSkewMillis, long maxReservationTtlMillis, int maxItemsPerReservation,
      int maxScanRecords) {
    this(dedupRetentionMillis, settledRetentionMillis, maxFutureSkewMillis,
        maxReservationTtlMillis, maxItemsPerReservation, maxScanRecords,
        Math.max(DEFAULT_USAGE_RETENTION_MILLIS, Math.max(dedupRetentionMillis, settledRetentionMillis)),
        Math.max(DEFAULT_USAGE_MAX_RETENTION_MILLIS,
            Math.max(dedupRetentionMillis, settledRetentionMillis)),
        DEFAULT_AUDIT_RETENTION_MILLIS);
  }

  /** These bounds with other usage-log retentions. */
  public QuotaOptions withUsageRetention(long retentionMillis, long maxRetentionMillis) {
    return new QuotaOptions(dedupRetentionMillis, settledRetentionMillis, maxFutureSkewMillis,
        maxReservationTtlMillis, maxItemsPerReservation, maxScanRecords, retentionMillis,
        maxRetentionMillis, auditRetentionMillis);
  }

  /** These bounds with another audit retention. */
  public QuotaOptions withAuditRetention(long retentionMillis) {
    return new QuotaOptions(dedupRetentionMillis, settledRetentionMillis, maxFutureSkewMillis,
        maxReservationTtlMillis, maxItemsPerReservation, maxScanRecords, usageRetentionMillis,
        usageMaxRetentionMillis, retentionMillis);
  }

  public QuotaOptions {
    atLeast("dedupRetentionMillis", dedupRetentionMillis, 1_000);
    atLeast("settledRetentionMillis", settledRetentionMillis, 1_000);
    atLeast("maxFutureSkewMillis", maxFutureSkewMillis, 0);
    atLeast("maxReservationTtlMillis", maxReservationTtlMillis, MIN_RESERVATION_TTL_MILLIS);
    atLeast("maxItemsPerReservation", maxItemsPerReservation, 1);
    atLeast("maxScanRecords", maxScanRecords, 1);
    atLeast("usageRetentionMillis", usageRetentionMillis,
        Math.max(dedupRetentionMillis, settledRetentionMillis));
    atLeast("usageMaxRetentionMillis", usageMaxRetentionMillis, usageRetentionMillis);
    atLeast("auditRetentionMillis", auditRetentionMillis, 1_000);
  }

  private static void atLeast(String field, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(field + " " + value + " < " + min);
    }
  }
}
