package dev.ration.statemachine.query;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;
import java.util.List;

/**
 * A budget: an amount of a quota leased to one holder at every level of a scope path at once.
 * Of a windowed quota (RATE or CUMULATIVE) it is an amount the holder spends locally and
 * reports: while it is held the whole {@code granted} amount is counted at each level it was
 * charged at, in the window it was charged in; reports move the part spent into the usage log; a
 * return gives back the unspent part. Of a CONCURRENT quota ({@code slots}) it is a number of
 * slots the holder may keep busy at once: counted in every level's held amount while the lease
 * lives, freed at its return or lapse; its reports bill the jobs started. Ids come from the
 * ledger's reservation counter (one id space for reservations and budgets).
 *
 * @param holder who holds it (a service instance or region; free text, bounded)
 * @param granted the amount counted at every level; {@code spent} never exceeds it (an
 *     overdraft reported grows it by what was overdrawn, counted at every level); of slots, the
 *     slots counted while it is held (no longer counted once it lapsed)
 * @param spent the holder's cumulative spend, as of its newest report; of slots, the jobs it
 *     started (not bounded by {@code granted})
 * @param reportSequence the newest report's sequence (0: none yet); an older or equal sequence
 *     is a resent report and counts nothing
 * @param expiresAtMillis ledger time the holder must stop admitting from it: the earlier of its
 *     lease's end and {@code windowEndMillis}
 * @param windowEndMillis the earliest end of the windows it was charged in
 * @param keepUntilMillis the latest end of the windows it was charged in: a lapsed budget is
 *     kept until then, so a late report is still billed and a late return still gives back
 *     what it did not spend to the windows still running
 * @param lapsed it reached {@code expiresAtMillis} without being returned: it admits nothing
 *     more, its whole grant stays counted (the holder may have spent it unreported) until it is
 *     returned or its window ends, and late reports are still billed
 * @param charges the levels it is counted at, each with the window it was charged in
 * @param overdraft its overdraft E: how much it may be overspent in all, reported when the holder
 *     reconnects (the smallest {@code overageMax} of its levels when every level is an
 *     {@code OVERDRAFT} quota at the grant, else 0)
 * @param overdrawn how much of {@code overdraft} reports have used (≤ {@code overdraft}): spend
 *     beyond what the levels had granted, billed as overage
 * @param slots a budget of a CONCURRENT quota: no windows ({@code windowEndMillis} is
 *     {@link Long#MAX_VALUE}, every charge's window start 0), no overdraft; kept after its lapse
 *     until {@code keepUntilMillis} only so a late report is still billed
 * @param want the total its holder last asked for (at its grant, the amount asked; then each
 *     report's {@code wantAmount}, never below its spend): growth at a contended level is shared
 *     by what holders still want beyond what they spent
 */
