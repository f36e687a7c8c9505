package dev.ration.statemachine.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Budget;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.UsageEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of slot budget grants, jobs started and ended by their holders, reports
 * whose promise shrinks or grows the grant (some answers lost and the report resent under its
 * request id), returns, time passing over lease ends, CONCURRENT reservations beside them and
 * caps raised and lowered, over three levels of one scope path ({@code o} 8 slots, {@code o/a}
 * 5, {@code o/a/x} 3), against a reference model of the ledger and of holders that run jobs only
 * within what they know they hold (the smaller of the last grant they saw and the promise of a
 * report not yet answered) and only before their lease's end.
 *
 * <p>After every step: each answer is the model's; every level's held amount equals the model's
 * (budgets not lapsed plus reservations); the jobs running under a level never exceed what the
 * ledger holds for them, and, while no cap was lowered, never exceed the capacity; and the
 * replica's full verify() passes. At the end the usage log bills exactly the jobs each holder
 * reported starting.
 */
class SlotBudgetPropertyTest {
  static final List<String> SCOPES = List.of("o/a/x", "o/a", "o/b", "o");
  static final List<String> LEVELS = List.of("o", "o/a", "o/a/x");

  sealed interface Op {}

  record DoGrant(int scope, long amount, long lease) implements Op {}

  record DoStart(int pick) implements Op {}

  record DoEnd(int pick) implements Op {}

  /** A report promising the running jobs plus {@code extra}; its answer may be lost. */
  record DoReport(int pick, long extra, long lease, boolean lost) implements Op {}

  record DoResend(int pick) implements Op {}

  record DoReturn(int pick) implements Op {}

  record DoAdvance(long millis) implements Op {}

  record DoReserve(int scope, long amount) implements Op {}

  record DoComplete(int pick) implements Op {}

  record DoSetCap(int level, long cap) implements Op {}

  static final Gen<List<Op>> OPS = Gen.<Op>frequency(
          Gen.weight(4, r -> new DoGrant(r.between(0, 3), r.between(1L, 5L), r.between(200L, 3_000L))),
          Gen.weight(6, r -> new DoStart(r.between(0, 50))),
          Gen.weight(4, r -> new DoEnd(r.between(0, 50))),
          Gen.weight(4, r -> new DoReport(r.between(0, 50), r.between(0L, 4L),
              r.between(200L, 3_000L), r.between(0, 3) == 0)),
          Gen.weight(2, r -> new DoResend(r.between(0, 50))),
          Gen.weight(2, r -> new DoReturn(r.between(0, 50))),
          Gen.weight(3, r -> new DoAdvance(r.between(0L, 2_000L))),
          Gen.weight(2, r -> new DoReserve(r.between(0, 3), r.between(1L, 2L))),
          Gen.weight(1, r -> new DoComplete(r.between(0, 50))),
          Gen.weight(1, r -> new DoSetCap(r.between(0, 2), r.between(0L, 9L))))
      .list(5, 60);

  /** A slot budget as the model (ledger and holder) sees it. */
  static final class B {
    long id;
    List<String> levels;
    long granted; // what the ledger counts
    long known; // the grant the holder last saw
    long promise = -1; // a report sent and not answered: its promise
    Object[] unanswered; // {key, command}
    long expiresAt; // the ledger's lease end
    long knownExpiresAt; // the lease end the holder last saw
    boolean lapsed;
    boolean returned;
    int running;
    long started;
    long reported; // the starts of the newest report or return the ledger applied
    long sequence;

    long allowed(long now) {
      if (returned || now >= knownExpiresAt) {
        return 0;
      }
      return promise >= 0 ? Math.min(known, promise) : known;
    }
  }

  record R(long id, List<String> levels, long amount) {}

  @Test
  void slotBudgetsMatchTheReferenceAndNeverOversubscribe() {
    Property.forAll(80, OPS, SlotBudgetPropertyTest::run);
  }

