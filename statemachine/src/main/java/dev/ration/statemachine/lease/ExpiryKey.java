package dev.ration.statemachine.lease;

/**
 * One record of the time-ordered expiry index: at {@code dueAtMillis}, something of
 * {@code kind} identified by (a, b, c) may be due. Lease kinds use a = lease id, b = c = 0;
 * idempotency records use the request key (clientHigh, clientLow, sequence).
 *
 * <p>Records are added whenever a due time is set and are not removed when it moves later
 * (a renewal, NewEpoch): Tick deletes such a stale record without effect, because the owner's
 * current due time no longer matches. Ordered by (dueAt, kind, a, b, c), which is Tick's order.
 */
public record ExpiryKey(long dueAtMillis, int kind, long a, long b, long c)
    implements Comparable<ExpiryKey> {
  /** The lease stops being counted at all (countedUntil). */
  public static final int LEASE_END = 1;
  /** A two-phase shrink's old share stops being counted (pendingUntil). */
  public static final int PENDING_END = 2;
  /** An idempotency record is dropped. */
  public static final int IDEMPOTENCY_END = 3;

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
}
