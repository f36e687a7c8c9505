package dev.ration.statemachine;

import dev.ration.statemachine.quota.QuotaOptions;

/**
 * Every bound of the replicated state, in one record. Every replica must use the same values
 * (they are part of the cluster configuration, not per-node tuning), because they change what
 * apply does: a command one replica refuses and another applies would split the state. The
 * server reads them from the {@code ledger} section of its configuration; nothing else in the
 * state machine or the endpoint spells a bound of its own.
 *
 * @param idempotencyRetentionMillis how long (ledger time) a request's first answer is kept for
 *     retries. Retention must exceed the client's retry budget (the whole time a client may
 *     still resend one request, 10 s by default, and the server's longest request deadline):
 *     a retry that arrives after its record was dropped runs again. Default 60 s. Each record
 *     lives in RocksDB (about 300 bytes with its index record), so at 10,000 mutations/s a
 *     60 s retention keeps about 600k records on disk, none on the heap
 * @param maxLimits most limits the ledger holds
 * @param maxLeasesPerLimit most live leases one limit holds (further acquires are LIMIT_EXHAUSTED)
 * @param maxNameBytes longest name in UTF-8 bytes, in every ledger: tenant, resource and holder
 *     of a limit or lease, the leader id of an epoch, a TTL namespace, and a quota resource,
 *     unit, event id or usage consumer
 * @param quota the bounds only the quota ledger uses
 * @param securityAuditRetentionMillis how long (ledger time) a record of the security audit log
 *     is kept; an older one is deleted by the first entry applied after it is due, at most
 *     {@link #SECURITY_AUDIT_PRUNE_PER_ENTRY} per entry. Default 365 days
 */
public record StateOptions(
    long idempotencyRetentionMillis,
    int maxLimits,
    int maxLeasesPerLimit,
    int maxNameBytes,
    QuotaOptions quota,
    long securityAuditRetentionMillis) {

  /**
   * Most {@link #maxNameBytes}. Names are keys of RocksDB records and travel in every reply
   * that lists them, so the bound stays small; it is far below the wire's u16 string length.
   */
  public static final int MAX_NAME_BYTES_CEILING = 1024;

  /** Default {@link #securityAuditRetentionMillis}: 365 days. */
  public static final long DEFAULT_SECURITY_AUDIT_RETENTION_MILLIS = 365L * 24 * 3_600_000;

  /**
   * Most security audit records one entry deletes, so pruning a long backlog (after a
   * retention was shortened) spreads over entries instead of stalling one.
   */
  public static final int SECURITY_AUDIT_PRUNE_PER_ENTRY = 64;

  public static StateOptions defaults() {
    return new StateOptions(60_000, 100_000, 10_000, 128, QuotaOptions.defaults());
  }

  /** The options with the default security audit retention. */
  public StateOptions(long idempotencyRetentionMillis, int maxLimits, int maxLeasesPerLimit,
      int maxNameBytes, QuotaOptions quota) {
    this(idempotencyRetentionMillis, maxLimits, maxLeasesPerLimit, maxNameBytes, quota,
        DEFAULT_SECURITY_AUDIT_RETENTION_MILLIS);
  }

  public StateOptions {
    if (idempotencyRetentionMillis < 1_000) {
      throw new IllegalArgumentException(
          "idempotencyRetentionMillis " + idempotencyRetentionMillis + " < 1000");
    }
    if (maxLimits < 1) {
      throw new IllegalArgumentException("maxLimits " + maxLimits + " < 1");
    }
    if (maxLeasesPerLimit < 1) {
      throw new IllegalArgumentException("maxLeasesPerLimit " + maxLeasesPerLimit + " < 1");
    }
    if (maxNameBytes < 1 || maxNameBytes > MAX_NAME_BYTES_CEILING) {
      throw new IllegalArgumentException("maxNameBytes " + maxNameBytes + " outside 1.."
          + MAX_NAME_BYTES_CEILING);
    }
    if (quota == null) {
      throw new IllegalArgumentException("quota options missing");
    }
    if (securityAuditRetentionMillis < 1_000) {
      throw new IllegalArgumentException(
          "securityAuditRetentionMillis " + securityAuditRetentionMillis + " < 1000");
    }
  }

  /** These options with other quota bounds (tests and tools; the server reads configuration). */
  public StateOptions withQuota(QuotaOptions bounds) {
    return new StateOptions(idempotencyRetentionMillis, maxLimits, maxLeasesPerLimit, maxNameBytes, bounds,
        securityAuditRetentionMillis);
  }

  /** These options with another name bound (tests and tools; the server reads configuration). */
  public StateOptions withMaxNameBytes(int bytes) {
    return new StateOptions(idempotencyRetentionMillis, maxLimits, maxLeasesPerLimit, bytes, quota,
        securityAuditRetentionMillis);
  }

  /** These options with another security audit retention (tests and tools). */
  public StateOptions withSecurityAuditRetention(long millis) {
    return new StateOptions(idempotencyRetentionMillis, maxLimits, maxLeasesPerLimit, maxNameBytes, quota,
        millis);
  }
}