  private static void run(List<Op> ops) throws IOException {
    Path dir = Files.createTempDirectory("slot-prop");
    try (QuotaHarness h = new QuotaHarness(dir)) {
      h.nowMillis = 1_000_000;
      Map<String, Long> cap = new HashMap<>(Map.of("o", 8L, "o/a", 5L, "o/a/x", 3L));
      for (String level : LEVELS) {
        h.apply(QuotaHarness.concurrent(level, "jobs", cap.get(level)));
      }
      boolean lowered = false;
      Map<String, Long> held = new HashMap<>();
      TreeMap<Long, B> budgets = new TreeMap<>();
      List<R> reservations = new ArrayList<>();
      for (Op op : ops) {
        long now = h.nowMillis;
        List<B> open = budgets.values().stream().filter(b -> !b.returned).toList();
        if (op instanceof DoGrant g) {
          String scope = SCOPES.get(g.scope());
          List<String> levels = levels(scope, cap);
          long expected = g.amount();
          for (String level : levels) {
            expected = Math.min(expected, Math.max(0, cap.get(level) - held.getOrDefault(level, 0L)));
          }
          QuotaResult result = h.apply(new GrantBudget("pool", scope, "jobs", g.amount(), g.lease()));
          if (expected == 0) {
            assertEquals(Outcome.LIMIT_EXHAUSTED, QuotaHarness.rejected(result).outcome(), result.toString());
          } else {
            QuotaResult.BudgetGranted ok = assertInstanceOf(QuotaResult.BudgetGranted.class, result);
            assertEquals(expected, ok.granted(), "granted");
            B b = new B();
            b.id = ok.budgetId();
            b.levels = levels;
            b.granted = expected;
            b.known = expected;
            b.expiresAt = now + g.lease();
            b.knownExpiresAt = b.expiresAt;
            assertEquals(b.expiresAt, ok.expiresAtMillis());
            for (String level : levels) {
              held.merge(level, expected, Long::sum);
            }
            budgets.put(b.id, b);
          }
        } else if (op instanceof DoStart s && !open.isEmpty()) {
          B b = open.get(s.pick() % open.size());
          if (b.running < b.allowed(now)) {
            b.running++;
            b.started++;
          }
        } else if (op instanceof DoEnd e && !open.isEmpty()) {
          B b = open.get(e.pick() % open.size());
          b.running = Math.max(0, b.running - 1);
        } else if (op instanceof DoReport r && !open.isEmpty()
            && open.get(r.pick() % open.size()).unanswered == null) {
          // One report in flight per holder: a holder with one unanswered sends nothing new.
          B b = open.get(r.pick() % open.size());
          long want = b.running + r.extra();
          RequestKey key = h.freshKey();
          ReportBudget cmd = new ReportBudget(b.id, b.started, ++b.sequence, want, r.lease());
          b.promise = want;
          QuotaResult result = h.apply(key, cmd);
          applyReport(b, cmd, result, now, held, cap);
          b.reported = cmd.spent();
          if (r.lost()) {
            b.unanswered = new Object[] {key, cmd};
          } else {
            heard(b, result);
          }
        } else if (op instanceof DoResend r && !open.isEmpty()) {
          B b = open.get(r.pick() % open.size());
          if (b.unanswered != null) {
            QuotaResult again = h.apply((RequestKey) b.unanswered[0], (ReportBudget) b.unanswered[1]);
            heard(b, again);
          }
        } else if (op instanceof DoReturn r && !open.isEmpty()) {
          B b = open.get(r.pick() % open.size());
          b.running = 0; // a holder returns once its pool has stopped
          QuotaResult.BudgetReturned back = assertInstanceOf(QuotaResult.BudgetReturned.class,
              h.apply(new ReturnBudget(b.id, b.started, ++b.sequence)), "return");
          b.reported = b.started;
          lapseIfDue(b, now, held);
          assertEquals(b.lapsed ? 0 : b.granted, back.released(), "released");
          if (!b.lapsed) {
            for (String level : b.levels) {
              held.merge(level, -b.granted, Long::sum);
            }
          }
          b.returned = true;
        } else if (op instanceof DoAdvance a) {
          long to = now + a.millis();
          // Holders honour cancellation: nothing of theirs runs at their lease's local end.
          for (B b : open) {
            if (to >= b.knownExpiresAt) {
              b.running = 0;
            }
          }
          h.nowMillis = to;
          h.tick();
          for (B b : open) {
            lapseIfDue(b, to, held);
          }
        } else if (op instanceof DoReserve r) {
          String scope = SCOPES.get(r.scope());
          List<String> levels = levels(scope, cap);
          boolean fits = levels.stream()
              .allMatch(l -> held.getOrDefault(l, 0L) + r.amount() <= cap.get(l));
          QuotaResult result = h.apply(new Reserve(scope, List.of(new Reserve.Item("jobs", r.amount())),
              0, 3_600_000, ""));
          if (fits) {
            QuotaResult.Reserved ok = QuotaHarness.reserved(result);
            reservations.add(new R(ok.reservationId(), levels, r.amount()));
            levels.forEach(l -> held.merge(l, r.amount(), Long::sum));
          } else {
            assertEquals(Outcome.LIMIT_EXHAUSTED, QuotaHarness.rejected(result).outcome(), result.toString());
          }
        } else if (op instanceof DoComplete c && !reservations.isEmpty()) {
          R r = reservations.remove(c.pick() % reservations.size());
          assertTrue(!(h.apply(new CompleteReservation(r.id(), List.of(r.amount())))
              instanceof QuotaResult.QuotaRejected), "completed");
          r.levels().forEach(l -> held.merge(l, -r.amount(), Long::sum));
        } else if (op instanceof DoSetCap s) {
          String level = LEVELS.get(s.level());
          lowered |= s.cap() < cap.get(level);
          cap.put(level, s.cap());
          h.apply(QuotaHarness.concurrent(level, "jobs", s.cap()));
        }
        check(h, budgets, reservations, held, cap, lowered);
      }
      // Billing: the usage log holds exactly the starts each holder's newest report said.
      Map<Long, Long> billed = new HashMap<>();
      for (UsageEvent e : h.log()) {
        if (e.type() == EventType.BUDGET_SPENT) {
          billed.merge(e.reservationId(), e.quantity(), Long::sum);
        }
      }
      for (B b : budgets.values()) {
        assertEquals(b.reported, (long) billed.getOrDefault(b.id, 0L), "billed starts of budget " + b.id);
      }
    }
  }

