package dev.ration.statemachine.quota;

import static dev.ration.statemachine.quota.Arguments.amount;
import static dev.ration.statemachine.quota.Arguments.firstProblem;
import static dev.ration.statemachine.quota.Arguments.invalid;

import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudgets;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.query.Budget;
import dev.ration.statemachine.query.LevelCharge;
import dev.ration.statemachine.query.LevelUsage;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Budgets: shares of the windowed quotas (RATE, CUMULATIVE) of one resource, leased to a holder
 * at every level of a scope path at once, spent by the holder without asking the ledger and
 * reported on renewal and return. Budgets of CONCURRENT quotas (slots) follow their own rules,
 * in {@link SlotBudgets}: a path's entries for one resource are all windowed or all CONCURRENT.
 *
 * <p>Counting: a grant adds its whole amount to the window usage of every level, as a
 * reservation does, and only what every level still admits is granted (at most what was
 * asked); growing a budget on renewal takes the same path. The grant stays counted while the
 * budget is held and after its lease lapses (the holder may have spent it without reporting),
 * so admissions through budgets never take a level past its capacity however the holders'
 * reports arrive. A return gives back the unspent part at every level still in the window it
 * was charged in. A window that rolls over starts empty, so an old window's budgets never
 * count in a new one.
 *
 * <p>Reports: the holder's cumulative spend under a report sequence that only grows; a report
 * whose sequence is not above the last one counted is resent or reordered and counts nothing
 * (nor renews). Each report's new spend becomes one BUDGET_SPENT usage event, with the event
 * time inside every window the budget was charged in ({@link Budget#eventTimeMillis()}) and the
 * budget's id as its reservation id (one id space: the log indexes it, so reconciliation finds a
 * budget's events without a scan), so the usage log's aggregates hold budget spend beside
 * settled reservations.
 *
 * <p>Lifetime: held until {@code expiresAtMillis} (its lease, never past its earliest window's
 * end), renewable until then; at that time (Tick, or the first report or return that finds it
 * past due) it lapses and admits nothing, and is kept until its latest window ends so a late
 * report is billed and a late return gives back what it did not spend; then it is dropped.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants (Q9, checked by {@link QuotaVerifier}): 0 ≤ spent ≤ granted; at every level the
 * budgets charged in its current window count no more than its window usage; every budget is
 * charged only at levels with a windowed catalog entry and has its expiry record at
 * {@link Budget#dueAtMillis()}.
 */
final class Budgets {
  /** Shortest and longest lease a grant or renewal may ask for. */
  static final long MIN_LEASE_MILLIS = QuotaOptions.MIN_RESERVATION_TTL_MILLIS;
  static final long MAX_LEASE_MILLIS = 600_000;

  private final Arguments.NameBound names;
  private final QuotaRecords records;
  private final QuotaCounters counters;
  private final QuotaCatalog catalog;
  private final UsageLog usageLog;
  private final BudgetTally tally;
  private final SlotBudgets slots;

  Budgets(Arguments.NameBound names, QuotaRecords records, QuotaCounters counters,
      QuotaCatalog catalog, UsageLog usageLog, BudgetTally tally) {
    this.tally = tally;
    this.names = names;
    this.records = records;
    this.counters = counters;
    this.catalog = catalog;
    this.usageLog = usageLog;
    this.slots = new SlotBudgets(records, counters, catalog, usageLog);
  }

  /** One level a budget counts at: its entry and its usage rolled to now. */
  private record Level(QuotaSpec spec, LevelUsage usage) {}

  QuotaResult grant(GrantBudget c, long now) {
    Optional<String> bad = firstProblem(
        names.check("holder", c.holder()),
        Scope.problem(c.scope()),
        names.check("resource", c.resource()),
        amount("amount", c.amount(), 1),
        leaseProblem(c.leaseMillis()));
    if (bad.isPresent()) {
      return invalid(bad.get());
    }
    List<QuotaSpec> specs = new ArrayList<>();
    long configVersion = 0;
    for (String level : Scope.levels(c.scope())) {
      Optional<QuotaSpec> spec = catalog.spec(level, c.resource());
      if (spec.isPresent()) {
        if (spec.get().kind() == QuotaKind.ALLOCATION) {
          return invalid("quota " + level + " " + c.resource() + " is ALLOCATION: budgets count"
              + " RATE, CUMULATIVE and CONCURRENT quotas (reserve ALLOCATION amounts)");
        }
        specs.add(spec.get());
        configVersion = Math.max(configVersion, spec.get().version());
      }
    }
    if (specs.isEmpty()) {
      return new QuotaResult.QuotaRejected(Outcome.LIMIT_UNKNOWN,
          "no quota for resource " + c.resource() + " at any level of " + c.scope(), "",
          c.resource(), 0, 0);
    }
    Optional<String> mixed = SlotBudgets.kindProblem(specs, c.scope(), c.resource());
    if (mixed.isPresent()) {
      return invalid(mixed.get());
    }
    if (specs.get(0).kind() == QuotaKind.CONCURRENT) {
      return slots.grant(c, specs, configVersion, now);
    }
    List<Level> levels = new ArrayList<>(specs.size());
    for (QuotaSpec spec : specs) {
      levels.add(new Level(spec, catalog.usage(spec.scope(), c.resource()).rolled(spec, now)));
    }
    long overdraft = Long.MAX_VALUE;
    for (Level level : levels) {
      QuotaSpec spec = level.spec();
      overdraft = Math.min(overdraft, spec.overage() == Overage.OVERDRAFT ? spec.overageMax() : 0);
    }
    long granted = c.amount();
    Level tightest = levels.get(0);
    for (Level level : levels) {
      long free = free(level);
      BudgetTally.Figures f = tally.figures(level.spec().scope(), c.resource(),
          level.usage().windowStartMillis());
      long weight = Budget.weightOf(c.amount());
      long room = Math.min(free, share(free + f.unspent(), f.holders() + 1, weight,
          f.demand() + weight));
      if (room < granted) {
        granted = room;
        tightest = level;
      }
    }
    // A level with anything free shares at least 1 (share() is at least 1 there), so a grant
    // of nothing means a level with nothing free.
    if (granted == 0) {
      QuotaSpec spec = tightest.spec();
      long retryAfter = Math.max(1, spec.window().endOf(tightest.usage().windowStartMillis()) - now);
      return new QuotaResult.QuotaRejected(Outcome.LIMIT_EXHAUSTED,
          "quota " + spec.scope() + " " + spec.resource() + " (" + spec.kind() + ") has nothing "
              + "left to grant: used " + tightest.usage().used(spec.kind()) + " of capacity "
              + spec.capacity() + "; the " + (spec.kind() == QuotaKind.RATE ? "window" : "billing period")
              + " rolls over in " + retryAfter + " ms",
          spec.scope(), spec.resource(), retryAfter, 0);
    }
    long id = counters.takeReservationId(c.scope());
    long windowEnd = Long.MAX_VALUE;
    long keepUntil = Long.MIN_VALUE;
    List<LevelCharge> charges = new ArrayList<>(levels.size());
    for (Level level : levels) {
      long end = level.spec().window().endOf(level.usage().windowStartMillis());
      windowEnd = Math.min(windowEnd, end);
      keepUntil = Math.max(keepUntil, end);
      charge(id, level.spec(), level.usage(), granted);
      tally.charge(level.spec().scope(), c.resource(), level.usage().windowStartMillis(), granted);
      tally.demand(level.spec().scope(), c.resource(), level.usage().windowStartMillis(),
          Budget.weightOf(c.amount()), 1);
      charges.add(new LevelCharge(level.spec().scope(), level.usage().windowStartMillis()));
    }
    long expiresAt = Math.min(now + c.leaseMillis(), windowEnd);
    Budget b = new Budget(id, c.holder(), c.scope(), c.resource(), granted, 0, 0, configVersion,
        now, expiresAt, windowEnd, keepUntil, false, charges, overdraft, 0, false, c.amount());
    put(b);
    records.putExpiry(QuotaKeys.budgetEnd(b.dueAtMillis(), id));
    return new QuotaResult.BudgetGranted(id, c.scope(), c.resource(), granted, expiresAt,
        windowEnd, configVersion, now, overdraft);
  }

  QuotaResult report(ReportBudget c, long now) {
    Optional<String> bad = firstProblem(
        amount("spent", c.spent(), 0),
        c.sequence() < 1 ? Optional.of("sequence " + c.sequence() + " < 1") : Optional.empty(),
        amount("wantAmount", c.wantAmount(), 0),
        leaseProblem(c.leaseMillis()));
    if (bad.isPresent()) {
      return invalid(bad.get());
    }
    Optional<Budget> found = budget(c.budgetId());
    if (found.isEmpty()) {
      return unknown(c.budgetId());
    }
    if (found.get().slots()) {
      return slots.report(found.get(), c, now);
    }
    Budget b = lapseIfDue(endIfWindowChanged(found.get(), now), now);
    if (c.sequence() <= b.reportSequence()) {
      forgetIfOver(b, now);
      return reported(b, now, true, 0);
    }
    Optional<String> spend = spendProblem(b, c.spent());
    if (spend.isPresent()) {
      forgetIfOver(b, now);
      return invalid(spend.get());
    }
    long overdrawn = Math.max(0, c.spent() - b.granted());
    b = overdraw(b, overdrawn, now);
    long event = bill(b, c.spent(), c.sequence(), overdrawn, now);
    Budget after = b.with(b.granted(), c.spent(), c.sequence(), b.expiresAtMillis(), b.lapsed());
    if (!b.lapsed()) {
      after = after.wanting(Math.max(c.wantAmount(), c.spent()));
      long granted = resize(after, b.demandWeight(), now);
      long expiresAt = Math.min(now + c.leaseMillis(), b.windowEndMillis());
      after = after.with(granted, c.spent(), c.sequence(), expiresAt, false);
      if (expiresAt != b.expiresAtMillis()) {
        records.putExpiry(QuotaKeys.budgetEnd(expiresAt, b.budgetId()));
      }
    }
    tallyMoved(b, after);
    if (now >= b.keepUntilMillis()) {
      // Its last window ended too: billed above, and now forgotten.
      drop(after);
    } else {
      put(after);
    }
    return reported(after, now, false, event);
  }

  /** Each report judged alone, in order; a refusal fails only its own report. */
  QuotaResult reportAll(ReportBudgets c, long now) {
    if (c.reports().isEmpty() || c.reports().size() > ReportBudgets.MAX_REPORTS) {
      return invalid(c.reports().size() + " reports; a batch carries 1.." + ReportBudgets.MAX_REPORTS);
    }
    List<QuotaResult.BudgetReport> out = new ArrayList<>(c.reports().size());
    for (ReportBudget r : c.reports()) {
      QuotaResult one = report(r, now);
      if (one instanceof QuotaResult.BudgetReported ok) {
        out.add(new QuotaResult.BudgetReport(dev.ration.wire.Outcome.SUCCESS, "", ok));
      } else {
        QuotaResult.QuotaRejected no = (QuotaResult.QuotaRejected) one;
        out.add(new QuotaResult.BudgetReport(no.outcome(), no.message(), null));
      }
    }
    return new QuotaResult.BudgetsReported(out);
  }

  QuotaResult giveBack(ReturnBudget c, long now) {
    Optional<String> bad = firstProblem(
        amount("spent", c.spent(), 0),
        c.sequence() < 1 ? Optional.of("sequence " + c.sequence() + " < 1") : Optional.empty());
    if (bad.isPresent()) {
      return invalid(bad.get());
    }
    Optional<Budget> found = budget(c.budgetId());
    if (found.isEmpty()) {
      return unknown(c.budgetId());
    }
    Budget b = found.get();
    if (b.slots()) {
      return slots.giveBack(b, c, now);
    }
    // A return carrying an older report than one already counted: the newer one stands.
    boolean fresh = c.sequence() > b.reportSequence();
    long finalSpent = fresh ? c.spent() : b.spent();
    if (fresh) {
      Optional<String> spend = spendProblem(b, c.spent());
      if (spend.isPresent()) {
        return invalid(spend.get());
      }
    }
    long overdrawn = Math.max(0, finalSpent - b.granted());
    b = overdraw(b, overdrawn, now);
    long event = fresh ? bill(b, finalSpent, c.sequence(), overdrawn, now) : 0;
    long released = 0;
    long unspent = b.granted() - finalSpent;
    for (LevelCharge charge : b.charges()) {
      if (release(b, charge, unspent, now)) {
        released = unspent;
      }
      tally.add(charge.levelScope(), b.resource(), charge.windowStartMillis(), -unspent);
      tally.demand(charge.levelScope(), b.resource(), charge.windowStartMillis(),
          -b.demandWeight(), b.lapsed() ? 0 : -1);
    }
    records.delete(QuotaRecords.Q, QuotaKeys.budget(b.budgetId()));
    // Its expiry record stays (the shared index is a queue); expire() will find no budget.
    return new QuotaResult.BudgetReturned(b.budgetId(), finalSpent, released, event);
  }

  /**
   * Tick reached a budget's due time: a held budget lapses (kept, whole grant counted, until its
   * latest window ends), a lapsed one is dropped; a stale record (renewed since, or returned)
   * changes nothing.
   */
  boolean expire(long budgetId, long dueAtMillis, long now) {
    Optional<Budget> found = budget(budgetId);
    if (found.isEmpty() || found.get().dueAtMillis() != dueAtMillis) {
      return false;
    }
    Budget b = found.get();
    if (b.slots()) {
      slots.expire(b, now);
    } else if (b.lapsed() || now >= b.keepUntilMillis()) {
      drop(b);
    } else {
      lapseIfDue(b, now);
    }
    return true;
  }

  /** Forgets a budget whose windows all ended, and its unspent part in the tallies. */
  private void drop(Budget b) {
    for (LevelCharge charge : b.charges()) {
      tally.add(charge.levelScope(), b.resource(), charge.windowStartMillis(),
          -(b.granted() - b.spent()));
      tally.demand(charge.levelScope(), b.resource(), charge.windowStartMillis(),
          -b.demandWeight(), b.lapsed() ? 0 : -1);
    }
    records.delete(QuotaRecords.Q, QuotaKeys.budget(b.budgetId()));
  }

  /**
   * The budget as of {@code now}: one past its lease's end lapses here, and the level tallies
   * stop counting its demand. It is stored and indexed for its drop, unless its last window
   * ended too: then the caller must drop it ({@link #forgetIfOver} on every path that does not
   * store it), since the tallies no longer count it as held.
   */
  private Budget lapseIfDue(Budget b, long now) {
    if (b.lapsed() || now < b.expiresAtMillis()) {
      return b;
    }
    Budget lapsed = b.with(b.granted(), b.spent(), b.reportSequence(), b.expiresAtMillis(), true);
    tallyMoved(b, lapsed);
    if (now < lapsed.keepUntilMillis()) {
      put(lapsed);
      records.putExpiry(QuotaKeys.budgetEnd(lapsed.dueAtMillis(), b.budgetId()));
    }
    return lapsed;
  }

  /** Drops a budget every window of which ended (what the next Tick would do). */
  private void forgetIfOver(Budget b, long now) {
    if (now >= b.keepUntilMillis()) {
      drop(b);
    }
  }

  /**
   * A held budget one of whose levels is no longer in the window it was charged in (the entry's
   * window or billing period was changed since: its usage started a new window) can neither
   * grow nor shrink consistently; nor can one whose path gained an entry since its grant (it is
   * not counted there). It ends now, as if its lease had run out (the holder returns it and
   * takes a budget under the new catalog).
   */
  private Budget endIfWindowChanged(Budget b, long now) {
    if (b.lapsed() || now >= b.expiresAtMillis()) {
      return b;
    }
    boolean changed = pathGainedAnEntry(b);
    for (LevelCharge charge : b.charges()) {
      Optional<QuotaSpec> spec = catalog.spec(charge.levelScope(), b.resource());
      changed |= spec.isEmpty() || catalog.usage(charge.levelScope(), b.resource())
          .rolled(spec.get(), now).windowStartMillis() != charge.windowStartMillis();
    }
    if (!changed) {
      return b;
    }
    Budget ended = b.with(b.granted(), b.spent(), b.reportSequence(), now, false);
    put(ended);
    return ended; // lapses at once below; its old expiry record is stale from here
  }

  /** Whether a level of the budget's path has an entry for its resource it is not charged at. */
  static boolean pathGainedAnEntry(QuotaCatalog catalog, Budget b) {
    for (String level : Scope.levels(b.scope())) {
      if (catalog.spec(level, b.resource()).isPresent()
          && b.charges().stream().noneMatch(c -> c.levelScope().equals(level))) {
        return true;
      }
    }
    return false;
  }

  private boolean pathGainedAnEntry(Budget b) {
    return pathGainedAnEntry(catalog, b);
  }

  /**
   * Grows or shrinks a held budget toward its want at every level (its windows are all current:
   * it is not past its earliest window's end); growth takes only what every level still admits,
   * and at a contended level no more than its share ({@link #share}). {@code oldRemaining} is
   * the remaining want the levels' tallies still count for it. Returns the new grant.
   */
  private long resize(Budget b, long oldRemaining, long now) {
    long target = b.want();
    if (target == b.granted()) {
      return target;
    }
    List<Level> levels = new ArrayList<>(b.charges().size());
    for (LevelCharge charge : b.charges()) {
      QuotaSpec spec = QuotaVerifier.requireChargedEntry(catalog.spec(charge.levelScope(),
          b.resource()), b.budgetId(), charge.levelScope(), b.resource());
      LevelUsage usage = catalog.usage(charge.levelScope(), b.resource()).rolled(spec, now);
      QuotaVerifier.requireBudgetWindow(b, charge, usage);
      levels.add(new Level(spec, usage));
    }
    long delta = target - b.granted();
    if (delta > 0) {
      for (Level level : levels) {
        long free = free(level);
        BudgetTally.Figures f = tally.figures(level.spec().scope(), b.resource(),
            level.usage().windowStartMillis());
        long share = share(free + f.unspent(), Math.max(1, f.holders()), b.demandWeight(),
            f.demand() - oldRemaining + b.demandWeight());
        delta = Math.min(delta, Math.min(free, Math.max(0, b.spent() + share - b.granted())));
      }
    }
    for (Level level : levels) {
      charge(b.budgetId(), level.spec(), level.usage(), delta);
      tally.charge(level.spec().scope(), b.resource(), level.usage().windowStartMillis(), delta);
    }
    return b.granted() + delta;
  }

  /**
   * A soft budget overspent by {@code amount} while its holder was cut off: the amount is counted
   * at every level whose usage is still of the window it was charged in, past capacity if it must
   * be (it was admitted already; the oversell bound is the overdraft), and the grant grows by it.
   */
  private Budget overdraw(Budget b, long amount, long now) {
    if (amount == 0) {
      return b;
    }
    QuotaVerifier.requireOverdraft(b, amount);
    for (LevelCharge charge : b.charges()) {
      QuotaVerifier.requireChargedEntry(catalog.spec(charge.levelScope(), b.resource()),
          b.budgetId(), charge.levelScope(), b.resource());
      // The stored usage, not rolled: while it is still of the charged window (current, or over
      // but not yet rolled by another command) it counts the grant, so it counts its growth too.
      LevelUsage usage = catalog.usage(charge.levelScope(), b.resource());
      if (usage.windowStartMillis() == charge.windowStartMillis()) {
        catalog.putUsage(usage.with(usage.windowUsed() + amount, usage.held(), usage.allocated(),
            usage.alerted()));
      }
      // The grant grows at every level, so its unspent share does too, in whichever window's
      // record still holds it (the report's spend comes off the same records).
      tally.add(charge.levelScope(), b.resource(), charge.windowStartMillis(), amount);
    }
    Budget after = b.overdrawnBy(amount);
    put(after);
    return after;
  }

  private static long free(Level level) {
    return Math.max(0, level.spec().capacity() - level.usage().used(level.spec().kind()));
  }

  /**
   * The most one budget may hold unspent at a level whose unspent capacity is {@code remaining}
   * (free, plus what budgets hold unspent), when {@code holders} budgets there still want
   * {@code demand} beyond what they spent, this one {@code wants} of it. Uncontended (the demand
   * fits): all it wants. Contended: the larger of an equal split and its demand-weighted split,
   * so a holder asking for much cannot take what the others want, and a small one gets what it
   * asks up to an equal part. An approximation of max-min fairness from the level's totals (the
   * exact one needs every budget's want on each renewal).
   */
  static long share(long remaining, long holders, long wants, long demand) {
    if (demand <= remaining) {
      return wants;
    }
    // Rounded up: rounded down, the parts could leave a few units no holder may take while
    // all of them want more; rounded up, what is free bounds the growth anyway.
    long weighted = (long) Math.ceil((double) remaining * wants / demand);
    long equal = Math.floorDiv(remaining + Math.max(1, holders) - 1, Math.max(1, holders));
    return Math.min(wants, Math.max(equal, weighted));
  }

  /** A report or a lapse moved the budget's demand: the tallies of its windows follow. */
  private void tallyMoved(Budget before, Budget after) {
    long delta = after.demandWeight() - before.demandWeight();
    int holders = (after.lapsed() ? 0 : 1) - (before.lapsed() ? 0 : 1);
    for (LevelCharge charge : before.charges()) {
      tally.demand(charge.levelScope(), before.resource(), charge.windowStartMillis(), delta,
          holders);
    }
  }

  /** Adds {@code amount} (negative: gives back) to one level's window usage. */
  private void charge(long budgetId, QuotaSpec spec, LevelUsage usage, long amount) {
    if (amount == 0) {
      return;
    }
    putCounted(catalog, budgetId, spec, usage.with(usage.windowUsed() + amount, usage.held(),
        usage.allocated(), usage.alerted()), amount);
  }

  /**
   * Stores a level's usage {@code after} a budget counted {@code amount} more there (negative:
   * less), checking it: growth stays within capacity (a level above its capacity after a limit
   * decrease still takes give-backs), and nothing goes negative.
   */
  static void putCounted(QuotaCatalog catalog, long budgetId, QuotaSpec spec, LevelUsage after,
      long amount) {
    if (amount > 0) {
      QuotaVerifier.requireWithinCapacity(budgetId, spec, after.used(spec.kind()));
    }
    QuotaVerifier.requireReleasable(budgetId, spec.scope(), spec.resource(), after.held(),
        after.windowUsed());
    catalog.putUsage(after);
  }

  /**
   * Appends {@code delta} new spend of {@code b} as one BUDGET_SPENT event at {@code eventTime},
   * {@code overage} of it billable overage (its id: the budget and the report's sequence);
   * returns the event's sequence.
   */
  static long appendSpent(UsageLog usageLog, QuotaCatalog catalog, Budget b, long sequence,
      long delta, long eventTime, long now, long overage) {
    String unit = catalog.spec(b.charges().get(0).levelScope(), b.resource())
        .map(QuotaSpec::unit).orElse("");
    long seq = usageLog.nextSequence();
    usageLog.append(new UsageEvent(seq, "budget:" + b.budgetId() + ":" + sequence,
        EventType.BUDGET_SPENT, eventTime, now, b.scope(), b.resource(), delta, unit,
        b.budgetId(), overage));
    return seq;
  }

  /** Gives back {@code unspent} at one level if it is still in the window charged; whether it was. */
  private boolean release(Budget b, LevelCharge charge, long unspent, long now) {
    QuotaSpec spec = QuotaVerifier.requireChargedEntry(catalog.spec(charge.levelScope(),
        b.resource()), b.budgetId(), charge.levelScope(), b.resource());
    LevelUsage usage = catalog.usage(charge.levelScope(), b.resource()).rolled(spec, now);
    if (usage.windowStartMillis() != charge.windowStartMillis()) {
      return false;
    }
    charge(b.budgetId(), spec, usage, -unspent);
    return unspent > 0;
  }

  /**
   * Appends the spend new since the last report as one usage event, {@code overdrawn} of it
   * flagged as billable overage; its sequence, or 0.
   */
  private long bill(Budget b, long spent, long sequence, long overdrawn, long now) {
    long delta = spent - b.spent();
    if (delta == 0) {
      return 0;
    }
    long seq = appendSpent(usageLog, catalog, b, sequence, delta, b.eventTimeMillis(), now,
        overdrawn);
    for (LevelCharge charge : b.charges()) {
      tally.add(charge.levelScope(), b.resource(), charge.windowStartMillis(), -delta);
      Optional<QuotaSpec> spec = catalog.spec(charge.levelScope(), b.resource());
      if (spec.isEmpty()) {
        continue;
      }
      LevelUsage usage = catalog.usage(charge.levelScope(), b.resource()).rolled(spec.get(), now);
      if (usage.windowStartMillis() != charge.windowStartMillis()) {
        continue; // that window is over: no threshold to judge
      }
      long reported = usage.windowUsed()
          - tally.unspent(charge.levelScope(), b.resource(), charge.windowStartMillis());
      LevelUsage after = Reservations.alertIfCrossed(spec.get(), usage, reported, now, counters,
          usageLog);
      if (after != usage) {
        catalog.putUsage(after);
      }
    }
    return seq;
  }

  private static Optional<String> spendProblem(Budget b, long spent) {
    if (spent < b.spent()) {
      return Optional.of("budget " + b.budgetId() + ": spent is cumulative and was "
          + b.spent() + ", this report says " + spent);
    }
    if (spent > b.spendableMax()) {
      return Optional.of("budget " + b.budgetId() + ": spent " + spent + " exceeds granted "
          + b.granted() + (b.overdraft() > 0
              ? " plus the overdraft left " + (b.overdraft() - b.overdrawn()) : ""));
    }
    return Optional.empty();
  }

  private static Optional<String> leaseProblem(long leaseMillis) {
    return leaseMillis < MIN_LEASE_MILLIS || leaseMillis > MAX_LEASE_MILLIS
        ? Optional.of("leaseMillis " + leaseMillis + " outside [" + MIN_LEASE_MILLIS + ", "
            + MAX_LEASE_MILLIS + "]")
        : Optional.empty();
  }

  static QuotaResult.BudgetReported reported(Budget b, long now, boolean resent, long event) {
    return new QuotaResult.BudgetReported(b.budgetId(), b.granted(), b.spent(),
        b.expiresAtMillis(), b.windowEndMillis(), b.lapsed() || now >= b.expiresAtMillis(),
        resent, event, now);
  }

  private static QuotaResult unknown(long budgetId) {
    return new QuotaResult.QuotaRejected(Outcome.BUDGET_UNKNOWN,
        "budget " + budgetId + " is not held (never granted, returned, or dropped after its "
            + "windows ended)", "", "", 0, 0);
  }

  private void put(Budget b) {
    store(records, b);
  }

  /** Stores a budget's record. */
  static void store(QuotaRecords records, Budget b) {
    records.put(QuotaRecords.Q, QuotaKeys.budget(b.budgetId()),
        QuotaFormat.stored(out -> Budget.SHAPE.write(out, b)));
  }

  Optional<Budget> budget(long id) {
    return records.get(QuotaRecords.Q, QuotaKeys.budget(id))
        .map(v -> QuotaFormat.read(v, "budget " + id, Budget.SHAPE::read));
  }

  /** Figures of the budgets by the depth of their path, reading at most {@code maxScan} records. */
  List<dev.ration.statemachine.query.QuotaAnswer.BudgetFigures> figures(int maxScan) {
    long[][] f = new long[3][4];
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET, maxScan)) {
      Budget b = QuotaFormat.read(e.getValue(), "budget", Budget.SHAPE::read);
      long[] d = f[Math.min(3, Scope.levels(b.scope()).size()) - 1];
      d[b.lapsed() ? 1 : 0]++;
      d[2] += b.slots() ? 0 : b.granted() - b.spent();
      d[3] += b.overdrawn();
    }
    List<dev.ration.statemachine.query.QuotaAnswer.BudgetFigures> out = new ArrayList<>(3);
    for (int i = 0; i < 3; i++) {
      out.add(new dev.ration.statemachine.query.QuotaAnswer.BudgetFigures(i + 1, f[i][0], f[i][1],
          f[i][2], f[i][3]));
    }
    return out;
  }

  /**
   * Budgets at or under {@code scopePrefix} (held, and lapsed ones still counted), in id order,
   * at most LIST_MAX, reading at most {@code maxScan} records.
   */
  dev.ration.statemachine.query.QuotaAnswer.BudgetList list(String scopePrefix, int maxScan) {
    List<Budget> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET, maxScan)) {
      Budget b = QuotaFormat.read(e.getValue(), "budget", Budget.SHAPE::read);
      if (Scope.under(b.scope(), scopePrefix) && out.size() < QuotaLedger.LIST_MAX) {
        out.add(b);
      }
    }
    return new dev.ration.statemachine.query.QuotaAnswer.BudgetList(out);
  }
}
