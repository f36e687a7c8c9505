package dev.ration.statemachine.replica;

/**
 * A group of idempotency records whose expiry times fall in [{@code start}, {@code end}),
 * stored under one key prefix so that the whole group is dropped with one range delete once
 * every record in it has expired ({@code end - 1 ≤ now}). A record is answered only while
 * {@code now < expiresAt}, so when a group is dropped changes nothing anyone can observe; it
 * only bounds the disk. Generations of one replica never overlap; {@code count} is the number
 * of records stored in this one (docs/INVARIANTS.md I6, docs/DECISIONS.md "Idempotency
 * generations").
 */
public record IdempotencyGeneration(long start, long end, long count) {
  public IdempotencyGeneration {
    if (end <= start || count < 0) {
      throw new IllegalArgumentException(
          "idempotency generation [" + start + ", " + end + ") count " + count);
    }
  }

  /**
   * The empty generation of the retention grid holding {@code expiresAtMillis}:
   * [k·width, (k+1)·width), its end saturating at Long.MAX_VALUE.
   */
  public static IdempotencyGeneration onGrid(long expiresAtMillis, long widthMillis) {
    long start = Math.floorDiv(expiresAtMillis, widthMillis) * widthMillis;
    long end = expiresAtMillis > Long.MAX_VALUE - widthMillis ? Long.MAX_VALUE : start + widthMillis;
    return new IdempotencyGeneration(start, end, 0);
  }

  /** Whether a record expiring at {@code expiresAtMillis} belongs here. */
  public boolean holds(long expiresAtMillis) {
    return start <= expiresAtMillis && expiresAtMillis < end;
  }

  /** Every record here has expired at {@code nowMillis}: the group may be dropped. */
  public boolean expiredAt(long nowMillis) {
    return end - 1 <= nowMillis;
  }

  public IdempotencyGeneration plusOne() {
    return new IdempotencyGeneration(start, end, count + 1);
  }
}