  /** The model's side of a report the ledger applied (whether or not its answer arrives). */
  private static void applyReport(B b, ReportBudget cmd, QuotaResult result, long now,
      Map<String, Long> held, Map<String, Long> cap) {
    lapseIfDue(b, now, held);
    QuotaResult.BudgetReported r = assertInstanceOf(QuotaResult.BudgetReported.class, result,
        result.toString());
    if (b.lapsed || now >= b.expiresAt) {
      assertTrue(r.ended(), "a report after the lease's end renews nothing");
      return;
    }
    long target = cmd.wantAmount();
    long delta = target - b.granted;
    if (delta > 0) {
      for (String level : b.levels) {
        delta = Math.min(delta, Math.max(0, cap.get(level) - held.getOrDefault(level, 0L)));
      }
    }
    for (String level : b.levels) {
      held.merge(level, delta, Long::sum);
    }
    b.granted += delta;
    b.expiresAt = Math.max(b.expiresAt, now + cmd.leaseMillis());
    assertEquals(b.granted, r.granted(), "resized");
    assertEquals(b.expiresAt, r.expiresAtMillis(), "renewed");
  }

  /** The holder hears a report's answer. */
  private static void heard(B b, QuotaResult result) {
    QuotaResult.BudgetReported r = assertInstanceOf(QuotaResult.BudgetReported.class, result);
    b.unanswered = null;
    b.promise = -1;
    if (r.ended()) {
      b.known = 0;
      return;
    }
    b.known = r.granted();
    b.knownExpiresAt = r.expiresAtMillis();
  }

  /** The ledger frees a budget's slots at its lease's end plus the grace. */
  private static void lapseIfDue(B b, long now, Map<String, Long> held) {
    if (!b.lapsed && !b.returned && now >= b.expiresAt + Budget.SLOT_GRACE_MILLIS) {
      b.lapsed = true;
      for (String level : b.levels) {
        held.merge(level, -b.granted, Long::sum);
      }
    }
  }

  private static void check(QuotaHarness h, Map<Long, B> budgets, List<R> reservations,
      Map<String, Long> held, Map<String, Long> cap, boolean lowered) {
    for (String level : LEVELS) {
      long ledger = h.usage(level, "jobs").held();
      assertEquals((long) held.getOrDefault(level, 0L), ledger, "held at " + level);
      long running = 0;
      for (B b : budgets.values()) {
        if (b.levels.contains(level)) {
          running += b.running;
        }
      }
      long reserved = reservations.stream().filter(r -> r.levels().contains(level))
          .mapToLong(R::amount).sum();
      assertTrue(running + reserved <= ledger, "at " + level + " " + running + " jobs run and "
          + reserved + " are reserved, the ledger holds " + ledger);
      if (!lowered) {
        assertTrue(running + reserved <= cap.get(level), "over the cap at " + level);
      }
    }
  }

  private static List<String> levels(String scope, Map<String, Long> cap) {
    return Scope.levels(scope).stream().filter(cap::containsKey).toList();
  }
}
