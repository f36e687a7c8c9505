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
 * <p>It also keeps the budgets' demand in that window, which growth is shared by
 * ({@link Budgets#share}): {@code demand} = Σ max(0, want − spent) (what holders still want
 * beyond what they spent) and {@code holders}, the number of those budgets, over the budgets
 * held (not lapsed).
 *
 * <p>Stored value: i64 windowStart, i64 unspent, i64 demand, i64 holders.
 *
 * <p>Thread: the single applying thread. Invariant (Q9, checked by {@link QuotaVerifier}): a
 * record's {@code unspent} equals Σ (granted − spent) over the budgets charged at its level in its
 * window, its {@code demand} Σ max(0, want − spent) and its {@code holders} the count over those
 * not lapsed.
 */
final class BudgetTally {
  private final QuotaRecords records;

  BudgetTally(QuotaRecords records) {
    this.records = records;
  }

  /** A level's figures in one window. */
  record Figures(long windowStart, long unspent, long demand, long holders) {}

  /** What budgets hold unspent at (scope, resource) in the window starting at {@code windowStart}. */
  long unspent(String scope, String resource, long windowStart) {
    return figures(scope, resource, windowStart).unspent();
  }

  /** The figures at (scope, resource) for the window starting at {@code windowStart} (none: zeros). */
  Figures figures(String scope, String resource, long windowStart) {
    return stored(scope, resource).filter(t -> t.windowStart() == windowStart)
        .orElse(new Figures(windowStart, 0, 0, 0));
  }

  /**
   * A grant, growth or shrink in the level's <b>current</b> window {@code windowStart}: added to
   * the record of that window; a growth with a record of another window starts it afresh (the
   * budgets of that window are no longer the level's current ones).
   */
  void charge(String scope, String resource, long windowStart, long delta) {
    Optional<Figures> now = stored(scope, resource);
    if (delta > 0 && (now.isEmpty() || now.get().windowStart() != windowStart)) {
      put(scope, resource, new Figures(windowStart, delta, 0, 0));
    } else {
      add(scope, resource, windowStart, delta);
    }
  }

  /**
   * Adds {@code delta} (negative: spent, given back or dropped; positive: overdrawn) to the
   * record if it is of window {@code windowStart}; a no-op for any other window.
   */
  void add(String scope, String resource, long windowStart, long delta) {
    adjust(scope, resource, windowStart, delta, 0, 0);
  }

  /**
   * A budget of window {@code windowStart} joined (+1), left (−1) or changed (0) the level's
   * holders, its remaining demand moving by {@code demandDelta}; a no-op for any other window.
   */
  void demand(String scope, String resource, long windowStart, long demandDelta, int holdersDelta) {
    adjust(scope, resource, windowStart, 0, demandDelta, holdersDelta);
  }

  private void adjust(String scope, String resource, long windowStart, long unspentDelta,
      long demandDelta, int holdersDelta) {
    if (unspentDelta == 0 && demandDelta == 0 && holdersDelta == 0) {
      return;
    }
    Optional<Figures> now = stored(scope, resource);
    if (now.isEmpty() || now.get().windowStart() != windowStart) {
      return;
    }
    Figures f = now.get();
    put(scope, resource, new Figures(windowStart, f.unspent() + unspentDelta,
        f.demand() + demandDelta, f.holders() + holdersDelta));
  }

  private void put(String scope, String resource, Figures f) {
    if (f.unspent() < 0 || f.demand() < 0 || f.holders() < 0) {
      throw new dev.ration.statemachine.InvariantViolation("Q9 level " + scope + " " + resource
          + " window from " + f.windowStart() + ": budgets' tally would be " + f);
    }
    records.put(QuotaRecords.Q, QuotaKeys.budgetTally(scope, resource),
        QuotaFormat.stored(out -> out.i64(f.windowStart()).i64(f.unspent()).i64(f.demand())
            .i64(f.holders())));
  }

  /** The record as stored, if any. */
  Optional<Figures> stored(String scope, String resource) {
    return records.get(QuotaRecords.Q, QuotaKeys.budgetTally(scope, resource))
        .map(v -> QuotaFormat.read(v, "budget tally " + scope + " " + resource, BudgetTally::read));
  }

  static Figures read(ByteReader in) {
    return new Figures(in.i64("windowStart"), in.i64("unspent"), in.i64("demand"),
        in.i64("holders"));
  }
}
