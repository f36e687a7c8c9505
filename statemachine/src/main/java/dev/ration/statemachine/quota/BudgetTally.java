package dev.ration.statemachine.quota;

import dev.ration.wire.ByteReader;
import java.util.Optional;

/**
 * Per level and resource, the part of its current window's usage that budgets hold unspent
 * (granted, not yet reported spent): window usage less this is what holders reported spending
 * plus what reservations hold and settled, the usage a soft threshold is judged on. Kept beside
 * the level's usage so a report judges the threshold in O(1). One record per level: it follows
 * the newest window a budget was charged in there (a charge in a later window replaces it), and
 * changes for an older window are no-ops.
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
   * Adds {@code delta} (negative: spent, given back or dropped) to the window's unspent tally; a
   * charge in a window later than the record's starts the record afresh; a change for an older
   * window than the record's is a no-op.
   */
  void add(String scope, String resource, long windowStart, long delta) {
    if (delta == 0) {
      return;
    }
    Optional<long[]> now = stored(scope, resource);
    long after;
    if (now.isPresent() && now.get()[0] == windowStart) {
      after = now.get()[1] + delta;
    } else if (delta > 0 && (now.isEmpty() || now.get()[0] < windowStart)) {
      after = delta;
    } else {
      return;
    }
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
