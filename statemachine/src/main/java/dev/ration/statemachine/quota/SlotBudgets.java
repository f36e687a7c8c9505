package dev.ration.statemachine.quota;

import static dev.ration.statemachine.quota.Arguments.invalid;

import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.query.Budget;
import dev.ration.statemachine.query.LevelCharge;
import dev.ration.statemachine.query.LevelUsage;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.QuotaSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Slot budgets: shares of the CONCURRENT quotas of one resource, leased to a holder (a worker
 * pool) at every level of a scope path at once; the holder keeps at most that many jobs running
 * without asking the ledger.
 *
 * <p>Counting: a grant adds its slots to the held amount of every level, as a CONCURRENT
 * reservation does, and only what every level still has free is granted (at most what was
 * asked). A report carries the holder's promise ({@code wantAmount}): from when it sent the
 * report it runs at most that many jobs, never fewer than are running. The ledger sets the
 * grant to the promise at once when it is lower (the slots above it stop counting), or grows it
 * toward the promise from what every level has free; it renews the lease from the report's time,
 * never to an earlier end than before (a holder that missed the answer still runs until the
 * end it knows). A report after the lease's end renews nothing. A return, or the lease's end
 * plus {@link Budget#SLOT_GRACE_MILLIS}, frees every slot the budget counts: the holder starts
 * nothing after its lease's local end and has cancelled its running jobs before it, so Σ slots
 * counted at a level ≤ its limit bounds the jobs running under it (docs/POOL.md states the bound
 * with jobs that ignore cancellation). Slots are granted up to the level's limit, never into an
 * ALLOW entry's overage band (that stays with reservations, which bill it). A budget whose path
 * gained a CONCURRENT entry since its grant ends at its next report (it is not counted there),
 * and its holder takes a new one.
 *
 * <p>Billing: a report's {@code spent} is the jobs the holder started (cumulative); each
 * report's new starts become one BUDGET_SPENT usage event at the report's time. A lapsed budget
 * is kept, counting nothing, for {@link #KEEP_AFTER_LAPSE_MILLIS} so a late report or return is
 * still billed; then it is dropped.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants (Q2, Q9, checked by {@link QuotaVerifier}): every level's held amount is what
 * its outstanding reservations and held slot budgets count; a held slot budget never takes a
 * level past its capacity when it grows.
 */
final class SlotBudgets {
  /** How long a lapsed slot budget is kept for a late report or return. */
  static final long KEEP_AFTER_LAPSE_MILLIS = Budgets.MAX_LEASE_MILLIS;

  private final QuotaRecords records;
  private final QuotaCounters counters;
  private final QuotaCatalog catalog;
  private final UsageLog usageLog;

  SlotBudgets(QuotaRecords records, QuotaCounters counters, QuotaCatalog catalog,
      UsageLog usageLog) {
    this.records = records;
    this.counters = counters;
    this.catalog = catalog;
    this.usageLog = usageLog;
  }

  /** A grant over {@code specs}, the CONCURRENT entries on the path (at least one). */
  QuotaResult grant(GrantBudget c, List<QuotaSpec> specs, long configVersion, long now) {
    long granted = c.amount();
    QuotaSpec tightest = specs.get(0);
    for (QuotaSpec spec : specs) {
      long free = free(spec, catalog.usage(spec.scope(), c.resource()));
      if (free < granted) {
        granted = free;
        tightest = spec;
      }
    }
    if (granted == 0) {
      return new QuotaResult.QuotaRejected(Outcome.LIMIT_EXHAUSTED,
          "quota " + tightest.scope() + " " + tightest.resource() + " (CONCURRENT) has no free "
              + "slot: held " + catalog.usage(tightest.scope(), c.resource()).held()
              + " of its limit " + tightest.limit(),
          tightest.scope(), tightest.resource(), 0, 0);
    }
    long id = counters.takeReservationId(c.scope());
    List<LevelCharge> charges = new ArrayList<>(specs.size());
    for (QuotaSpec spec : specs) {
      hold(id, spec, catalog.usage(spec.scope(), c.resource()), granted);
      charges.add(new LevelCharge(spec.scope(), 0));
    }
    long expiresAt = now + c.leaseMillis();
    Budget b = new Budget(id, c.holder(), c.scope(), c.resource(), granted, 0, 0, configVersion,
        now, expiresAt, Long.MAX_VALUE, Long.MAX_VALUE, false, charges, 0, 0, true, c.amount());
    put(b);
    records.putExpiry(QuotaKeys.budgetEnd(b.dueAtMillis(), id));
    return new QuotaResult.BudgetGranted(id, c.scope(), c.resource(), granted, expiresAt,
        Long.MAX_VALUE, configVersion, now, 0);
  }

  /** A report (arguments checked by the caller): bills new starts, renews, resizes to the promise. */
  QuotaResult report(Budget found, ReportBudget c, long now) {
    Budget b = lapseIfDue(endIfPathChanged(found, now), now);
    if (c.sequence() <= b.reportSequence()) {
      return Budgets.reported(b, now, true, 0);
    }
    if (c.spent() < b.spent()) {
      return invalid(startsProblem(b, c.spent()));
    }
    long event = bill(b, c.spent(), c.sequence(), now);
    Budget after = b.with(b.granted(), c.spent(), c.sequence(), b.expiresAtMillis(), b.lapsed());
    if (!b.lapsed() && now < b.expiresAtMillis()) {
      // Never earlier than before: a holder that missed this answer runs until the old end.
      long expiresAt = Math.max(b.expiresAtMillis(), now + c.leaseMillis());
      after = after.wanting(c.wantAmount());
      after = after.with(resize(after, c.wantAmount()), c.spent(), c.sequence(), expiresAt, false);
      if (expiresAt != b.expiresAtMillis()) {
        records.putExpiry(QuotaKeys.budgetEnd(after.dueAtMillis(), b.budgetId()));
      }
    }
    put(after);
    return Budgets.reported(after, now, false, event);
  }

  /** A return: bills a fresh report, frees what a held budget counts, forgets it. */
  QuotaResult giveBack(Budget b, ReturnBudget c, long now) {
    boolean fresh = c.sequence() > b.reportSequence();
    if (fresh && c.spent() < b.spent()) {
      return invalid(startsProblem(b, c.spent()));
    }
    long finalSpent = fresh ? c.spent() : b.spent();
    long event = fresh ? bill(b, finalSpent, c.sequence(), now) : 0;
    long released = b.lapsed() ? 0 : b.granted();
    if (!b.lapsed()) {
      release(b);
    }
    records.delete(QuotaRecords.Q, QuotaKeys.budget(b.budgetId()));
    // Its expiry record stays (the shared index is a queue); expire() will find no budget.
    return new QuotaResult.BudgetReturned(b.budgetId(), finalSpent, released, event);
  }

  /** Tick reached its due time: a held budget lapses (its slots freed), a lapsed one is dropped. */
  void expire(Budget b, long now) {
    if (b.lapsed()) {
      records.delete(QuotaRecords.Q, QuotaKeys.budget(b.budgetId()));
    } else {
      lapseIfDue(b, now);
    }
  }

  /**
   * A held budget whose path gained a CONCURRENT entry since its grant is not counted there: its
   * lease ends now (its slots stay counted for the grace), and the holder takes a new budget.
   */
  private Budget endIfPathChanged(Budget b, long now) {
    if (b.lapsed() || now >= b.expiresAtMillis() || !Budgets.pathGainedAnEntry(catalog, b)) {
      return b;
    }
    Budget ended = b.with(b.granted(), b.spent(), b.reportSequence(), now, false);
    put(ended);
    records.putExpiry(QuotaKeys.budgetEnd(ended.dueAtMillis(), b.budgetId()));
    return ended;
  }

  /**
   * The budget as of {@code now}: one past its lease's end and the grace frees its slots and is
   * kept lapsed.
   */
  private Budget lapseIfDue(Budget b, long now) {
    if (b.lapsed() || now < b.dueAtMillis()) {
      return b;
    }
    release(b);
    Budget lapsed = b.lapsedUntil(b.expiresAtMillis() + KEEP_AFTER_LAPSE_MILLIS);
    put(lapsed);
    records.putExpiry(QuotaKeys.budgetEnd(lapsed.dueAtMillis(), b.budgetId()));
    return lapsed;
  }

  /** Sets a held budget's grant to {@code target}; growth takes only what every level has free. */
  private long resize(Budget b, long target) {
    long delta = target - b.granted();
    if (delta > 0) {
      for (LevelCharge charge : b.charges()) {
        QuotaSpec spec = spec(b, charge);
        delta = Math.min(delta, free(spec, catalog.usage(charge.levelScope(), b.resource())));
      }
    }
    if (delta != 0) {
      for (LevelCharge charge : b.charges()) {
        hold(b.budgetId(), spec(b, charge), catalog.usage(charge.levelScope(), b.resource()),
            delta);
      }
    }
    return b.granted() + delta;
  }

  private void release(Budget b) {
    for (LevelCharge charge : b.charges()) {
      hold(b.budgetId(), spec(b, charge), catalog.usage(charge.levelScope(), b.resource()),
          -b.granted());
    }
  }

  /** Adds {@code amount} (negative: frees) to one level's held slots. */
  private void hold(long budgetId, QuotaSpec spec, LevelUsage usage, long amount) {
    if (amount == 0) {
      return;
    }
    Budgets.putCounted(catalog, budgetId, spec, usage.with(usage.windowUsed(),
        usage.held() + amount, usage.allocated(), usage.alerted()), amount);
  }

  /** Appends the starts new since the last report as one usage event; its sequence, or 0. */
  private long bill(Budget b, long started, long sequence, long now) {
    long delta = started - b.spent();
    if (delta == 0) {
      return 0;
    }
    return Budgets.appendSpent(usageLog, catalog, b, sequence, delta, now, now, 0);
  }

  private QuotaSpec spec(Budget b, LevelCharge charge) {
    // An entry's kind never changes and entries are never deleted: a charged level stays.
    return QuotaVerifier.requireChargedEntry(catalog.spec(charge.levelScope(), b.resource()),
        b.budgetId(), charge.levelScope(), b.resource());
  }

  /** Free slots up to the limit: an ALLOW entry's overage band is for reservations only. */
  private static long free(QuotaSpec spec, LevelUsage usage) {
    return Math.max(0, spec.limit() - usage.used(spec.kind()));
  }

  private static String startsProblem(Budget b, long spent) {
    return "budget " + b.budgetId() + ": spent (jobs started) is cumulative and was " + b.spent()
        + ", this report says " + spent;
  }

  private void put(Budget b) {
    Budgets.store(records, b);
  }

  static Optional<String> kindProblem(List<QuotaSpec> specs, String scope, String resource) {
    long concurrent = specs.stream().filter(s -> s.kind() == dev.ration.wire.QuotaKind.CONCURRENT)
        .count();
    if (concurrent == 0 || concurrent == specs.size()) {
      return Optional.empty();
    }
    return Optional.of("quotas of " + resource + " on " + scope + " mix CONCURRENT and windowed "
        + "kinds: a budget holds either slots (every level CONCURRENT) or an amount (every level"
        + " RATE or CUMULATIVE)");
  }
}
