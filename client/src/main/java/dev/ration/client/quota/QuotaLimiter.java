package dev.ration.client.quota;

import dev.ration.client.internal.RateLimitedLog;
import dev.ration.client.internal.RetryAfter;
import dev.ration.client.limiter.LimiterScheduler;
import dev.ration.client.limiter.ManualScheduler;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Quota admission without a round trip: one limiter per service process (one {@code holder}),
 * deciding {@link #tryAcquire(String, String, long)} for any scope path and resource from
 * budgets it holds (docs/QUOTAS.md, "Budgets and the quota limiter"). A budget is a leased share
 * of a windowed quota (RATE or CUMULATIVE) counted at every level of the scope path at once, so
 * an admission that fits the budget fits the project, its tenant and its organisation; the
 * check is one atomic subtraction, whatever the depth of the path.
 *
 * <p><b>Lifecycle</b> (control steps on the scheduler, one at a time under this object's monitor;
 * the hot path never takes it):
 *
 * <ul>
 *   <li>The first check of a (scope, resource) answers {@link Reason#NO_BUDGET} and asks for a
 *       budget of {@code initialAmount}; {@link #awaitReady} waits for it instead.
 *   <li>A budget admits locally until send time + (ledger expiry − ledger time of the
 *       answer)·(1 − ε) − margin on this process's monotonic clock, never past its earliest
 *       window's end, and never more than it holds.
 *   <li>Every {@code lease·renewFraction} all held budgets are reported and renewed in one
 *       request: the cumulative spend under a new sequence, and the total wanted (what was spent
 *       plus twice the recent spending rate over a round, at least {@code minCushion} more). A
 *       budget that runs dry is renewed at once, in a round of its own (one at a time). Asking
 *       for less than is held first lowers what the budget admits locally, then tells the
 *       ledger, so what is given back was never spent. A renewal that finds its budget ended
 *       (lease lapsed, window over) returns it and asks for a new one.
 *   <li>Cut off from the coordinator, a budget stops admitting at its local expiry
 *       ({@link Reason#EXPIRED}); the spend is reported when the coordinator is reachable again.
 *       A budget of a soft quota (granted with an overdraft E) whose last renewal failed may
 *       then admit up to E more in all, never past its window's local end: spend reported, and
 *       billed as overage, on reconnect.
 *   <li>{@link #close()} stops admitting, then returns every budget with its final spend.
 * </ul>
 *
 * <p>The calls go through the client's {@link QuotaClient} (its listeners see them as
 * GRANT_BUDGET, REPORT_BUDGETS and RETURN_BUDGET); a refused or failed grant is logged through
 * SLF4J at most once per 10 s per kind.
 *
 * <p>Thread-safe. {@link #tryAcquire} is lock-free and, once a (scope, resource) was seen,
 * allocation-free but for the early renewal a dry budget schedules (once per round trip).
 */
public final class QuotaLimiter implements AutoCloseable {
  static {
    dev.ration.client.quota.internal.QuotaAccess.installLimiter(QuotaLimiter::over);
  }

  private static final Logger LOG = LoggerFactory.getLogger(QuotaLimiter.class);
  private static final long LOG_INTERVAL_NANOS = 10_000_000_000L;
  private static final long BACKOFF_BASE_NANOS = 50_000_000L;
  /** How many times a return that got no answer is sent. */
  private static final int RETURN_ATTEMPTS = 10;

  /** Why a check was decided as it was. */
  public enum Reason {
    /** Admitted from a budget. */
    ADMITTED,
    /** No budget yet for this scope and resource: one has been asked for. */
    NO_BUDGET,
    /** The budget holds less than asked for; more is asked for at the next renewal. */
    EXHAUSTED,
    /** The budget's local validity ran out (coordinator unreachable, or its window ended). */
    EXPIRED,
    /** The coordinator refused a budget here (no such quota, not allowed): see the log. */
    REFUSED
  }

  /**
   * A decision with its reason and when trying again may succeed.
   *
   * @param admitted whether the amount was taken
   * @param reason why
   * @param retryAfter with a refusal, the earliest of the next renewal, the window's start, a
   *     pending grant or the next retry of the coordinator ({@link Duration#ZERO} when admitted)
   */
  public record Decision(boolean admitted, Reason reason, Duration retryAfter) {}

  /** The three budget calls, through a {@link QuotaClient} or a fake. */
  interface Calls {
    CompletableFuture<BudgetGrant> grant(String holder, String scope, String resource,
        long amount, Duration lease);

    CompletableFuture<List<BudgetReportResult>> report(List<BudgetReport> reports);

    CompletableFuture<BudgetReturn> giveBack(long budgetId, long spent, long sequence);
  }

  private enum Phase { GRANTING, HELD, IDLE, FAILED }

  /** One (scope, resource): its budget's local state. */
  private static final class Slot {
    final String scope;
    final String resource;
    /** What the budget still admits: granted minus spent. The hot path's only write. */
    final AtomicLong available = new AtomicLong();
    /** Admit while the clock is before this. */
    volatile long expiryNanos;
    /** When a refusal may next succeed, for {@link #decide}. */
    volatile long retryAtNanos;
    volatile Reason refusal = Reason.NO_BUDGET;
    /** The overdraft not yet used (soft quotas): read by the hot path, written under the limiter. */
    volatile long overdraftLeft;
    /** The last renewal of this budget failed: the coordinator is out of reach. */
    volatile boolean cutOff;
    /** Overdraw only before this: its window's local end. */
    volatile long overdraftUntilNanos;
    // ---- control state, guarded by the limiter
    Phase phase = Phase.IDLE;
    long budgetId;
    long granted;
    long sequence;
    long reportedSpent;
    /** The earliest of its windows' local end; read by {@link #decide} without the monitor. */
    volatile long windowEndNanos;
    /** The spend the last report carried, and when it was sent. */
    long lastSentSpent;
    long lastSentAtNanos;
    /** What the next grant asks for: the size of the budget it replaces, at least initialAmount. */
    long nextAsk;
    boolean reportInFlight;
    int failures;
    LimiterScheduler.Cancellable timer;
    final List<CompletableFuture<Void>> waiters = new ArrayList<>();

    Slot(String scope, String resource, long now) {
      this.scope = scope;
      this.resource = resource;
      this.expiryNanos = now;
      this.retryAtNanos = now;
      this.windowEndNanos = now;
    }
  }

  private final Calls calls;
  private final LimiterScheduler scheduler;
  private final LongSupplier clock;
  private final String holder;
  private final QuotaLimiterOptions options;
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Slot>> slots =
      new ConcurrentHashMap<>();
  private final LongAdder admittedTotal = new LongAdder();
  private final LongAdder overdrawnTotal = new LongAdder();
  private final LongAdder[] refusedTotals = new LongAdder[Reason.values().length];
  private final RateLimitedLog refusedLog =
      new RateLimitedLog(LOG, RateLimitedLog.Level.WARN, LOG_INTERVAL_NANOS);
  private final RateLimitedLog failedLog =
      new RateLimitedLog(LOG, RateLimitedLog.Level.WARN, LOG_INTERVAL_NANOS);
  /** Its own, so a return's failure (its spend unbilled) is not hidden by renewal failures. */
  private final RateLimitedLog returnLog =
      new RateLimitedLog(LOG, RateLimitedLog.Level.WARN, LOG_INTERVAL_NANOS);
  private volatile boolean closed;
  /** Returns of replaced budgets not answered yet (sent again while they get no answer). */
  private final java.util.Set<CompletableFuture<Void>> pendingReturns =
      ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicBoolean kickPending =
      new java.util.concurrent.atomic.AtomicBoolean();
  // ---- guarded by this
  private LimiterScheduler.Cancellable renewTimer;
  private long renewals;
  private CompletableFuture<Void> closing;

  QuotaLimiter(Calls calls, LimiterScheduler scheduler, LongSupplier clock, String holder,
      QuotaLimiterOptions options) {
    if (holder == null || holder.isEmpty()) {
      throw new IllegalArgumentException("holder must not be empty");
    }
    this.calls = calls;
    this.scheduler = scheduler;
    // The manual scheduler of tests is also their clock.
    this.clock = scheduler instanceof ManualScheduler m ? () -> m.now().toNanos() : clock;
    this.holder = holder;
    this.options = options;
    for (int i = 0; i < refusedTotals.length; i++) {
      refusedTotals[i] = new LongAdder();
    }
  }

  /** A limiter whose budget calls go through {@code client}. */
  static QuotaLimiter over(QuotaClient client, LimiterScheduler scheduler, LongSupplier clock,
      String holder, QuotaLimiterOptions options) {
    return new QuotaLimiter(new Calls() {
      @Override
      public CompletableFuture<BudgetGrant> grant(String h, String scope, String resource,
          long amount, Duration lease) {
        return client.grantBudgetAsync(h, scope, resource, amount, lease);
      }

      @Override
      public CompletableFuture<List<BudgetReportResult>> report(List<BudgetReport> reports) {
        return client.reportBudgetsAsync(reports);
      }

      @Override
      public CompletableFuture<BudgetReturn> giveBack(long budgetId, long spent, long sequence) {
        return client.returnBudgetAsync(budgetId, spent, sequence);
      }
    }, scheduler, clock, holder, options);
  }

  // ------------------------------------------------------------------ hot path

  /**
   * Takes {@code amount} of {@code resource} at {@code scope} (every level of the path at once)
   * if this process's budget there holds it now. Lock-free, but for a soft budget's overdraft
   * while its holder is cut off (drawn under the limiter's monitor, a rare path); allocation-free
   * once the pair was seen (the first check of a pair asks for its budget and answers false), but
   * for the early renewal a budget that ran dry schedules, once per round trip.
   *
   * @param scope the scope path, as the catalog names it ({@code org/tenant/project})
   * @param resource the resource
   * @param amount how much, positive
   * @return whether it was taken
   */
  public boolean tryAcquire(String scope, String resource, long amount) {
    if (amount <= 0) {
      throw new IllegalArgumentException("amount " + amount + " must be positive");
    }
    Slot s = slot(scope, resource);
    if (s == null) {
      refusedTotals[Reason.NO_BUDGET.ordinal()].increment();
      return false;
    }
    if (clock.getAsLong() - s.expiryNanos >= 0) {
      if (s.cutOff && s.overdraftLeft >= amount && overdraw(s, amount)) {
        return true;
      }
      refusedTotals[s.refusal.ordinal()].increment();
      return false;
    }
    AtomicLong available = s.available;
    for (;;) {
      long a = available.get();
      if (a < amount) {
        if (s.cutOff && s.overdraftLeft >= amount && overdraw(s, amount)) {
          return true;
        }
        refusedTotals[Reason.EXHAUSTED.ordinal()].increment();
        kick();
        return false;
      }
      if (available.compareAndSet(a, a - amount)) {
        admittedTotal.add(amount);
        return true;
      }
    }
  }

  /**
   * As {@link #tryAcquire}, with the reason and a retry hint (for a 429's {@code Retry-After});
   * allocates.
   *
   * @param scope the scope path
   * @param resource the resource
   * @param amount how much, positive
   * @return the decision
   */
  public Decision decide(String scope, String resource, long amount) {
    if (tryAcquire(scope, resource, amount)) {
      return new Decision(true, Reason.ADMITTED, Duration.ZERO);
    }
    Slot s = existing(scope, resource);
    long now = clock.getAsLong();
    if (s == null) {
      return new Decision(false, Reason.NO_BUDGET, Duration.ofMillis(1));
    }
    Reason why = now - s.expiryNanos >= 0 ? s.refusal : Reason.EXHAUSTED;
    long minWait = TimeUnit.MILLISECONDS.toNanos(1);
    // The earliest of: the window's start (a budget ends with it) and the next renewal round or
    // the grant's retry (retryAtNanos: the coordinator's hint, or the backoff after a failure).
    long wait = RetryAfter.earliestWaitNanos(now, minWait, s.retryAtNanos, s.windowEndNanos);
    return new Decision(false, why, Duration.ofNanos(wait == RetryAfter.UNKNOWN ? minWait : wait));
  }

  /**
   * Asks for the budget of (scope, resource) if it has none, and waits up to {@code timeout}
   * for it: a service that would rather wait at start-up than refuse its first requests.
   *
   * @param scope the scope path
   * @param resource the resource
   * @param timeout the longest wait
   * @return whether a budget is held
   */
  public boolean awaitReady(String scope, String resource, Duration timeout) {
    slot(scope, resource);
    Slot s = existing(scope, resource);
    if (s == null) {
      return false; // closed
    }
    CompletableFuture<Void> ready = new CompletableFuture<>();
    synchronized (this) {
      if (s.phase == Phase.HELD) {
        return true;
      }
      s.waiters.add(ready);
    }
    try {
      ready.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      return false;
    }
  }

  /**
   * Admits {@code amount} from a soft budget's overdraft while its holder is cut off: it counts
   * as granted and spent at once, so the next report carries it and the ledger counts it at every
   * level (docs/QUOTAS.md, "Soft quotas").
   */
  private synchronized boolean overdraw(Slot s, long amount) {
    if (closed || s.phase != Phase.HELD || !s.cutOff || s.overdraftLeft < amount
        || clock.getAsLong() - s.overdraftUntilNanos >= 0) {
      return false;
    }
    s.overdraftLeft -= amount;
    s.granted += amount;
    admittedTotal.add(amount);
    overdrawnTotal.add(amount);
    return true;
  }

  /**
   * A budget ran dry: renew now rather than at the next round, at most one early round in
   * flight (besides a pair's first check, the only allocation a check makes; once per round
   * trip).
   */
  private void kick() {
    if (!closed && !kickPending.get() && kickPending.compareAndSet(false, true)) {
      scheduler.schedule(this::renewAll, Duration.ZERO);
    }
  }

  private Slot existing(String scope, String resource) {
    ConcurrentHashMap<String, Slot> byResource = slots.get(scope);
    return byResource == null ? null : byResource.get(resource);
  }

  /** The pair's slot, or null after registering it (its grant is then on its way). */
  private Slot slot(String scope, String resource) {
    Slot s = existing(scope, resource);
    if (s != null) {
      return s;
    }
    if (scope == null || scope.isEmpty() || resource == null || resource.isEmpty()) {
      throw new IllegalArgumentException("scope and resource must not be empty");
    }
    if (closed) {
      return null;
    }
    Slot fresh = new Slot(scope, resource, clock.getAsLong());
    Slot won = slots.computeIfAbsent(scope, k -> new ConcurrentHashMap<>())
        .putIfAbsent(resource, fresh);
    if (won == null) {
      scheduler.schedule(() -> grant(fresh), Duration.ZERO);
    }
    return null;
  }

  // ------------------------------------------------------------------ control

  private synchronized void grant(Slot s) {
    if (closed || s.phase == Phase.GRANTING || s.phase == Phase.HELD) {
      return;
    }
    s.phase = Phase.GRANTING;
    long sentAt = clock.getAsLong();
    long ask = Math.max(options.initialAmount(), s.nextAsk);
    calls.grant(holder, s.scope, s.resource, ask, options.lease())
        .whenComplete((g, err) -> scheduler.schedule(() -> granted(s, sentAt, g, err),
            Duration.ZERO));
  }

  private synchronized void granted(Slot s, long sentAt, BudgetGrant g, Throwable err) {
    if (closed) {
      if (g != null && g.succeeded()) {
        calls.giveBack(g.budgetId(), 0, 1);
      }
      return;
    }
    long now = clock.getAsLong();
    if (err != null || g == null) {
      s.phase = Phase.IDLE;
      s.refusal = Reason.NO_BUDGET;
      long wait = backoff(++s.failures);
      s.retryAtNanos = now + wait;
      failedLog.log(clock.getAsLong(), "quota limiter {}: asking for a budget of {} at {} failed: {}", holder,
          s.resource, s.scope, String.valueOf(err));
      retryGrant(s, wait);
      return;
    }
    if (!g.succeeded()) {
      s.phase = g.outcome() == Outcome.LIMIT_EXHAUSTED ? Phase.IDLE : Phase.FAILED;
      s.refusal = g.outcome() == Outcome.LIMIT_EXHAUSTED ? Reason.EXHAUSTED : Reason.REFUSED;
      long wait = g.outcome() == Outcome.LIMIT_EXHAUSTED && !g.retryAfter().isZero()
          ? g.retryAfter().toNanos() : options.lease().toNanos();
      s.retryAtNanos = now + wait;
      refusedLog.log(clock.getAsLong(), "quota limiter {}: no budget of {} at {}: {} {}", holder, s.resource,
          s.scope, g.outcome(), g.message());
      retryGrant(s, wait);
      return;
    }
    if (g.windowEnd().isNever()) {
      // A slot budget: the path's quotas of this resource are CONCURRENT, which a worker pool
      // holds (RationClient.quotaSlots), not a limiter. Give it back and refuse the pair.
      calls.giveBack(g.budgetId(), 0, 1);
      s.phase = Phase.FAILED;
      s.refusal = Reason.REFUSED;
      s.retryAtNanos = now + options.lease().toNanos();
      refusedLog.log(clock.getAsLong(), "quota limiter {}: {} at {} has CONCURRENT quotas: a worker"
          + " pool holds them (RationClient.quotaSlots), not a quota limiter", holder, s.resource,
          s.scope);
      retryGrant(s, options.lease().toNanos());
      return;
    }
    s.failures = 0;
    s.phase = Phase.HELD;
    s.budgetId = g.budgetId();
    s.granted = g.granted();
    s.sequence = 0;
    s.reportedSpent = 0;
    s.lastSentSpent = 0;
    s.lastSentAtNanos = sentAt;
    s.reportInFlight = false;
    s.available.set(g.granted());
    s.windowEndNanos = sentAt + g.at().until(g.windowEnd()).toNanos();
    s.cutOff = false;
    s.overdraftLeft = g.overdraft();
    s.overdraftUntilNanos = sentAt + usableNanos(g.at().until(g.windowEnd()));
    s.refusal = Reason.EXPIRED;
    setExpiry(s, sentAt, g.at().until(g.expiresAt()), g.expiresAt().equals(g.windowEnd()));
    for (CompletableFuture<Void> w : s.waiters) {
      w.complete(null);
    }
    s.waiters.clear();
    ensureRenewing();
  }

  private void retryGrant(Slot s, long waitNanos) {
    s.timer = scheduler.schedule(() -> grant(s), Duration.ofNanos(waitNanos));
  }

  /**
   * Local validity of a budget answered at {@code sentAt} with {@code left} of ledger time;
   * {@code endsWithWindow}: its lease ends with its window, so the next window's budget is
   * taken as soon as it stops.
   */
  private void setExpiry(Slot s, long sentAt, Duration left, boolean endsWithWindow) {
    s.expiryNanos = sentAt + usableNanos(left);
    long untilNextWindow = s.windowEndNanos - clock.getAsLong();
    s.retryAtNanos = clock.getAsLong() + Math.max(0, Math.min(untilNextWindow, renewEveryNanos()));
    if (endsWithWindow) {
      if (s.timer != null) {
        s.timer.cancel();
      }
      s.timer = scheduler.schedule(() -> rollOver(s, s.budgetId),
          Duration.ofNanos(Math.max(0, s.expiryNanos - clock.getAsLong())));
    }
  }

  /** How much of {@code left} ledger time this process may count on: less drift and margin. */
  private long usableNanos(Duration left) {
    return Math.max(0,
        (long) (left.toNanos() * (1 - options.driftFraction())) - options.margin().toNanos());
  }

  private long renewEveryNanos() {
    return (long) (options.lease().toNanos() * options.renewFraction());
  }

  private void ensureRenewing() {
    if (renewTimer == null && !closed) {
      renewTimer = scheduler.schedule(this::renewAll, Duration.ofNanos(renewEveryNanos()));
    }
  }

  /** Reports on and renews every held budget, in one request. */
  private synchronized void renewAll() {
    boolean early = kickPending.getAndSet(false);
    if (!early) {
      renewTimer = null;
    }
    if (closed) {
      return;
    }
    long now = clock.getAsLong();
    long every = renewEveryNanos();
    List<Slot> sent = new ArrayList<>();
    List<BudgetReport> reports = new ArrayList<>();
    for (ConcurrentHashMap<String, Slot> byResource : slots.values()) {
      for (Slot s : byResource.values()) {
        if (s.phase != Phase.HELD || s.reportInFlight) {
          continue;
        }
        long spentBefore = s.granted - s.available.get();
        if (early && s.available.get() > 0) {
          continue; // an early round is for the budgets that ran dry
        }
        // Enough for twice the recent spending rate over a round, at least the cushion.
        long elapsed = Math.max(TimeUnit.MILLISECONDS.toNanos(1), now - s.lastSentAtNanos);
        double rate = (double) (spentBefore - s.lastSentSpent) / elapsed;
        long want = spentBefore + Math.max(options.minCushion(),
            (long) Math.min(Long.MAX_VALUE / 4.0, 2 * rate * every));
        long spent = capAt(s, want);
        s.lastSentSpent = spent;
        s.lastSentAtNanos = now;
        s.reportInFlight = true;
        sent.add(s);
        reports.add(new BudgetReport(s.budgetId, spent, ++s.sequence, Math.max(want, spent),
            options.lease()));
      }
    }
    if (!reports.isEmpty()) {
      renewals++;
      long sentAt = now;
      for (int from = 0; from < reports.size(); from += 1_000) {
        int to = Math.min(reports.size(), from + 1_000);
        List<Slot> part = List.copyOf(sent.subList(from, to));
        List<BudgetReport> batch = List.copyOf(reports.subList(from, to));
        calls.report(batch).whenComplete((answers, err) -> scheduler.schedule(
            () -> reported(part, batch, sentAt, answers, err), Duration.ZERO));
      }
    }
    ensureRenewing();
  }

  /**
   * Lowers what {@code s} admits locally to {@code want} in all if it holds more, before the
   * ledger is told; returns the spend as of now (what the report carries).
   */
  private static long capAt(Slot s, long want) {
    for (;;) {
      long a = s.available.get();
      long spent = s.granted - a;
      long target = Math.max(want, spent);
      if (target >= s.granted) {
        return spent;
      }
      if (s.available.compareAndSet(a, a - (s.granted - target))) {
        s.granted = target;
        return spent;
      }
    }
  }

  private synchronized void reported(List<Slot> part, List<BudgetReport> batch, long sentAt,
      List<BudgetReportResult> answers, Throwable err) {
    for (int i = 0; i < part.size(); i++) {
      Slot s = part.get(i);
      BudgetReport r = batch.get(i);
      if (s.budgetId != r.budgetId()) {
        continue; // rolled over meanwhile
      }
      s.reportInFlight = false;
      if (closed || s.phase != Phase.HELD) {
        continue;
      }
      if (err != null || answers == null || i >= answers.size()) {
        failedLog.log(clock.getAsLong(), "quota limiter {}: renewing the budgets failed: {}", holder,
            String.valueOf(err));
        s.cutOff = true;
        continue; // the next renewal reports the spend again under a new sequence
      }
      s.cutOff = false;
      BudgetReportResult a = answers.get(i);
      if (!a.succeeded()) {
        // Unknown (dropped) or refused: stop using it and take a new one.
        refusedLog.log(clock.getAsLong(), "quota limiter {}: budget {} of {} at {}: {} {}", holder, s.budgetId,
            s.resource, s.scope, a.outcome(), a.message());
        stopAndReplace(s, false);
        continue;
      }
      s.reportedSpent = Math.max(s.reportedSpent, r.spent());
      if (a.ended()) {
        stopAndReplace(s, true);
        continue;
      }
      if (a.resent()) {
        continue;
      }
      if (a.granted() != s.granted) {
        s.available.addAndGet(a.granted() - s.granted);
        s.granted = a.granted();
      }
      s.windowEndNanos = sentAt + a.at().until(a.windowEnd()).toNanos();
      s.overdraftUntilNanos = sentAt + usableNanos(a.at().until(a.windowEnd()));
      setExpiry(s, sentAt, a.at().until(a.expiresAt()), a.expiresAt().equals(a.windowEnd()));
    }
  }

  private synchronized void rollOver(Slot s, long budgetId) {
    if (!closed && s.phase == Phase.HELD && s.budgetId == budgetId) {
      stopAndReplace(s, true);
    }
  }

  /**
   * Ends the slot's budget: nothing more is admitted from it; with {@code giveBack} it is
   * returned with its final spend; then a new one is asked for.
   */
  private void stopAndReplace(Slot s, boolean giveBack) {
    s.expiryNanos = clock.getAsLong();
    long left = s.available.getAndSet(0);
    long spent = s.granted - left;
    s.nextAsk = s.granted;
    if (giveBack) {
      // Close waits for it too: its spend must be in the usage log once close returns.
      CompletableFuture<Void> returned = giveBack(s.budgetId, spent, ++s.sequence, 1);
      pendingReturns.add(returned);
      returned.whenComplete((v, e) -> pendingReturns.remove(returned));
    }
    s.phase = Phase.IDLE;
    s.granted = 0;
    s.overdraftLeft = 0;
    s.cutOff = false;
    s.refusal = Reason.NO_BUDGET;
    s.reportInFlight = false;
    if (s.timer != null) {
      s.timer.cancel();
      s.timer = null;
    }
    grant(s);
  }

  /**
   * Returns a budget with its final spend; a return that got no answer (the coordinator out of
   * reach) is sent again, under the same sequence, with backoff, up to {@link #RETURN_ATTEMPTS}
   * times, so the spend of a holder cut off at its window's end (its overdraft too), or closing
   * while the leader is paused, is still billed once it is back, while the ledger keeps the
   * budget. A refusal is final. Completes when one was answered or the attempts ran out.
   */
  private CompletableFuture<Void> giveBack(long id, long spent, long sequence, int attempt) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    calls.giveBack(id, spent, sequence).whenComplete((r, err) -> {
      if (err != null && attempt < RETURN_ATTEMPTS) {
        try {
          scheduler.schedule(() -> giveBack(id, spent, sequence, attempt + 1)
              .whenComplete((v, e) -> done.complete(null)), Duration.ofNanos(backoff(attempt)));
          return;
        } catch (RuntimeException stopped) {
          // The scheduler is gone (the client closed): nothing more can be sent.
        }
      }
      // A resend finding the budget unknown: an earlier attempt was applied and its answer lost
      // (the ledger forgets a returned budget), so the spend was billed. (A budget the ledger
      // dropped after its last window ended answers so too: its late spend is not billed, as
      // docs/QUOTAS.md says of reports that come too late; no warning would change that.)
      boolean earlierApplied = attempt > 1 && err == null && r != null
          && r.outcome() == dev.ration.wire.Outcome.BUDGET_UNKNOWN;
      if ((err != null || r == null || !r.succeeded()) && !earlierApplied) {
        returnLog.log(clock.getAsLong(), "quota limiter {}: returning budget {} failed: {}", holder, id,
            String.valueOf(err != null ? err : r));
      }
      done.complete(null);
    });
    return done;
  }

  private long backoff(int failures) {
    long d = BACKOFF_BASE_NANOS << Math.min(20, Math.max(0, failures - 1));
    return Math.min(d, options.backoffMax().toNanos());
  }

  // ------------------------------------------------------------------ close and figures

  /**
   * Stops admitting and returns every budget with its final spend.
   *
   * @return completes when every return was answered (or failed), those of budgets replaced
   *     before the close included, so the spend of every budget is in the usage log
   */
  public synchronized CompletableFuture<Void> closeAsync() {
    if (closing != null) {
      return closing;
    }
    closed = true;
    if (renewTimer != null) {
      renewTimer.cancel();
      renewTimer = null;
    }
    List<CompletableFuture<?>> returns = new ArrayList<>();
    for (ConcurrentHashMap<String, Slot> byResource : slots.values()) {
      for (Slot s : byResource.values()) {
        if (s.timer != null) {
          s.timer.cancel();
        }
        for (CompletableFuture<Void> w : s.waiters) {
          w.complete(null);
        }
        s.waiters.clear();
        if (s.phase == Phase.HELD) {
          s.expiryNanos = clock.getAsLong();
          long spent = s.granted - s.available.getAndSet(0);
          returns.add(giveBack(s.budgetId, spent, ++s.sequence, 1));
          s.phase = Phase.IDLE;
        }
      }
    }
    returns.addAll(pendingReturns);
    closing = CompletableFuture.allOf(returns.toArray(new CompletableFuture<?>[0]));
    return closing;
  }

  /** Stops admitting and returns every budget, waiting up to {@code closeTimeout}. */
  @Override
  public void close() {
    try {
      closeAsync().get(options.closeTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.warn("quota limiter {}: returning its budgets did not finish within {}: {}", holder,
          options.closeTimeout(), e.toString());
    }
  }

  /**
   * Who holds this limiter's budgets.
   *
   * @return the holder
   */
  public String holder() {
    return holder;
  }

  /**
   * The amount admitted since the limiter was made, over every scope and resource.
   *
   * @return the amount admitted
   */
  public long admittedTotal() {
    return admittedTotal.sum();
  }

  /**
   * The amount admitted from soft budgets' overdrafts while cut off from the coordinator (part of
   * {@link #admittedTotal}).
   *
   * @return the amount overdrawn
   */
  public long overdrawnTotal() {
    return overdrawnTotal.sum();
  }

  /**
   * The checks refused for {@code reason} since the limiter was made.
   *
   * @param reason a refusal's reason ({@link Reason#ADMITTED} counts nothing)
   * @return the number of refused checks
   */
  public long refusedTotal(Reason reason) {
    return refusedTotals[reason.ordinal()].sum();
  }

  /**
   * The (scope, resource) pairs whose budget is held now.
   *
   * @return the number of held budgets
   */
  public synchronized int budgetsHeld() {
    int n = 0;
    for (ConcurrentHashMap<String, Slot> byResource : slots.values()) {
      for (Slot s : byResource.values()) {
        if (s.phase == Phase.HELD) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * What the budget of (scope, resource) still admits now (0 when none is held).
   *
   * @param scope the scope path
   * @param resource the resource
   * @return the amount left
   */
  public long available(String scope, String resource) {
    Slot s = existing(scope, resource);
    return s == null || clock.getAsLong() - s.expiryNanos >= 0 ? 0 : Math.max(0, s.available.get());
  }

  /**
   * How many batched renewals were sent.
   *
   * @return the number of renewal rounds
   */
  public synchronized long renewalRounds() {
    return renewals;
  }
}
