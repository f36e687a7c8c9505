package dev.ration.statemachine.quota;

import dev.ration.wire.ByteReader;
import java.util.Optional;

/**
 * Per level and resource, the part of its current window's usage that budgets hold unspent
 * (granted, not yet reported spent): window usage less this is what holders reported spending
 * plus what reservations hold and settled, the usage a soft threshold is judged on. Kept beside
 * the level's usage so a report judges the threshold in O(1). One record per level: it follows
 * the window a budget was last charged in there ({@link #charge}: a charge in the level's current
 * window replaces a record of another window, so a window moved by a catalog change is followed
 * too), and adjustments for any other window are no-ops ({@link #add}).
 *
 * <p>Stored value: i64 windowStart, i64 unspent.
 *
 * <p>Thread: the single applying thread. Invariant (Q9, checked by {@link QuotaVerifier}): a
 * record's {@code unspent} equals Σ (granted − spent) over the budgets charged at its level in its
 * window.
 */
final class BudgetTally {
  private final QuotaRecords records;

  BudgetTally(QuotaRecords records) {
    this.records = records;
  }

  /** What budgets hold unspent at (scope, resource) in the window starting at {@code windowStart}. */
  long unspent(String scope, String resource, long windowStart) {
    return stored(scope, resource).filter(t -> t[0] == windowStart).map(t -> t[1]).orElse(0L);
  }

  /**
   * A grant, growth or shrink in the level's <b>current</b> window {@code windowStart}: added to
   * the record of that window; a growth with a record of another window starts it afresh (the
   * budgets of that window are no longer the level's current ones).
   */
  void charge(String scope, String resource, long windowStart, long delta) {
    Optional<long[]> now = stored(scope, resource);
    if (delta > 0 && (now.isEmpty() || now.get()[0] != windowStart)) {
      put(scope, resource, windowStart, delta);
    } else {
      add(scope, resource, windowStart, delta);
    }
  }

  /**
   * Adds {@code delta} (negative: spent, given back or dropped; positive: overdrawn) to the
   * record if it is of window {@code windowStart}; a no-op for any other window.
   */
  void add(String scope, String resource, long windowStart, long delta) {
    if (delta == 0) {
      return;
    }
    Optional<long[]> now = stored(scope, resource);
    if (now.isEmpty() || now.get()[0] != windowStart) {
      return;
    }
    put(scope, resource, windowStart, now.get()[1] + delta);
  }

  private void put(String scope, String resource, long windowStart, long after) {
    if (after < 0) {
      throw new dev.ration.statemachine.InvariantViolation("Q9 level " + scope + " " + resource
          + " window from " + windowStart + ": budgets' unspent tally would be " + after);
    }
    records.put(QuotaRecords.Q, QuotaKeys.budgetTally(scope, resource),
        QuotaFormat.stored(out -> out.i64(windowStart).i64(after)));
  }

  /** {windowStart, unspent} as stored, if any. */
  Optional<long[]> stored(String scope, String resource) {
    return records.get(QuotaRecords.Q, QuotaKeys.budgetTally(scope, resource))
        .map(v -> QuotaFormat.read(v, "budget tally " + scope + " " + resource, BudgetTally::read));
  }

  static long[] read(ByteReader in) {
    return new long[] {in.i64("windowStart"), in.i64("unspent")};
  }
}
