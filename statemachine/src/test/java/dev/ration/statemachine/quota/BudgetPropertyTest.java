package dev.ration.statemachine.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.LevelUsage;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of budget grants, local spending, reports (fresh, resent and retried
 * under their request id), returns, time passing over lease ends and window roll-overs, and
 * limit changes, over three levels of one scope path with different windows ({@code o} and
 * {@code o/a} by the minute, {@code o/a/x} by the second; {@code o/b} only the org limits),
 * against a reference model of the ledger and of holders that admit locally only what their
 * budget allows until it expires. Limit changes also switch levels between hard and soft
 * (OVERDRAFT with an overdraft E); holders are cut off and reconnected, and a cut-off holder of a
 * soft budget admits up to its E more, before its window ends, reporting it once reconnected.
 * After every step: each answer is the model's (what a grant or a growth gets, the overdraft, when
 * a report is resent or a budget ended), every level's window usage equals the model's, what
 * holders admitted in each level's window never exceeds the most that level's capacity was during
 * the window plus the overdraft E of every budget charged in it, and the replica's full verify()
 * (Q1–Q9) passes. At the end the usage log bills exactly what each budget's holder reported (its
 * overdrawn part as overage), and for every returned budget exactly what its holder admitted.
 */
class BudgetPropertyTest {
  static final List<String> SCOPES = List.of("o/a/x", "o/a", "o/b", "o");
  static final List<String> LEVELS = List.of("o", "o/a", "o/a/x");
  static final Map<String, Window> WINDOWS =
      Map.of("o", Window.MINUTE, "o/a", Window.MINUTE, "o/a/x", Window.SECOND);
  static final long RETENTION = StateOptions.defaults().idempotencyRetentionMillis();

  sealed interface Op {}

  record DoGrant(int scope, long amount, long lease) implements Op {}

  record DoSpend(int pick, long amount) implements Op {}

  record DoReport(int pick, long want, long lease) implements Op {}

  record DoResend(int pick) implements Op {}

  record DoReturn(int pick) implements Op {}

  record DoAdvance(long millis) implements Op {}

  /** Time passes and no Tick comes (a busy or new leader): budgets lapse only when touched. */
  record DoAdvanceQuiet(long millis) implements Op {}

  /** A new limit at a level; {@code overdraft} 0 makes it hard, else soft with that E. */
  record DoSetLimit(int level, long limit, long overdraft) implements Op {}

  /** The budget's holder loses (or regains) its way to the ledger. */
  record DoCutOff(int pick) implements Op {}

  record DoRetry(int pick) implements Op {}

  static final Gen<List<Op>> OPS = Gen.<Op>frequency(
          Gen.weight(4, r -> new DoGrant(r.between(0, 3), r.between(1L, 8L), r.between(200L, 3_000L))),
          Gen.weight(6, r -> new DoSpend(r.between(0, 50), r.between(1L, 4L))),
          Gen.weight(4, r -> new DoReport(r.between(0, 50), r.between(0L, 9L), r.between(200L, 3_000L))),
          Gen.weight(1, r -> new DoResend(r.between(0, 50))),
          Gen.weight(2, r -> new DoReturn(r.between(0, 50))),
          Gen.weight(3, r -> new DoAdvance(r.between(0L, 2_500L))),
          Gen.weight(1, r -> new DoAdvanceQuiet(r.between(0L, 2_500L))),
          Gen.weight(1, r -> new DoSetLimit(r.between(0, 2), r.between(0L, 20L), r.between(0L, 3L))),
          Gen.weight(2, r -> new DoCutOff(r.between(0, 50))),
          Gen.weight(1, r -> new DoRetry(r.between(0, 50))))
      .list(5, 60);

