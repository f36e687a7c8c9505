package dev.ration.statemachine.replica;

/**
 * One record of the time-ordered expiry index: at {@code dueAtMillis}, something of
 * {@code kind} identified by (a, b, c) may be due. Lease kinds use a = lease id, b = c = 0.
 *
 * <p>Records are added whenever a due time is set. The lease kinds are exact (a lease's old end
 * is withdrawn when it moves); other ledgers' records may go stale when their due time moves, and
 * Tick then deletes them without effect, because the owner's current due time no longer
 * matches (docs/INVARIANTS.md I6, I20, Q3). Ordered by (dueAt, kind, a, b, c), which is Tick's
 * order and the byte order of the stored keys (StoreFormat flips the sign bits).
 */
public record ExpiryKey(long dueAtMillis, int kind, long a, long b, long c)
    implements Comparable<ExpiryKey> {
  /** The lease stops being counted at all (countedUntil). */
  public static final int LEASE_END = 1;
  /** A two-phase shrink's old share stops being counted (pendingUntil). */
  public static final int PENDING_END = 2;
  /**
   * Kind 3 was an idempotency record's end in store format 2; idempotency records now expire by
   * generation (IdempotencyGeneration) and have no index records. Not reused, so a stray one is
   * an unknown kind (I6).
   */
  public static final int RETIRED_IDEMPOTENCY_END = 3;
  /** A TTL entry expires: a = namespace id, b = the entry's version, c = 0 (ttl.TtlLedger). */
  public static final int TTL_END = 4;
  // Kinds 5-9, a = reservation id or usage-log sequence, b = c = 0
  /** An outstanding reservation expires (a = reservation id). */
  public static final int QUOTA_RESERVATION_END = 5;
  /** A settled reservation is forgotten (a = reservation id). */
  public static final int QUOTA_SETTLEMENT_END = 6;
  /** A usage event id is forgotten by deduplication (a = usage-log sequence). */
  public static final int QUOTA_EVENT_ID_END = 7;

  /**
   * A quota budget's lease lapses, or a lapsed budget is dropped at its window's end
   * (a = budget id; quota.Budgets).
   */
  public static final int QUOTA_BUDGET_END = 8;

  /** A bearer token expires (a = token id; security.SecurityLedger). */
  public static final int TOKEN_END = 60;

  /** Below every real key (kind 0 is never used): where a Tick's walk of the index starts. */
  public static final ExpiryKey BEFORE_ALL =
      new ExpiryKey(Long.MIN_VALUE, 0, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE);

  public static ExpiryKey leaseEnd(long dueAtMillis, long leaseId) {
    return new ExpiryKey(dueAtMillis, LEASE_END, leaseId, 0, 0);
  }

  public static ExpiryKey pendingEnd(long dueAtMillis, long leaseId) {
    return new ExpiryKey(dueAtMillis, PENDING_END, leaseId, 0, 0);
  }

  @Override
  public int compareTo(ExpiryKey o) {
    int r = Long.compare(dueAtMillis, o.dueAtMillis);
    if (r == 0) {
      r = Integer.compare(kind, o.kind);
    }
    if (r == 0) {
      r = Long.compare(a, o.a);
    }
    if (r == 0) {
      r = Long.compare(b, o.b);
    }
    if (r == 0) {
      r = Long.compare(c, o.c);
    }
    return r;
  }

  /** Written out: the generated record methods showed up in apply profiles (syncExpiry). */
  @Override
  public boolean equals(Object o) {
    return o instanceof ExpiryKey k && dueAtMillis == k.dueAtMillis && kind == k.kind
        && a == k.a && b == k.b && c == k.c;
  }

  @Override
  public int hashCode() {
    long h = dueAtMillis * 31 + kind;
    h = h * 31 + a;
    h = h * 31 + b;
    h = h * 31 + c;
    return Long.hashCode(h);
  }
}
