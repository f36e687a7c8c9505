package dev.ration.statemachine;

/**
 * Bounds of the replicated state. Every replica must use the same values (they are part of the
 * cluster configuration, not per-node tuning), because they change what apply does.
 *
 * @param idempotencyRetentionMillis how long (ledger time) a request's first answer is kept for
 *     retries. Retention must exceed the client's retry budget (the whole time a client may
 *     still resend one request, 10 s by default, and the server's longest request deadline):
 *     a retry that arrives after its record was dropped runs again. Default 60 s. Each record
 *     lives in RocksDB (about 300 bytes with its index record), so at 10,000 mutations/s a
 *     60 s retention keeps about 600k records on disk, none on the heap
 * @param maxLimits most limits the ledger holds
 * @param maxLeasesPerLimit most live leases one limit holds (further acquires are LIMIT_EXHAUSTED)
 * @param maxNameBytes longest tenant, resource or holder name in UTF-8 bytes
 */
public record StateOptions(
    long idempotencyRetentionMillis, int maxLimits, int maxLeasesPerLimit, int maxNameBytes) {

  public static StateOptions defaults() {
    return new StateOptions(60_000, 100_000, 10_000, 128);
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