  /** A budget as the model (ledger and holder) sees it. */
  static final class B {
    long id;
    String scope;
    List<String> levels;
    Map<String, Long> windows = new HashMap<>(); // level -> window start it was charged in
    long granted;
    long admitted; // what the holder let through locally (cumulative)
    long reported; // spend counted by the ledger
    long sequence;
    long expiresAt;
    long windowEnd;
    long keepUntil;
    boolean returned;
    boolean dropped;
    boolean cutOff;
    long overdraft; // E: the most it may be overspent in all
    long overdrawn; // admitted past its grant while cut off
    long overdrawnReported;
    long want; // the total its holder last asked for
    boolean lapsed; // as the ledger has it: at a Tick past its lease's end, or when touched then
  }

  /** The reference ledger: capacities, window usage, what holders admitted per window. */
  static final class Model {
    final Map<String, Long> capacity = new HashMap<>();
    final Map<String, Long> used = new HashMap<>(); // level + "@" + window start
    final Map<String, Long> admitted = new HashMap<>();
    final Map<String, Long> maxCapacity = new HashMap<>();
    final Map<String, Long> overdraft = new HashMap<>(); // level -> E (0: hard)
    final Map<String, Long> overdraftAllowed = new HashMap<>(); // level@window -> ΣE of its budgets
    final TreeMap<Long, B> budgets = new TreeMap<>();

    static long windowStart(String level, long now) {
      long w = WINDOWS.get(level).endOf(0);
      return Math.floorDiv(now, w) * w;
    }

    List<String> levels(String scope) {
      return Scope.levels(scope).stream().filter(capacity::containsKey).toList();
    }

    long used(String level, long now) {
      return used.getOrDefault(level + "@" + windowStart(level, now), 0L);
    }

    long free(String level, long now) {
      return Math.max(0, capacity.get(level) - used(level, now));
    }

    void count(String level, long window, long amount) {
      used.merge(level + "@" + window, amount, Long::sum);
      maxCapacity.merge(level + "@" + window, capacity.get(level), Math::max);
    }
  }

  @Test
  void budgetsMatchTheReferenceAndNeverOversell() {
    Property.forAll(60, OPS, ops -> run(ops, 0));
  }

  /** As above, starting with every level soft (E = 2): the overdraft paths from the first step. */
  @Test
  void softBudgetsOversellAtMostTheirOverdrafts() {
    Property.forAll(60, OPS, ops -> run(ops, 2));
  }

