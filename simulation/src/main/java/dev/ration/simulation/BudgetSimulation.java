package dev.ration.simulation;

import dev.ration.client.limiter.ManualScheduler;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaLimiter;
import dev.ration.client.quota.QuotaLimiterOptions;
import dev.ration.client.quota.internal.QuotaAccess;
import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.wire.EventType;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * A deterministic simulation of quota budgets with demand that moves: the real ledger ({@link
 * RocksCoordinatorState}, {@code verify()} after every entry, so Q9 holds at every step) and the
 * real client ({@link QuotaLimiter} over a {@link QuotaClient}, one per holder, each on its own
 * {@link ManualScheduler}) joined by a simulated network with a fixed one-way delay, where one
 * holder can be cut off for a while (its requests and answers are lost and its calls fail after
 * the client's deadline).
 *
 * <p>The catalog: organisation {@code o}, tenants {@code o/t1} and {@code o/t2}, projects {@code
 * o/t1/p1}, {@code o/t1/p2} and {@code o/t2/p3}, each a per-minute RATE quota on {@code api}
 * (hard). Every holder serves every project; the hot project moves every {@code moveEveryMillis}:
 * p1, then p2 (the same tenant), then p3 (the other tenant), which stays hot into the next
 * minute. Every millisecond each holder offers its load to {@code tryAcquire} one request at a
 * time and counts what it admitted per project and minute.
 *
 * <p>Checks (returned in the outcome; the test asserts them): the admissions of every level in
 * every minute stay within its limit; after each move, the hot project's admissions reach 90 %
 * of what the holders not cut off offer over a sliding 200 ms (or a level of its path has less than that left to
 * grant: the rest is held by budgets, spent or not), within one lease duration, and holds it for
 * the rest of its turn; once every limiter closed, the usage log bills, per project and minute,
 * exactly what the holders admitted (a usage-accuracy drill with a cut-off holder in the
 * middle), and its hour aggregates agree.
 *
 * <p>Thread: single-threaded; every run with the same setup replays exactly.
 */
public final class BudgetSimulation {
  /** What to simulate. */
  public record Setup(String name, int holders, long leaseMillis, long oneWayMillis,
      long timeoutMillis, long orgLimit, long tenantLimit, long projectLimit, long hotPerSecond,
      long coldPerSecond, long moveEveryMillis, long cutOffFromMillis, long cutOffToMillis,
      long durationMillis) {}

  /**
   * What one run measured: the most any level admitted in a minute against its limit (as a
   * fraction ×1000), the time from each move until the hot project reached 90 % and held it for
   * the rest of its turn (the end of the last 200 ms span below 90 %; 0: never below), what
   * tenant t1 had left unadmitted when it could first grant p2 no more (held unspent in other
   * budgets; -1: it never ran out), the
   * minutes and projects whose billing differs from the admissions, and totals.
   */
  public record Outcome(String name, long worstPerMille, long toP2Millis, long toP3Millis,
      long strandedAtTenant, long admitted, long billed, long aggregated, long mismatchedWindows,
      long ledgerEntries, long leaseMillis) {}

  static final String RESOURCE = "api";
  static final List<String> PROJECTS = List.of("o/t1/p1", "o/t1/p2", "o/t2/p3");
  static final long MINUTE = 60_000;
  /** Ledger time of the simulation's start: an hour boundary, so minutes and hours align. */
  static final long T0 = 3_600_000L * 500;
  private static final long TICK_EVERY_MILLIS = 20;
  private static final long SLIDE_MILLIS = 200;

  private final Setup s;
  private final LedgerDir ledger;
  private final RocksCoordinatorState state;
  private final PriorityQueue<Event> events = new PriorityQueue<>(
      Comparator.comparingLong(Event::at).thenComparingLong(Event::seq));
  private final List<Holder> holders = new ArrayList<>();
  /** Admissions per (level, minute), over all holders. */
  private final Map<String, Long> admittedAt = new HashMap<>();
  private final Map<String, Long> limits = new HashMap<>();
  private long seq;
  private long now;
  private long index = 1;
  private long entries;
  private long requestIds;

  private record Event(long at, long seq, Runnable body) {}

  private final class Holder {
    final int id;
    final ManualScheduler clock = new ManualScheduler();
    final QuotaLimiter limiter;
    final long[] carry = new long[PROJECTS.size()];
    /** Admissions per (project, minute). */
    final Map<String, Long> admitted = new HashMap<>();

    Holder(int id) {
      this.id = id;
      QuotaClient client = QuotaAccess.client(new SimTransport(this), MonotonicClock.SYSTEM);
      this.limiter = QuotaAccess.limiter(client, clock, () -> clock.now().toNanos(), "h" + id,
          QuotaLimiterOptions.defaults().withLease(Duration.ofMillis(s.leaseMillis()))
              .withScheduler(clock));
    }

    boolean cutOff() {
      return id == 0 && now >= s.cutOffFromMillis() && now < s.cutOffToMillis();
    }
  }

  /** The network between one holder and the ledger. */
  private final class SimTransport implements Transport {
    private final Holder holder;

    SimTransport(Holder holder) {
      this.holder = holder;
    }

    @Override
    public CompletableFuture<Response> call(Request request) {
      CompletableFuture<Response> f = new CompletableFuture<>();
      long sentAt = now;
      boolean lost = holder.cutOff();
      at(now + s.oneWayMillis(), () -> {
        if (lost || holder.cutOff()) {
          at(sentAt + s.timeoutMillis(), () -> f.completeExceptionally(
              new TimeoutException("no answer within " + s.timeoutMillis() + " ms (cut off)")));
          return;
        }
        Response reply = answer(((Request.Quota) request).request());
        at(now + s.oneWayMillis(), () -> {
          if (holder.cutOff()) {
            at(sentAt + s.timeoutMillis(), () -> f.completeExceptionally(
                new TimeoutException("answer lost (cut off)")));
          } else {
            f.complete(reply);
          }
        });
      });
      return f;
    }

    @Override
    public long nextRequestId() {
      return ++requestIds;
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(long requestId, Request request,
        Class<T> replyType) {
      return call(request).thenApply(replyType::cast);
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
      return call(request).thenApply(replyType::cast);
    }
  }

  private BudgetSimulation(Setup setup) {
    this.s = setup;
    this.ledger = new LedgerDir("ration-budget-sim-");
    this.state = ledger.state;
  }

  /** Runs one setup to the end; the ledger's directory is deleted afterwards. */
  public static Outcome run(Setup setup) {
    BudgetSimulation sim = new BudgetSimulation(setup);
    try {
      return sim.execute();
    } finally {
      sim.ledger.close();
    }
  }

  private Outcome execute() {
    quota("o", s.orgLimit());
    quota("o/t1", s.tenantLimit());
    quota("o/t2", s.tenantLimit());
    for (String p : PROJECTS) {
      quota(p, s.projectLimit());
    }
    for (int i = 0; i < s.holders(); i++) {
      holders.add(new Holder(i));
    }
    at(TICK_EVERY_MILLIS, this::tick);
    // Per project: offered and admitted in the last SLIDE_MILLIS, for the 90 % measure.
    long[][] offeredRing = new long[PROJECTS.size()][(int) SLIDE_MILLIS];
    long[][] admittedRing = new long[PROJECTS.size()][(int) SLIDE_MILLIS];
    long[] offeredSum = new long[PROJECTS.size()];
    long[] admittedSum = new long[PROJECTS.size()];
    long toP2 = 0;
    long toP3 = 0;
    long stranded = -1;
    long admittedTotal = 0;
    for (now = 0; now < s.durationMillis(); now++) {
      runEvents();
      int hot = (int) Math.min(PROJECTS.size() - 1, now / s.moveEveryMillis());
      int slot = (int) (now % SLIDE_MILLIS);
      long[] offeredNow = new long[PROJECTS.size()];
      long[] admittedNow = new long[PROJECTS.size()];
      for (Holder h : holders) {
        h.clock.advanceTo(Duration.ofMillis(now));
        for (int p = 0; p < PROJECTS.size(); p++) {
          h.carry[p] += p == hot ? s.hotPerSecond() : s.coldPerSecond();
          long offered = h.carry[p] / 1000;
          h.carry[p] %= 1000;
          for (long k = 0; k < offered; k++) {
            // The 90 % measure is about rebalancing: a holder cut off refuses by design.
            boolean measured = !h.cutOff();
            offeredNow[p] += measured ? 1 : 0;
            if (h.limiter.tryAcquire(PROJECTS.get(p), RESOURCE, 1)) {
              admittedNow[p] += measured ? 1 : 0;
              admittedTotal++;
              h.admitted.merge(PROJECTS.get(p) + "@" + now / MINUTE, 1L, Long::sum);
              for (String level : levels(PROJECTS.get(p))) {
                admittedAt.merge(level + "@" + now / MINUTE, 1L, Long::sum);
              }
            }
          }
        }
      }
      for (int p = 0; p < PROJECTS.size(); p++) {
        offeredSum[p] += offeredNow[p] - offeredRing[p][slot];
        admittedSum[p] += admittedNow[p] - admittedRing[p][slot];
        offeredRing[p][slot] = offeredNow[p];
        admittedRing[p][slot] = admittedNow[p];
      }
      long sinceMove = now - hot * s.moveEveryMillis();
      if (hot > 0 && sinceMove >= SLIDE_MILLIS) {
        // 90 % of what the hot project was offered, unless a level of its path has less left to
        // grant than that (budgets hold the rest: granted, spent or not).
        boolean starved = admittedSum[hot] * 10 < offeredSum[hot] * 9;
        boolean reached = !starved || grantable(PROJECTS.get(hot)) < offeredSum[hot];
        if (starved && reached && hot == 1 && stranded < 0) {
          // The tenant can grant no more: what it has left unadmitted sits in other budgets.
          stranded = limits.get("o/t1") - admittedAt.getOrDefault("o/t1@" + now / MINUTE, 0L);
        }
        // Held from here on within the turn: the end of the last sliding span below 90 %.
        if (!reached && hot == 1 && now < 2 * s.moveEveryMillis()) {
          toP2 = sinceMove;
        }
        if (!reached && hot == 2 && now < 3 * s.moveEveryMillis()) {
          toP3 = sinceMove;
        }
      }
    }
    // Every holder closes (returns its budgets with their final spend); the answers arrive.
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (Holder h : holders) {
      closing.add(h.limiter.closeAsync());
    }
    long end = now + 10 * s.timeoutMillis();
    for (; now < end && !closing.stream().allMatch(CompletableFuture::isDone); now++) {
      runEvents();
      for (Holder h : holders) {
        h.clock.advanceTo(Duration.ofMillis(now));
      }
    }
    return measure(admittedTotal, toP2, toP3, stranded);
  }

  private Outcome measure(long admittedTotal, long toP2, long toP3, long stranded) {
    long worst = 0;
    for (Map.Entry<String, Long> e : admittedAt.entrySet()) {
      String level = e.getKey().substring(0, e.getKey().indexOf('@'));
      worst = Math.max(worst, e.getValue() * 1000 / limits.get(level));
    }
    Map<String, Long> counted = new HashMap<>();
    for (Holder h : holders) {
      h.admitted.forEach((k, v) -> counted.merge(k, v, Long::sum));
    }
    Map<String, Long> billed = new HashMap<>();
    long billedTotal = 0;
    long from = 1;
    for (;;) {
      QuotaAnswer a = quotaQuery(new QuotaQuery.ReadUsage("sim", from, 1_000));
      List<UsageEvent> page = ((QuotaAnswer.UsageBatch) a).events();
      if (page.isEmpty()) {
        break;
      }
      for (UsageEvent e : page) {
        if (e.type() == EventType.BUDGET_SPENT) {
          billed.merge(e.scope() + "@" + (e.eventTimeMillis() - T0) / MINUTE, e.quantity(),
              Long::sum);
          billedTotal += e.quantity();
        }
        from = e.sequence() + 1;
      }
    }
    long mismatched = 0;
    java.util.Set<String> keys = new java.util.HashSet<>(counted.keySet());
    keys.addAll(billed.keySet());
    for (String k : keys) {
      if (!counted.getOrDefault(k, 0L).equals(billed.getOrDefault(k, 0L))) {
        mismatched++;
      }
    }
    long aggregated = 0;
    for (String p : PROJECTS) {
      aggregated += ((QuotaAnswer.AggregateList) quotaQuery(new QuotaQuery.AggregateUsage(p,
          RESOURCE, T0, T0 + 3_600_000))).total();
    }
    return new Outcome(s.name(), worst, toP2, toP3, stranded, admittedTotal, billedTotal,
        aggregated, mismatched, entries, s.leaseMillis());
  }

  /** The least any level of the path can still grant, as the ledger counts it now. */
  private long grantable(String project) {
    long least = Long.MAX_VALUE;
    for (String level : levels(project)) {
      QuotaAnswer.QuotaFound f = (QuotaAnswer.QuotaFound) quotaQuery(
          new QuotaQuery.GetQuota(level, RESOURCE));
      QuotaAnswer.QuotaRow row = f.quota().orElseThrow();
      long used = row.usage().windowStartMillis() == T0 + now / MINUTE * MINUTE
          ? row.usage().windowUsed() : 0;
      least = Math.min(least, row.spec().limit() - used);
    }
    return least;
  }

  private List<String> levels(String project) {
    int t = project.indexOf('/', 2);
    return List.of("o", project.substring(0, t), project);
  }

  private void quota(String scope, long limit) {
    apply(new QuotaCommand.SetQuota(new QuotaSpec(scope, RESOURCE, QuotaKind.RATE, Window.MINUTE,
        limit, "requests", 0, Overage.REJECT, 0, 0, 0, "sim", 0, "setup")));
    limits.put(scope, limit);
  }

  /** The ledger's answer to one budget call, as the node's endpoint gives it. */
  private Response answer(QuotaRequest q) {
    if (q instanceof QuotaRequest.GrantBudget g) {
      QuotaResult r = quotaApply(new QuotaCommand.GrantBudget(g.holder(), g.scope(), g.resource(),
          g.amount(), g.leaseMillis()));
      if (r instanceof QuotaResult.BudgetGranted ok) {
        return new Response.Quota(new QuotaResponse.BudgetGrantReply(dev.ration.wire.Outcome.SUCCESS, "", "", "",
            0, ok.budgetId(), ok.granted(), ok.expiresAtMillis(), ok.windowEndMillis(),
            ok.configVersion(), ok.atMillis(), ok.overdraft()));
      }
      QuotaResult.QuotaRejected no = (QuotaResult.QuotaRejected) r;
      return new Response.Quota(new QuotaResponse.BudgetGrantReply(no.outcome(), no.message(),
          no.levelScope(), no.resource(), no.retryAfterMillis(), 0, 0, 0, 0, no.currentVersion(),
          0, 0));
    }
    if (q instanceof QuotaRequest.ReportBudgets rs) {
      QuotaResult r = quotaApply(new QuotaCommand.ReportBudgets(rs.reports().stream()
          .map(b -> new QuotaCommand.ReportBudget(b.budgetId(), b.spent(), b.sequence(),
              b.wantAmount(), b.leaseMillis())).toList()));
      List<QuotaResponse.BudgetReportInfo> infos = new ArrayList<>();
      for (QuotaResult.BudgetReport one : ((QuotaResult.BudgetsReported) r).reports()) {
        QuotaResult.BudgetReported b = one.budget();
        infos.add(b == null
            ? new QuotaResponse.BudgetReportInfo(one.outcome(), one.message(), 0, 0, 0, 0, 0,
                false, false, 0)
            : new QuotaResponse.BudgetReportInfo(dev.ration.wire.Outcome.SUCCESS, "", b.budgetId(), b.granted(),
                b.spent(), b.expiresAtMillis(), b.windowEndMillis(), b.ended(), b.resent(),
                b.atMillis()));
      }
      return new Response.Quota(new QuotaResponse.BudgetReportsReply(dev.ration.wire.Outcome.SUCCESS, "", infos));
    }
    if (q instanceof QuotaRequest.ReturnBudget rb) {
      QuotaResult r = quotaApply(new QuotaCommand.ReturnBudget(rb.budgetId(), rb.spent(),
          rb.sequence()));
      if (r instanceof QuotaResult.BudgetReturned ok) {
        return new Response.Quota(new QuotaResponse.BudgetReturnReply(dev.ration.wire.Outcome.SUCCESS, "",
            ok.budgetId(), ok.spent(), ok.released()));
      }
      QuotaResult.QuotaRejected no = (QuotaResult.QuotaRejected) r;
      return new Response.Quota(new QuotaResponse.BudgetReturnReply(no.outcome(), no.message(),
          rb.budgetId(), 0, 0));
    }
    throw new IllegalArgumentException("not a budget call: " + q);
  }

  private QuotaResult quotaApply(Command command) {
    return ((Result.Quota) apply(command)).result();
  }

  private QuotaAnswer quotaQuery(QuotaQuery q) {
    return ((QueryResult.Quota) state.query(new Query.Quota(q), T0 + now)).answer();
  }

  private Result apply(Command command) {
    Batch batch = Batch.of(T0 + now, List.of(new Proposal(RequestKey.NONE, command)));
    Result result = state.apply(1, index++, batch).get(0);
    state.verify();
    entries++;
    return result;
  }

  private void tick() {
    if (state.nextDueMillis() <= T0 + now) {
      apply(new Tick(10_000));
    }
    at(now + TICK_EVERY_MILLIS, this::tick);
  }

  private void at(long atMillis, Runnable body) {
    events.add(new Event(atMillis, seq++, body));
  }

  private void runEvents() {
    while (!events.isEmpty() && events.peek().at() <= now) {
      events.poll().body().run();
    }
  }

  /**
   * Three holders, 3 s leases, 5 ms one way, a 1 s client deadline; org 60,000 a minute, tenants
   * 36,000, projects 27,000; 400 requests/s per holder at the hot project (1,200/s in all: a
   * holder's first budget of 100 lasts a quarter second) and 10/s at each cold one; the hot project moves every 20 s (so tenant t1 runs out during p2's turn);
   * holder 0 cut off from 45 s to 52 s; 75 s, so a second minute starts.
   */
  public static Setup moving() {
    return new Setup("budgets, demand moving", 3, 3_000, 5, 1_000, 60_000, 36_000, 27_000, 400, 10,
        20_000, 45_000, 52_000, 75_000);
  }
}
