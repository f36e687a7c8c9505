package dev.ration.statemachine;

/**
 * Bounds of the replicated state. Every replica must use the same values (they are part of the
 * cluster configuration, not per-node tuning), because they change what apply does.
 *
 * @param idempotencyRetentionMillis how long (ledger time) a request's first answer is kept for
 *     retries; must exceed the client's total retry horizon
 * @param maxLimits most limits the ledger holds
 * @param maxLeasesPerLimit most live leases one limit holds (further acquires are LIMIT_EXHAUSTED)
 * @param maxNameBytes longest tenant, resource or holder name in UTF-8 bytes
 */
public record StateOptions(
    long idempotencyRetentionMillis, int maxLimits, int maxLeasesPerLimit, int maxNameBytes) {

  public static StateOptions defaults() {
    return new StateOptions(300_000, 100_000, 10_000, 128);
  }

  public StateOptions {
    if (idempotencyRetentionMillis < 1_000) {
      throw new IllegalArgumentException(
          "idempotencyRetentionMillis " + idempotencyRetentionMillis + " < 1000");
    }
    if (maxLimits < 1 || maxLeasesPerLimit < 1 || maxNameBytes < 1 || maxNameBytes > 1024) {
      throw new IllegalArgumentException(
          "bad bounds maxLimits=" + maxLimits + " maxLeasesPerLimit=" + maxLeasesPerLimit
              + " maxNameBytes=" + maxNameBytes);
    }
  }
}