  private static void run(List<Op> ops, long startOverdraft) throws IOException {
    Path dir = Files.createTempDirectory("budget-prop");
    try (QuotaHarness h = new QuotaHarness(dir)) {
      h.nowMillis = 1_017_000; // 3 s before a minute boundary, far from 0: every run crosses one
      Model m = new Model();
      setLimit(h, m, "o", 20, startOverdraft);
      setLimit(h, m, "o/a", 12, startOverdraft);
      setLimit(h, m, "o/a/x", 6, startOverdraft);
      List<Object[]> sent = new ArrayList<>(); // {key, command, first result, sent at}
      for (Op op : ops) {
        long now = h.nowMillis;
        List<B> open = m.budgets.values().stream().filter(b -> !b.returned && !b.dropped).toList();
        // Holders spend from, and lose their way with, budgets whose window is running.
        List<B> live = open.stream().filter(b -> now < b.windowEnd).toList();
        if (op instanceof DoGrant g) {
          String scope = SCOPES.get(g.scope());
          List<String> levels = m.levels(scope);
          long expected = g.amount();
          for (String level : levels) {
            long free = m.free(level, now);
            Fig f = figures(m, level, now, null);
            expected = Math.min(expected, Math.min(free, Budgets.share(free + f.unspent(),
                f.holders() + 1, g.amount(), f.demand() + g.amount())));
          }
          RequestKey key = h.freshKey();
          GrantBudget cmd = new GrantBudget("holder", scope, "r", g.amount(), g.lease());
          QuotaResult result = h.apply(key, cmd);
          sent.add(new Object[] {key, cmd, result, now});
          if (expected == 0) {
            assertEquals(Outcome.LIMIT_EXHAUSTED, QuotaHarness.rejected(result).outcome());
          } else {
            QuotaResult.BudgetGranted ok = granted(result);
            assertEquals(expected, ok.granted(), "granted");
            B b = new B();
            b.id = ok.budgetId();
            b.scope = scope;
            b.levels = levels;
            b.granted = expected;
            b.want = g.amount();
            b.windowEnd = Long.MAX_VALUE;
            b.overdraft = levels.stream().mapToLong(l -> m.overdraft.get(l)).min().orElseThrow();
            assertEquals(b.overdraft, ok.overdraft(), "the smallest E on the path, 0 if one is hard");
            for (String level : levels) {
              long start = Model.windowStart(level, now);
              b.windows.put(level, start);
              m.count(level, start, expected);
              m.overdraftAllowed.merge(level + "@" + start, b.overdraft, Long::sum);
              long end = WINDOWS.get(level).endOf(start);
              b.windowEnd = Math.min(b.windowEnd, end);
              b.keepUntil = Math.max(b.keepUntil, end);
            }
            b.expiresAt = Math.min(now + g.lease(), b.windowEnd);
            assertEquals(b.expiresAt, ok.expiresAtMillis(), "lease end");
            m.budgets.put(b.id, b);
          }
        } else if (op instanceof DoSpend s && !live.isEmpty()) {
          // The holder admits locally only before its lease ends and within what it holds.
          B b = live.get(s.pick() % live.size());
          long n = Math.min(s.amount(), b.granted - b.admitted);
          if (now >= b.expiresAt || n <= 0) {
            // Cut off, a soft budget's holder admits from its overdraft until the window ends.
            n = b.cutOff && now < b.windowEnd && b.overdraft - b.overdrawn >= s.amount()
                ? s.amount() : 0;
            b.overdrawn += n;
          }
          if (n > 0) {
            b.admitted += n;
            for (String level : b.levels) {
              m.admitted.merge(level + "@" + b.windows.get(level), n, Long::sum);
            }
          }
        } else if (op instanceof DoCutOff c
            && open.stream().anyMatch(b -> b.cutOff || now < b.windowEnd)) {
          // Cut off while its window runs; reconnected at any time, even after it ended.
          List<B> pickable = open.stream().filter(b -> b.cutOff || now < b.windowEnd).toList();
          B b = pickable.get(c.pick() % pickable.size());
          b.cutOff = !b.cutOff;
        } else if (op instanceof DoReport r && !open.isEmpty()
            && !open.get(r.pick() % open.size()).cutOff) {
          B b = open.get(r.pick() % open.size());
          RequestKey key = h.freshKey();
          ReportBudget cmd = new ReportBudget(b.id, b.admitted, b.sequence + 1, r.want(), r.lease());
          QuotaResult result = h.apply(key, cmd);
          sent.add(new Object[] {key, cmd, result, now});
          if (droppedIfAllowed(b, result, now)) {
            continue;
          }
          touched(b, now);
          QuotaResult.BudgetReported rep = reported(result);
          b.sequence++;
          b.reported = b.admitted;
          overdraw(m, b, now);
          boolean ended = now >= b.expiresAt;
          assertEquals(ended, rep.ended(), "ended");
          assertFalse(rep.resent());
          if (!ended) {
            long target = Math.max(r.want(), b.admitted);
            b.want = target;
            long delta = target - b.granted;
            if (delta > 0) {
              // Growth at a contended level is shared by what the held budgets still want.
              long weight = Math.max(0, b.want - b.reported);
              for (String level : b.levels) {
                long free = m.free(level, now);
                Fig f = figures(m, level, now, b);
                long share = Budgets.share(free + f.unspent(), f.holders() + 1, weight,
                    f.demand() + weight);
                delta = Math.min(delta, Math.min(free, Math.max(0, b.reported + share - b.granted)));
              }
            }
            for (String level : b.levels) {
              m.count(level, b.windows.get(level), delta);
            }
            b.granted += delta;
            b.expiresAt = Math.min(now + r.lease(), b.windowEnd);
          }
          assertEquals(b.granted, rep.granted(), "granted after the report");
          assertEquals(b.expiresAt, rep.expiresAtMillis(), "lease end after the report");
        } else if (op instanceof DoResend r && !open.isEmpty()) {
          B b = open.get(r.pick() % open.size());
          if (b.sequence > 0) {
            QuotaResult result = h.apply(new ReportBudget(b.id, b.reported, b.sequence, 50, 3_000));
            if (droppedIfAllowed(b, result, now)) {
              continue;
            }
            touched(b, now);
            QuotaResult.BudgetReported rep = reported(result);
            assertTrue(rep.resent(), "a report of a sequence already counted is resent");
            assertEquals(b.granted, rep.granted());
            assertEquals(b.expiresAt, rep.expiresAtMillis());
          }
        } else if (op instanceof DoReturn r && !open.isEmpty()
            && !open.get(r.pick() % open.size()).cutOff) {
          B b = open.get(r.pick() % open.size());
          QuotaResult result = h.apply(new ReturnBudget(b.id, b.admitted, b.sequence + 1));
          if (droppedIfAllowed(b, result, now)) {
            continue;
          }
          QuotaResult.BudgetReturned ret = returned(result);
          assertEquals(b.admitted, ret.spent());
          b.sequence++;
          b.reported = b.admitted;
          overdraw(m, b, now);
          b.returned = true;
          long unspent = b.granted - b.admitted;
          for (String level : b.levels) {
            if (b.windows.get(level) == Model.windowStart(level, now)) {
              m.count(level, b.windows.get(level), -unspent);
            }
          }
        } else if (op instanceof DoAdvance a) {
          h.nowMillis += a.millis();
          h.tick();
          for (B b : m.budgets.values()) {
            b.lapsed |= h.nowMillis >= b.expiresAt;
          }
        } else if (op instanceof DoAdvanceQuiet a) {
          h.nowMillis += a.millis();
        } else if (op instanceof DoSetLimit s) {
          setLimit(h, m, LEVELS.get(s.level()), s.limit(), s.overdraft());
        } else if (op instanceof DoRetry d && !sent.isEmpty()) {
          List<Object[]> answered =
              sent.stream().filter(x -> h.nowMillis < (Long) x[3] + RETENTION).toList();
          if (!answered.isEmpty()) {
            Object[] first = answered.get(d.pick() % answered.size());
            assertEquals(first[2], h.apply((RequestKey) first[0], (Command) first[1]),
                "a request id has exactly one decision");
          }
        }
        check(h, m, op);
      }
      // The usage log bills what each holder reported; a returned budget all it admitted.
      Map<Long, Long> billed = new HashMap<>();
      Map<Long, Long> overage = new HashMap<>();
      for (UsageEvent e : h.log()) {
        if (e.type() == EventType.BUDGET_SPENT) {
          long id = Long.parseLong(e.eventId().split(":")[1]);
          billed.merge(id, e.quantity(), Long::sum);
          overage.merge(id, e.overage(), Long::sum);
        }
      }
      for (B b : m.budgets.values()) {
        assertEquals(b.reported, (long) billed.getOrDefault(b.id, 0L), "billed for budget " + b.id);
        assertEquals(b.overdrawnReported, (long) overage.getOrDefault(b.id, 0L),
            "overage billed for budget " + b.id);
        if (b.returned) {
          assertEquals(b.admitted, b.reported, "a returned budget bills all it admitted");
        }
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** After every step: window usage as the model's, admissions within capacity. */
  private static void check(QuotaHarness h, Model m, Op op) {
    long now = h.nowMillis;
    for (String level : LEVELS) {
      LevelUsage u = h.usage(level, "r");
      long start = Model.windowStart(level, now);
      long expected = m.used(level, now);
      long actual = u.windowStartMillis() == start ? u.windowUsed() : 0;
      assertEquals(expected, actual, "window usage at " + level + " after " + op);
    }
    for (Map.Entry<String, Long> e : m.admitted.entrySet()) {
      long capacity = m.maxCapacity.getOrDefault(e.getKey(), 0L);
      long overdrafts = m.overdraftAllowed.getOrDefault(e.getKey(), 0L);
      assertTrue(e.getValue() <= capacity + overdrafts, "holders admitted " + e.getValue() + " in "
          + e.getKey() + ", whose capacity was at most " + capacity + " and its budgets' overdrafts "
          + overdrafts);
    }
  }

  /** A level's budget figures in its current window, as the ledger's tally keeps them. */
  record Fig(long unspent, long demand, long holders) {}

  /**
   * Unspent over the budgets charged in the level's current window; demand and holders over
   * those the ledger has not lapsed, leaving out {@code except}.
   */
  private static Fig figures(Model m, String level, long now, B except) {
    long window = Model.windowStart(level, now);
    long unspent = 0;
    long demand = 0;
    long holders = 0;
    for (B o : m.budgets.values()) {
      if (o.returned || o.dropped || !o.levels.contains(level) || o.windows.get(level) != window) {
        continue;
      }
      unspent += o.granted - o.reported;
      if (o != except && !o.lapsed) {
        demand += Math.max(0, o.want - o.reported);
        holders++;
      }
    }
    return new Fig(unspent, demand, holders);
  }

  /**
   * The ledger's side of a report carrying spend past the grant: the excess is counted at every
   * level still in the window charged, and the grant grows by it.
   */
  private static void overdraw(Model m, B b, long now) {
    long extra = b.admitted - b.granted;
    if (extra <= 0) {
      return;
    }
    for (String level : b.levels) {
      if (b.windows.get(level) == Model.windowStart(level, now)) {
        m.count(level, b.windows.get(level), extra);
      }
    }
    b.granted += extra;
    b.overdrawnReported += extra;
  }

  /**
   * Whether the ledger no longer knows the budget, which the model allows only once it lapsed
   * and its latest window ended (it is then dropped at the next Tick or report).
   */
  /**
   * The ledger's side of a report on {@code b}: past its lease's end it lapses; past its last
   * window's end it is forgotten once answered.
   */
  private static void touched(B b, long now) {
    b.lapsed |= now >= b.expiresAt;
    b.dropped |= now >= b.keepUntil;
  }

  private static boolean droppedIfAllowed(B b, QuotaResult result, long now) {
    if (result instanceof QuotaResult.QuotaRejected no && no.outcome() == Outcome.BUDGET_UNKNOWN) {
      assertTrue(now >= b.keepUntil, "budget " + b.id + " unknown before its windows ended: "
          + no.message());
      b.dropped = true;
      return true;
    }
    return false;
  }

  private static void setLimit(QuotaHarness h, Model m, String level, long limit, long overdraft) {
    h.apply(new SetQuota(new QuotaSpec(level, "r", QuotaKind.RATE, WINDOWS.get(level), limit,
        "requests", 0, overdraft == 0 ? Overage.REJECT : Overage.OVERDRAFT, overdraft, 0, 0,
        "prop", 0, "random change")));
    m.capacity.put(level, limit);
    m.overdraft.put(level, overdraft);
    m.maxCapacity.merge(level + "@" + Model.windowStart(level, h.nowMillis), limit, Math::max);
  }

  private static QuotaResult.BudgetGranted granted(QuotaResult r) {
    if (r instanceof QuotaResult.BudgetGranted ok) {
      return ok;
    }
    throw new AssertionError("expected BudgetGranted, got " + r);
  }

  private static QuotaResult.BudgetReported reported(QuotaResult r) {
    if (r instanceof QuotaResult.BudgetReported ok) {
      return ok;
    }
    throw new AssertionError("expected BudgetReported, got " + r);
  }

  private static QuotaResult.BudgetReturned returned(QuotaResult r) {
    if (r instanceof QuotaResult.BudgetReturned ok) {
      return ok;
    }
    throw new AssertionError("expected BudgetReturned, got " + r);
  }
}