public record Budget(
    long budgetId,
    String holder,
    String scope,
    String resource,
    long granted,
    long spent,
    long reportSequence,
    long configVersion,
    long grantedAtMillis,
    long expiresAtMillis,
    long windowEndMillis,
    long keepUntilMillis,
    boolean lapsed,
    List<LevelCharge> charges,
    long overdraft,
    long overdrawn,
    boolean slots,
    long want) {
  /** Its stored encoding (quota store format 1). */
  public static final Shape<Budget> SHAPE =
      Shape.of(
          Budget.class,
          i64("budgetId", Budget::budgetId),
          str("holder", Budget::holder),
          str("scope", Budget::scope),
          str("resource", Budget::resource),
          i64("granted", Budget::granted),
          i64("spent", Budget::spent),
          i64("reportSequence", Budget::reportSequence),
          i64("configVersion", Budget::configVersion),
          i64("grantedAtMillis", Budget::grantedAtMillis),
          i64("expiresAtMillis", Budget::expiresAtMillis),
          i64("windowEndMillis", Budget::windowEndMillis),
          i64("keepUntilMillis", Budget::keepUntilMillis),
          bool("lapsed", Budget::lapsed),
          list16("charges", Budget::charges, LevelCharge.SHAPE),
          i64("overdraft", Budget::overdraft),
          i64("overdrawn", Budget::overdrawn),
          bool("slots", Budget::slots),
          i64("want", Budget::want));

  public Budget {
    charges = List.copyOf(charges);
  }

  /**
   * How long a slot budget's slots stay counted after its lease's end: ledger time may jump
   * forward at a leader change (a leader whose clock is ahead), and a pool stops by its own
   * clock; the grace keeps its slots counted until it surely has.
   */
  public static final long SLOT_GRACE_MILLIS = 1_000;

  /**
   * When Tick next visits it: while held, its lease's end (a slot budget's plus
   * {@link #SLOT_GRACE_MILLIS}, when its slots are freed); once lapsed, its drop.
   */
  public long dueAtMillis() {
    if (lapsed) {
      return keepUntilMillis;
    }
    return slots ? expiresAtMillis + SLOT_GRACE_MILLIS : expiresAtMillis;
  }

  /**
   * The event time of its spend: the latest start among its windows, inside every one of them
   * (slots have no window: their events carry the report's time).
   */
  public long eventTimeMillis() {
    long t = Long.MIN_VALUE;
    for (LevelCharge c : charges) {
      t = Math.max(t, c.windowStartMillis());
    }
    return charges.isEmpty() ? grantedAtMillis : t;
  }

  /** This budget after a report, a resize or a renewal. */
  public Budget with(long granted, long spent, long reportSequence, long expiresAtMillis,
      boolean lapsed) {
    return new Budget(budgetId, holder, scope, resource, granted, spent, reportSequence,
        configVersion, grantedAtMillis, expiresAtMillis, windowEndMillis, keepUntilMillis, lapsed,
        charges, overdraft, overdrawn, slots, want);
  }

  /** This budget after an overspend of {@code amount}: counted at its levels, billed as overage. */
  public Budget overdrawnBy(long amount) {
    return new Budget(budgetId, holder, scope, resource, granted + amount, spent, reportSequence,
        configVersion, grantedAtMillis, expiresAtMillis, windowEndMillis, keepUntilMillis, lapsed,
        charges, overdraft, overdrawn + amount, slots, want);
  }

  /** This slot budget lapsed at its lease's end: it counts nothing and is kept until {@code keepUntil}. */
  public Budget lapsedUntil(long keepUntil) {
    return new Budget(budgetId, holder, scope, resource, granted, spent, reportSequence,
        configVersion, grantedAtMillis, expiresAtMillis, windowEndMillis, keepUntil, true,
        charges, overdraft, overdrawn, slots, want);
  }

  /** This budget with its holder's newest want. */
  public Budget wanting(long newWant) {
    return new Budget(budgetId, holder, scope, resource, granted, spent, reportSequence,
        configVersion, grantedAtMillis, expiresAtMillis, windowEndMillis, keepUntilMillis, lapsed,
        charges, overdraft, overdrawn, slots, newWant);
  }

  /**
   * The most one budget weighs where growth is shared: 2^32. Levels sum their budgets' weights,
   * and a client may ask for up to 10^18; capped, the sum cannot overflow before 2^31 budgets
   * are held at one level. Above it (quotas of billions of units) contended shares tend to
   * equal parts.
   */
  public static final long MAX_WEIGHT = 1L << 32;

  /**
   * Its weight where growth is shared: what its holder still wants beyond what it spent, while
   * it is held (a lapsed budget wants nothing more), at most {@link #MAX_WEIGHT}.
   */
  public long demandWeight() {
    return lapsed ? 0 : weightOf(Math.max(0, want - spent));
  }

  /** A wanted amount as a weight: at most {@link #MAX_WEIGHT}. */
  public static long weightOf(long wanted) {
    return Math.min(wanted, MAX_WEIGHT);
  }

  /** The most a report may say it spent: the grant plus the overdraft not yet used. */
  public long spendableMax() {
    return granted + overdraft - overdrawn;
  }
}
