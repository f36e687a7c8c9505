package dev.ration.client.limiter;

import dev.ration.client.internal.RateLimitedLog;
import dev.ration.client.limiter.internal.DemandMeter;
import dev.ration.client.limiter.internal.LeaseTransport;
import dev.ration.client.limiter.internal.LeasedBucket;
import dev.ration.client.limiter.internal.LimiterViews;
import dev.ration.client.limiter.internal.Limiters;
import dev.ration.client.time.MonotonicClock;
import dev.ration.wire.Mode;
import dev.ration.wire.lease.LeaseView;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Response;
import dev.ration.client.transport.CallFailure;
import dev.ration.client.internal.RetryAfter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A global rate limit, admitted locally: one per (tenant, resource, holder) in a service. Every
 * request is decided by a local token bucket in nanoseconds; in the background the limiter
 * holds a lease on the limit that sets the bucket's rate share, burst share and local expiry.
 *
 * <p><b>Lifecycle</b> (all on the scheduler, one control step at a time under this object's
 * monitor; the hot path never takes it):
 *
 * <ul>
 *   <li>The first {@link #tryAcquire}/{@link #decide} schedules an acquire and answers NO_LEASE:
 *       the hot path never waits on the network. A service that would rather wait for its first
 *       lease than answer 429 at start-up calls {@link #awaitReady(Duration)} once, or uses
 *       {@link #tryAcquire(long, Duration)}, which waits (bounded) on the calling thread.
 *   <li>A granted lease is installed with its start balance (zero unless the ledger hands over
 *       returned tokens). Its local expiry is {@code sentAt + duration·(1−ε) − margin}, measured
 *       on the holder's monotonic clock from when the request was <i>sent</i>; nothing is
 *       admitted at or after it.
 *   <li>A renewal is sent at {@code sentAt + duration·renewFraction} of the request that produced
 *       the current terms, presenting the current version (which acknowledges a shrink). An answer
 *       is applied only if its (epoch, version) is newer than any applied before; it keeps the
 *       balance, truncated to the new burst share. Failed renewals are retried with backoff until
 *       local expiry.
 *   <li>A renewal that failed without an answer is resent as the same logical call: same
 *       request id, same fields. The ledger applies it at most once and answers a resend with
 *       its first result, so its demand and emergency report is never counted twice. Its terms
 *       are measured from the <i>first</i> send, the earliest the ledger can have applied it. A
 *       renewal that got an answer is finished; the next is new. Acquires are not resent under
 *       their id: a grant measured from a first send long past would be over on arrival, and a
 *       lost grant only holds capacity until it expires.
 *   <li>LEASE_EXPIRED / LEASE_UNKNOWN / VERSION_MISMATCH on renew: the bucket is invalidated and
 *       a fresh lease acquired (zero balance).
 *   <li>Local expiry with a renewal unanswered, hard mode: the lease is suspended
 *       ({@link LeaseState#SUSPENDED}): nothing is admitted, the balance is kept and the renewal
 *       resent until the ledger can no longer be counting the lease (sent + duration + grace, by
 *       the lease's own figures); a SUCCESS meanwhile resumes the lease with that balance.
 *       Otherwise, and then, the rule below applies.
 *   <li>Local expiry: hard mode invalidates the bucket; best-effort mode (lease mode code 1, with
 *       emergency enabled) installs the limit's emergency budget E as a bucket that never refills,
 *       once per disconnection. Either way a new lease is acquired; the old one is returned
 *       best-effort (freeing its share early if the ledger still counts it). The emergency tokens
 *       spent are reported in {@code emergencyUsed} of the first renewal of the next lease. A
 *       renewal left unanswered at local expiry that carried emergency tokens is resent under
 *       its request id until answered: SUCCESS means the ledger counted them, so they are not
 *       reported again; a refusal means it did not, so the next renewal carries them.
 *   <li>{@link #close()} invalidates the bucket first, then returns the lease with its unused
 *       whole tokens. If emergency tokens are still unreported, or a renewal is unanswered, that
 *       renewal (the same logical call, or a new one carrying the report) is settled first: the
 *       return has no field for the report. Idempotent.
 * </ul>
 *
 * <p><b>Demand report</b> (every renewal; docs/LIMITER.md allocation input): every request is recorded
 * in a demand meter, whose report each renewal carries (smoothed admitted and rejected
 * rates, demand rate and peak burst). Acquires ask for the same demand rate and burst.
 *
 * <p><b>Seen, not silent.</b> Each decision is counted by reason ({@link #decisions}); the lease
 * state ({@link #state()}) and each answered renewal go to {@link LeaseListener}s; a lost lease,
 * a refused or failed acquire and failed renewals are logged through SLF4J (logger {@code
 * dev.ration.client.limiter.RateLimiter}), each kind at most once per 10 s.
 * {@code dev.ration.client.metrics.RateLimiterMetrics} binds all of it to Micrometer.
 *
 * <p>Thread-safe. {@link #tryAcquire} is lock-free and allocation-free.
 */
public final class RateLimiter implements AutoCloseable {
  static {
    Limiters.install((transport, scheduler, clock, tenant, resource, holder, options) ->
        create(transport, scheduler, clock, tenant, resource, holder, options));
  }

  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final Logger LOG = LoggerFactory.getLogger(RateLimiter.class);
  private static final long LOG_INTERVAL_NANOS = 10_000_000_000L;

  private final LeaseTransport transport;
  private final LimiterScheduler scheduler;
  private final LongSupplier clock;
  private final LimiterOptions options;
  private final String tenant;
  private final String resource;
  private final String holder;
  private final LeasedBucket bucket;

  /** Records every request on the hot path; reported under this object's monitor. */
  private final DemandMeter demand;

  /** Decisions by reason (indexed by ordinal): counted on the hot path, read by metrics. */
  private final LongAdder[] decisionCounts = new LongAdder[Decision.Reason.values().length];
  private final CopyOnWriteArrayList<LeaseListener> listeners = new CopyOnWriteArrayList<>();
  final RateLimitedLog lostLog = new RateLimitedLog(LOG, RateLimitedLog.Level.WARN, LOG_INTERVAL_NANOS);
  final RateLimitedLog refusedLog = new RateLimitedLog(LOG, RateLimitedLog.Level.WARN, LOG_INTERVAL_NANOS);
  final RateLimitedLog failedLog = new RateLimitedLog(LOG, RateLimitedLog.Level.WARN, LOG_INTERVAL_NANOS);
  final RateLimitedLog regainedLog = new RateLimitedLog(LOG, RateLimitedLog.Level.INFO, LOG_INTERVAL_NANOS);
  private volatile LeaseState state = LeaseState.NONE;

  // ---- hot-path state (lock-free)
  private final AtomicBoolean kickPending = new AtomicBoolean();
  private volatile boolean closed;
  private volatile boolean inEmergency;
  /** Why there is no lease (NO_LEASE or LEASE_EXPIRED); read by decide(). */
  private volatile Decision.Reason lossReason = Decision.Reason.NO_LEASE;
  /** Absolute time a lease is expected (pending grant / coordinator recovery), or Long.MIN_VALUE. */
  private volatile long readyHintNanos = Long.MIN_VALUE;

  // ---- control state, guarded by this
  private enum Phase { IDLE, ACQUIRING, HELD, RENEWING, CLOSED }

  private Phase phase = Phase.IDLE;
  /** Sequence of the control request in flight; an answer to an older one is ignored. */
  private long requestSeq;
  private int failures;
  private LimiterScheduler.Cancellable actionTimer;
  private LimiterScheduler.Cancellable expiryTimer;
  private LeaseView lease; // the held lease (phase HELD / RENEWING), else stale or null
  private long leaseSentAtNanos;
  /**
   * Hard mode, local validity run out while a renewal is unanswered: nothing is admitted, the
   * balance is kept, and the renewal is resent until {@link #giveUpAtNanos}.
   */
  private boolean suspended;
  private long giveUpAtNanos;
  private long suspensions;
  private long resumptions;
  private long lastEpoch = Long.MIN_VALUE;
  private long lastVersion = Long.MIN_VALUE;
  private boolean emergencyAvailable;
  private long emergencyInstalled;
  private long emergencyToReport;
  /** Emergency tokens spent in disconnections that have ended. */
  private long emergencySpentEnded;
  /** The renewal of the held lease being tried, or null. */
  private RenewCall renewCall;
  /**
   * Emergency tokens carried by renewals given up at local expiry without an answer: the ledger
   * may have applied such a renewal (and counted its tokens) or not. Each is resent under its
   * request id until answered, and the answer says which; until then its tokens are part of
   * {@link #emergencyToReport} but go in no other renewal.
   */
  private long emergencyInDoubt;
  private CompletableFuture<Void> closing;

  private RateLimiter(LeaseTransport transport, LimiterScheduler scheduler, MonotonicClock clock,
      String tenant, String resource, String holder, LimiterOptions options) {
    this.transport = transport;
    this.scheduler = scheduler;
    // The manual scheduler of tests and the simulation is also their clock; otherwise the
    // client's. The scheduler's timers only say when to look again: expiry and waits are judged
    // by this clock.
    this.clock = scheduler instanceof ManualScheduler m ? m::nanoTime : clock::nanoTime;
    // Refill derated by the drift allowance: a holder clock up to ε fast then still refills at
    // most the leased rate in real time, so the fleet keeps R·T + B (found by the simulation).
    this.bucket = new LeasedBucket(options.derateRefill()
        ? LeasedBucket.nanosPerCreditFor(options.driftFraction()) : 1_000);
    this.options = options;
    this.tenant = tenant;
    this.resource = resource;
    this.holder = holder;
    this.demand = DemandMeter.of(options, this.clock.getAsLong());
    for (int i = 0; i < decisionCounts.length; i++) {
      decisionCounts[i] = new LongAdder();
    }
  }

  /**
   * A limiter over any transport and scheduler (the simulation and tests use this; services use
   * {@code RationClient.rateLimiter}). Nothing is sent until first use.
   */
  static RateLimiter create(LeaseTransport transport, LimiterScheduler scheduler,
      String tenant, String resource, String holder, LimiterOptions options) {
    return create(transport, scheduler, MonotonicClock.SYSTEM, tenant, resource, holder, options);
  }

  /** As above, timing leases by {@code clock} unless the scheduler is a manual one. */
  static RateLimiter create(LeaseTransport transport, LimiterScheduler scheduler,
      MonotonicClock clock, String tenant, String resource, String holder, LimiterOptions options) {
    if (transport == null || scheduler == null || clock == null || options == null) {
      throw new IllegalArgumentException("transport, scheduler, clock and options are required");
    }
    for (String[] nv : new String[][] {{"tenant", tenant}, {"resource", resource}, {"holder", holder}}) {
      if (nv[1] == null || nv[1].isEmpty()) {
        throw new IllegalArgumentException(nv[0] + " '" + nv[1] + "' must be non-empty");
      }
    }
    return new RateLimiter(transport, scheduler, clock, tenant, resource, holder, options);
  }

  // ------------------------------------------------------------------ hot path

  /**
   * Takes {@code permits} if the local bucket holds them now. Never blocks; never allocates.
   *
   * @param permits the permits to take, positive
   * @return whether they were taken
   */
  public boolean tryAcquire(long permits) {
    if (closed) {
      decisionCounts[Decision.Reason.CLOSED.ordinal()].increment();
      return false;
    }
    long now = clock.getAsLong();
    long r = bucket.acquireOrWaitNanos(permits, now);
    demand.record(permits, now, r == LeasedBucket.ADMITTED);
    Decision.Reason reason;
    if (r == LeasedBucket.ADMITTED) {
      reason = inEmergency ? Decision.Reason.ADMITTED_EMERGENCY : Decision.Reason.ADMITTED;
    } else if (r > 0) {
      reason = Decision.Reason.NO_TOKENS;
    } else if (r == LeasedBucket.NOT_IN_TERM) {
      reason = inEmergency ? Decision.Reason.EMERGENCY_EXHAUSTED : Decision.Reason.NO_TOKENS;
    } else {
      reason = r == LeasedBucket.EXPIRED ? Decision.Reason.LEASE_EXPIRED : lossReason;
      kick();
    }
    decisionCounts[reason.ordinal()].increment();
    return r == LeasedBucket.ADMITTED;
  }

  /**
   * Takes one permit if the local bucket holds it now.
   *
   * @return whether it was taken
   */
  public boolean tryAcquire() {
    return tryAcquire(1);
  }

  /**
   * Takes {@code permits}, waiting at most {@code timeout} on the calling thread for them: for
   * the first lease (or a new one after a loss), or for the local refill that covers them.
   * Returns false at the timeout, when closed, or when the thread is interrupted (its interrupt
   * flag then stays set). Never call it on the client's event loop: the lease it waits for is
   * installed there. The timeout is measured on the limiter's clock.
   *
   * @param permits the permits to take, positive
   * @param timeout the longest wait
   * @return whether they were taken within the timeout
   */
  public boolean tryAcquire(long permits, Duration timeout) {
    long deadline = deadlineOf(timeout);
    while (true) {
      Decision d = decide(permits);
      if (d.allowed()) {
        return true;
      }
      long left = deadline - clock.getAsLong();
      if (d.reason() == Decision.Reason.CLOSED || left <= 0 || Thread.currentThread().isInterrupted()) {
        return false;
      }
      if (d.reason() == Decision.Reason.NO_LEASE || d.reason() == Decision.Reason.LEASE_EXPIRED) {
        awaitReady(Duration.ofNanos(left));
        continue;
      }
      long wait = d.retryAfterKnown() ? d.retryAfter().toNanos() : d.retryPolicy().initialDelay().toNanos();
      LockSupport.parkNanos(Math.max(1, Math.min(wait, left)));
    }
  }

  /**
   * Waits at most {@code timeout} until a lease is held, starting to acquire one if none is
   * (the limiter otherwise acquires on first use). True once a lease is held; false at the
   * timeout, when closed, or when the thread is interrupted (its flag stays set). Use it at
   * start-up so the first requests are not refused for want of a lease; the timeout bounds the
   * wait when the cluster is unreachable or the limit is fully held. Never call it on the
   * client's event loop: the lease it waits for is installed there. The timeout is measured on
   * the limiter's clock.
   *
   * @param timeout the longest wait
   * @return whether a lease is held
   */
  public boolean awaitReady(Duration timeout) {
    long deadline = deadlineOf(timeout);
    if (ready()) {
      return true;
    }
    kick();
    synchronized (this) {
      while (!readyLocked()) {
        long left = deadline - clock.getAsLong();
        if (closed || left <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }

  /**
   * Whether a lease is held now.
   *
   * @return whether a lease is held
   */
  public synchronized boolean ready() {
    return readyLocked();
  }

  private boolean readyLocked() {
    return (phase == Phase.HELD || phase == Phase.RENEWING) && lease != null;
  }

  private long deadlineOf(Duration timeout) {
    if (timeout == null || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout " + timeout + " must be >= 0");
    }
    long now = clock.getAsLong();
    long nanos = timeout.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : timeout.toNanos();
    return now + nanos;
  }

  /**
   * Like {@link #tryAcquire} but says why, and when to retry.
   *
   * @param permits the permits to take, positive
   * @return whether they were taken, why, and when to try again
   */
  public Decision decide(long permits) {
    Decision d = decideUncounted(permits);
    decisionCounts[d.reason().ordinal()].increment();
    return d;
  }

  private Decision decideUncounted(long permits) {
    RetryPolicy policy = options.unknownRetry();
    if (closed) {
      return new Decision(false, Decision.Reason.CLOSED, policy.initialDelay(), false, policy);
    }
    long now = clock.getAsLong();
    long r = bucket.acquireOrWaitNanos(permits, now);
    demand.record(permits, now, r == LeasedBucket.ADMITTED);
    if (r == LeasedBucket.ADMITTED) {
      return new Decision(true, inEmergency ? Decision.Reason.ADMITTED_EMERGENCY : Decision.Reason.ADMITTED, Duration.ZERO, true, policy);
    }
    if (r > 0) {
      long wait = RetryAfter.earliestWaitNanos(now, 1, now + r, readyHintNanos);
      return new Decision(false, Decision.Reason.NO_TOKENS, Duration.ofNanos(wait), true, policy);
    }
    if (r == LeasedBucket.NOT_IN_TERM) {
      Decision.Reason reason = inEmergency ? Decision.Reason.EMERGENCY_EXHAUSTED : Decision.Reason.NO_TOKENS;
      return unknownOrHint(reason, now, policy);
    }
    kick();
    Decision.Reason reason = r == LeasedBucket.EXPIRED ? Decision.Reason.LEASE_EXPIRED : lossReason;
    return unknownOrHint(reason, now, policy);
  }

  /**
   * As {@link #decide(long)} for one permit.
   *
   * @return the decision
   */
  public Decision decide() {
    return decide(1);
  }

  private Decision unknownOrHint(Decision.Reason reason, long now, RetryPolicy policy) {
    long wait = RetryAfter.earliestWaitNanos(now, 1, readyHintNanos);
    if (wait != RetryAfter.UNKNOWN) {
      return new Decision(false, reason, Duration.ofNanos(wait), true, policy);
    }
    return new Decision(false, reason, policy.initialDelay(), false, policy);
  }

  private void kick() {
    if (!kickPending.get() && kickPending.compareAndSet(false, true)) {
      scheduler.schedule(this::onKick, Duration.ZERO);
    }
  }

  // ------------------------------------------------------------------ control path

  private synchronized void onKick() {
    kickPending.set(false);
    long now = clock.getAsLong();
    switch (phase) {
      case IDLE -> {
        if (actionTimer == null) { // else a retry is already scheduled (backoff / retry-after)
          sendAcquire();
        }
      }
      case HELD, RENEWING -> {
        if (now >= bucket.validUntilNanos() && !suspended) {
          onLocalExpiry(lease);
        }
      }
      default -> { }
    }
  }

  /** One renewal of {@code held}: its attempts share all of this. */
  private record RenewCall(long requestId, long firstSentAtNanos, LeaseView held,
      DemandMeter.Demand demand, long emergencyUsed) {}

  private void sendAcquire() {
    cancelTimers();
    phase = Phase.ACQUIRING;
    long seq = ++requestSeq;
    long sentAt = clock.getAsLong();
    DemandMeter.Demand d = demand.report(sentAt, false);
    CompletableFuture<Response.LeaseReply> f;
    try {
      f = transport.acquire(transport.nextRequestId(), tenant, resource, holder, d.ratePerSecond(), d.burst());
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((reply, err) -> scheduler.schedule(() -> onAcquireAnswer(seq, sentAt, reply, err), Duration.ZERO));
  }

  private synchronized void onAcquireAnswer(long seq, long sentAt, Response.LeaseReply reply, Throwable err) {
    long now = clock.getAsLong();
    if (phase == Phase.CLOSED) {
      // Granted after close: nothing will use it, give it back with its start balance.
      if (err == null && reply.outcome() == Outcome.SUCCESS && reply.lease() != null) {
        returnQuietly(reply.lease().leaseId(), reply.lease().version(), reply.startBalance());
      }
      return;
    }
    if (seq != requestSeq || phase != Phase.ACQUIRING) {
      return;
    }
    if (err != null) {
      failedLog.log(now, "acquire of {}/{} for {} failed, retrying: {}", tenant, resource, holder,
          rootMessage(err));
      retryAcquire(now, hintOf(err));
      return;
    }
    if (reply.outcome() != Outcome.SUCCESS || reply.lease() == null) {
      refusedLog.log(now, "acquire of {}/{} for {} refused: {} {}", tenant, resource, holder,
          reply.outcome(), reply.message());
      long hint = reply.outcome() == Outcome.LIMIT_EXHAUSTED && reply.retryAfterMillis() > 0
          ? reply.retryAfterMillis() * NANOS_PER_MILLI : 0;
      lossReason = Decision.Reason.NO_LEASE;
      retryAcquire(now, hint);
      return;
    }
    LeaseView l = reply.lease();
    if (!newer(l)) {
      retryAcquire(now, 0);
      return;
    }
    lastEpoch = l.epoch();
    lastVersion = l.version();
    long validUntil = localExpiry(sentAt, l.leaseDurationMillis());
    long left = bucket.install(l.rateShare(), l.burstShare(), reply.startBalance(), validUntil, now);
    if (inEmergency) {
      // The emergency bucket never refills: what is missing from E was spent.
      long spent = Math.max(0, emergencyInstalled - left);
      emergencyToReport += spent;
      emergencySpentEnded += spent;
      inEmergency = false;
      emergencyInstalled = 0;
    }
    if (state == LeaseState.LOST || state == LeaseState.EMERGENCY) {
      regainedLog.log(now, "lease {} on {}/{} for {} held again after {}", l.leaseId(), tenant,
          resource, holder, state);
    }
    moveTo(LeaseState.HELD);
    emergencyAvailable = true;
    lease = l;
    leaseSentAtNanos = sentAt;
    phase = Phase.HELD;
    failures = 0;
    readyHintNanos = Long.MIN_VALUE;
    scheduleTerm(sentAt, l, validUntil, now);
    notifyAll(); // awaitReady / tryAcquire(permits, timeout) callers
  }

  private void retryAcquire(long now, long hintNanos) {
    phase = Phase.IDLE;
    long delay = Math.max(backoff(failures++), hintNanos);
    readyHintNanos = hintNanos > 0 ? now + hintNanos : Long.MIN_VALUE;
    actionTimer = scheduler.schedule(this::onAcquireTimer, Duration.ofNanos(delay));
  }

  private synchronized void onAcquireTimer() {
    if (phase == Phase.IDLE) {
      sendAcquire();
    }
  }

  private void scheduleTerm(long sentAt, LeaseView l, long validUntil, long now) {
    cancelTimers();
    long renewAt = sentAt + (long) (l.leaseDurationMillis() * NANOS_PER_MILLI * options.renewFraction());
    LeaseView held = l;
    actionTimer = scheduler.schedule(() -> onRenewTimer(held), Duration.ofNanos(renewAt - now));
    expiryTimer = scheduler.schedule(() -> onExpiryTimer(held), Duration.ofNanos(validUntil - now));
  }

  private synchronized void onRenewTimer(LeaseView held) {
    if (phase == Phase.HELD && lease == held) {
      sendRenew();
    }
  }

  private void sendRenew() {
    phase = Phase.RENEWING;
    long seq = ++requestSeq;
    RenewCall call = renewCallFor(lease);
    CompletableFuture<Response.LeaseReply> f = send(call);
    f.whenComplete((reply, err) -> scheduler.schedule(() -> onRenewAnswer(seq, call, reply, err), Duration.ZERO));
  }

  /** The renewal of {@code held} being tried, or a new one carrying the current report. */
  private RenewCall renewCallFor(LeaseView held) {
    if (renewCall == null || renewCall.held() != held) {
      long now = clock.getAsLong();
      renewCall = new RenewCall(transport.nextRequestId(), now, held, demand.report(now, true),
          emergencyToReport - emergencyInDoubt);
    }
    return renewCall;
  }

  private CompletableFuture<Response.LeaseReply> send(RenewCall call) {
    DemandMeter.Demand d = call.demand();
    try {
      return transport.renew(call.requestId(), call.held().leaseId(), call.held().version(),
          d.ratePerSecond(), d.burst(), d.admittedPerSecond(), d.rejectedPerSecond(),
          call.emergencyUsed());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private synchronized void onRenewAnswer(long seq, RenewCall call, Response.LeaseReply reply,
      Throwable err) {
    LeaseView held = call.held();
    if (seq != requestSeq || phase != Phase.RENEWING || lease != held) {
      return;
    }
    long now = clock.getAsLong();
    if (err != null) {
      failedLog.log(now, "renewal of lease {} on {}/{} failed, resending until local expiry: {}",
          held.leaseId(), tenant, resource, rootMessage(err));
      retryRenew(now, hintOf(err)); // the same call again: it may have been applied
      return;
    }
    renewCall = null; // answered: the next renewal is a new request with a fresh report
    long sentAt = call.firstSentAtNanos();
    Duration latency = Duration.ofNanos(Math.max(0, now - sentAt));
    notifyListeners(l -> l.onRenewAnswered(this, reply.outcome(), latency));
    switch (reply.outcome()) {
      case SUCCESS -> {
        LeaseView l = reply.lease();
        if (l == null || l.leaseId() != held.leaseId() || !newer(l)) {
          failedLog.log(now, "renewal of lease {} on {}/{} answered with terms that are not newer"
              + " (lease {} epoch {} version {}; held epoch {} version {}): ignored, renewing again",
              held.leaseId(), tenant, resource, l == null ? "none" : l.leaseId(),
              l == null ? "-" : l.epoch(), l == null ? "-" : l.version(), lastEpoch, lastVersion);
          retryRenew(now, 0); // a stale or foreign answer: keep the terms we have
          return;
        }
        lastEpoch = l.epoch();
        lastVersion = l.version();
        long validUntil = localExpiry(sentAt, l.leaseDurationMillis());
        bucket.renew(l.rateShare(), l.burstShare(), validUntil, now);
        emergencyToReport -= call.emergencyUsed();
        lease = l;
        leaseSentAtNanos = sentAt;
        phase = Phase.HELD;
        failures = 0;
        if (suspended) {
          suspended = false;
          resumptions++;
          lostLog.log(now, "lease {} on {}/{} for {} resumed: its renewal was answered {} ms after"
              + " it was sent, after local expiry; the balance was kept", held.leaseId(), tenant,
              resource, holder, latency.toMillis());
          moveTo(LeaseState.HELD);
        }
        scheduleTerm(sentAt, l, validUntil, now);
      }
      case LEASE_EXPIRED, LEASE_UNKNOWN, VERSION_MISMATCH -> {
        // The ledger no longer knows this lease (or our version): stop and start afresh.
        suspended = false;
        bucket.invalidate(now);
        lostLog.log(now, "lease {} on {}/{} for {} lost: renewal answered {}", held.leaseId(),
            tenant, resource, holder, reply.outcome());
        moveTo(inEmergency ? LeaseState.EMERGENCY : LeaseState.LOST);
        lossReason = Decision.Reason.LEASE_EXPIRED;
        lease = null;
        failures = 0;
        sendAcquire();
      }
      default -> retryRenew(now, 0);
    }
  }

  private void retryRenew(long now, long hintNanos) {
    phase = Phase.HELD;
    if (actionTimer != null) {
      actionTimer.cancel();
      actionTimer = null;
    }
    long delay = Math.max(backoff(failures++), hintNanos);
    // Retries stop at local expiry (the expiry timer takes over from there), or, suspended, when
    // the ledger has stopped counting the lease.
    if (now + delay < (suspended ? giveUpAtNanos : bucket.validUntilNanos())) {
      LeaseView held = lease;
      actionTimer = scheduler.schedule(() -> onRenewTimer(held), Duration.ofNanos(delay));
    }
  }

  private synchronized void onExpiryTimer(LeaseView held) {
    if ((phase == Phase.HELD || phase == Phase.RENEWING) && lease == held && !suspended
        && clock.getAsLong() >= bucket.validUntilNanos()) {
      onLocalExpiry(held);
    }
  }

  /**
   * Local expiry without renewal. In hard mode with a renewal sent and unanswered, the lease is
   * suspended, not given up: the renewal may merely be slow (a loaded machine, a failover), and
   * a late SUCCESS means the ledger still counts the lease, so the balance kept at expiry is
   * still this holder's to spend. Nothing is admitted meanwhile; the renewal is resent until the
   * ledger has stopped counting the lease (its grace included), and only then is the lease given
   * up. Giving it up at once used to cost a loaded holder a fresh lease from zero balance, and
   * up to a second without admissions, for a renewal that was only late.
   */
  private void onLocalExpiry(LeaseView held) {
    long now = clock.getAsLong();
    boolean renewalOutstanding = renewCall != null && renewCall.held() == held;
    long countedNanos = Math.max(0, held.countedUntilMillis() - held.grantedAtMillis()) * NANOS_PER_MILLI;
    long giveUp = leaseSentAtNanos + countedNanos;
    if (held.mode() == Mode.HARD && !inEmergency && renewalOutstanding && now < giveUp) {
      suspended = true;
      giveUpAtNanos = giveUp;
      suspensions++;
      lossReason = Decision.Reason.LEASE_EXPIRED;
      lostLog.log(now, "lease {} on {}/{} for {} expired locally with its renewal unanswered;"
          + " admitting nothing and keeping the balance until the renewal is answered (at most"
          + " {} ms more)", held.leaseId(), tenant, resource, holder,
          TimeUnit.NANOSECONDS.toMillis(giveUp - now));
      moveTo(LeaseState.SUSPENDED);
      if (expiryTimer != null) {
        expiryTimer.cancel();
      }
      expiryTimer = scheduler.schedule(() -> onGiveUpTimer(held), Duration.ofNanos(giveUp - now));
      if (phase == Phase.HELD && actionTimer == null) {
        // The last resend was not scheduled (it would have fallen after local expiry).
        actionTimer = scheduler.schedule(() -> onRenewTimer(held), Duration.ofNanos(backoff(failures++)));
      }
      return;
    }
    loseLease(held, now);
  }

  private synchronized void onGiveUpTimer(LeaseView held) {
    if (suspended && lease == held && (phase == Phase.HELD || phase == Phase.RENEWING)) {
      suspended = false;
      loseLease(held, clock.getAsLong());
    }
  }

  /** Hard stops; best-effort may spend E once. Then re-acquire. */
  private void loseLease(LeaseView held, long now) {
    boolean bestEffort = held.mode() == Mode.BEST_EFFORT && options.emergencyEnabled() && held.emergency() > 0;
    if (bestEffort && emergencyAvailable) {
      bucket.install(0, held.emergency(), held.emergency(), Long.MAX_VALUE, now);
      emergencyInstalled = held.emergency();
      emergencyAvailable = false;
      inEmergency = true;
    } else if (!inEmergency) {
      bucket.invalidate(now);
    }
    lossReason = Decision.Reason.LEASE_EXPIRED;
    lostLog.log(now, "lease {} on {}/{} for {} expired locally without renewal (phase {}, renewal"
        + " {}, {} failed attempts); {}", held.leaseId(), tenant, resource, holder, phase,
        renewCall == null ? "none outstanding" : "outstanding since "
            + TimeUnit.NANOSECONDS.toMillis(now - renewCall.firstSentAtNanos()) + " ms",
        failures, inEmergency ? "admitting from the emergency budget" : "admitting nothing");
    moveTo(inEmergency ? LeaseState.EMERGENCY : LeaseState.LOST);
    // The ledger may still count the lease (local expiry is early by design): free it now.
    returnQuietly(held.leaseId(), held.version(), 0);
    if (renewCall != null && renewCall.held() == held && renewCall.emergencyUsed() > 0) {
      // Sent and never answered: whether its tokens were counted is only known from its answer.
      emergencyInDoubt += renewCall.emergencyUsed();
      settle(renewCall, 0);
    }
    lease = null;
    renewCall = null;
    failures = 0;
    sendAcquire();
  }

  /**
   * Resends {@code call}, a renewal given up at local expiry, under its request id until it is
   * answered. The ledger answers a request id it applied from its record of the first answer,
   * so SUCCESS means its emergency tokens were counted (once); a refusal means they were not
   * (the lease is gone by now, so a first application is refused too), and they go with the
   * next renewal. Not resent once the limiter is closed: its tokens then stay unreported.
   */
  private void settle(RenewCall call, int attempt) {
    send(call).whenComplete((reply, err) ->
        scheduler.schedule(() -> onSettleAnswer(call, attempt, reply, err), Duration.ZERO));
  }

  private synchronized void onSettleAnswer(RenewCall call, int attempt, Response.LeaseReply reply,
      Throwable err) {
    if (err != null) {
      if (phase != Phase.CLOSED) {
        long delay = Math.max(backoff(attempt), hintOf(err));
        scheduler.schedule(() -> resettle(call, attempt + 1), Duration.ofNanos(delay));
      }
      return;
    }
    emergencyInDoubt -= call.emergencyUsed();
    if (reply.outcome() == Outcome.SUCCESS) {
      emergencyToReport -= call.emergencyUsed();
    }
  }

  private synchronized void resettle(RenewCall call, int attempt) {
    if (phase != Phase.CLOSED) {
      settle(call, attempt);
    }
  }

  // ------------------------------------------------------------------ close

  /**
   * Invalidates the bucket, then returns the lease with its unused whole tokens; the future
   * completes when the return is answered (or failed: the lease then simply expires). Idempotent.
   *
   * @return completes once the return is answered (or given up)
   */
  public synchronized CompletableFuture<Void> closeAsync() {
    if (closing != null) {
      return closing;
    }
    closed = true;
    notifyAll(); // waiters give up
    long now = clock.getAsLong();
    // Invalidate first: from here no admission can spend what we are about to return.
    long unused = bucket.invalidate(now);
    if (inEmergency) {
      emergencySpentEnded += Math.max(0, emergencyInstalled - unused);
      emergencyInstalled = 0;
    }
    inEmergency = false;
    moveTo(LeaseState.CLOSED);
    cancelTimers();
    LeaseView held = lease;
    boolean live = (phase == Phase.HELD || phase == Phase.RENEWING) && held != null;
    // A renewal in flight or awaiting its retry may have been applied, which moves the version
    // the return must present; emergency tokens not yet reported can only travel in a renewal.
    boolean settleRenewal = live
        && ((renewCall != null && renewCall.held() == held) || emergencyToReport - emergencyInDoubt > 0);
    phase = Phase.CLOSED;
    requestSeq++;
    lease = null;
    if (!live) {
      closing = CompletableFuture.completedFuture(null);
      return closing;
    }
    CompletableFuture<Long> version = CompletableFuture.completedFuture(held.version());
    if (settleRenewal) {
      RenewCall call = renewCallFor(held);
      version = send(call).handle((reply, err) -> {
        if (err == null && reply.outcome() == Outcome.SUCCESS && reply.lease() != null
            && reply.lease().leaseId() == held.leaseId()) {
          synchronized (this) {
            emergencyToReport -= call.emergencyUsed();
          }
          return reply.lease().version();
        }
        return held.version();
      });
    }
    renewCall = null;
    closing = version.thenCompose(v -> {
      try {
        return transport.returnLease(transport.nextRequestId(), held.leaseId(), v, unused);
      } catch (RuntimeException e) {
        return CompletableFuture.<Response.ReturnReply>failedFuture(e);
      }
    }).handle((r, e) -> null);
    return closing;
  }

  /** {@link #closeAsync()}, waiting at most {@code closeTimeout} for the return's answer. */
  @Override
  public void close() {
    CompletableFuture<Void> f = closeAsync();
    try {
      f.get(options.closeTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The return is best-effort: an unreturned lease expires on the ledger by itself.
    }
  }

  // ------------------------------------------------------------------ helpers

  private void moveTo(LeaseState next) {
    LeaseState previous = state;
    if (previous == next) {
      return;
    }
    state = next;
    notifyListeners(l -> l.onLeaseStateChanged(this, previous, next));
  }

  /** Calls the listeners on the scheduler, outside this object's monitor. */
  private void notifyListeners(java.util.function.Consumer<LeaseListener> call) {
    if (listeners.isEmpty()) {
      return;
    }
    try {
      scheduler.schedule(() -> {
        for (LeaseListener l : listeners) {
          try {
            call.accept(l);
          } catch (RuntimeException e) {
            LOG.warn("lease listener {} of {}/{} failed", l, tenant, resource, e);
          }
        }
      }, Duration.ZERO);
    } catch (RuntimeException e) {
      // The scheduler is shut down (the client closed first): nobody is left to tell.
    }
  }

  private static String rootMessage(Throwable err) {
    Throwable c = err;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return String.valueOf(c.getMessage() != null ? c.getMessage() : c);
  }

  private void returnQuietly(long leaseId, long version, long unused) {
    try {
      transport.returnLease(transport.nextRequestId(), leaseId, version, unused);
    } catch (RuntimeException e) {
      // Best-effort: the lease expires on the ledger anyway.
    }
  }

  private boolean newer(LeaseView l) {
    return l.epoch() > lastEpoch || (l.epoch() == lastEpoch && l.version() > lastVersion);
  }

  private long localExpiry(long sentAt, long durationMillis) {
    long durationNanos = durationMillis * NANOS_PER_MILLI;
    return sentAt + (long) (durationNanos * (1 - options.driftFraction())) - options.margin().toNanos();
  }

  /** The delay before retry {@code attempt}: d = base·2^attempt up to max, drawn from [d/2, d]. */
  private long backoff(int attempt) {
    long max = options.backoffMax().toNanos();
    long d = options.backoffBase().toNanos() << Math.min(attempt, 30);
    d = d <= 0 || d > max ? max : d;
    long half = d / 2;
    RandomGenerator random = options.jitterRandom().orElseGet(ThreadLocalRandom::current);
    return half + random.nextLong(d - half + 1);
  }

  private static long hintOf(Throwable err) {
    return CallFailure.of(err).map(f -> f.retryAfterMillis() * NANOS_PER_MILLI).orElse(0L);
  }

  private void cancelTimers() {
    if (actionTimer != null) {
      actionTimer.cancel();
      actionTimer = null;
    }
    if (expiryTimer != null) {
      expiryTimer.cancel();
      expiryTimer = null;
    }
  }

  // ------------------------------------------------------------------ introspection

  /**
   * The tenant of the limit.
   *
   * @return the tenant
   */
  public String tenant() {
    return tenant;
  }

  /**
   * The resource of the limit.
   *
   * @return the resource
   */
  public String resource() {
    return resource;
  }

  /**
   * Who holds the lease.
   *
   * @return the holder
   */
  public String holder() {
    return holder;
  }

  /**
   * The whole permits the local bucket could admit now: 0 without a lease, at most the burst
   * share with one (the {@code r} of an HTTP {@code RateLimit} header). A snapshot: concurrent
   * callers may take them first.
   *
   * @return permits available now, never negative
   */
  public long available() {
    return Math.max(0, bucket.balance(clock.getAsLong()));
  }

  /** The local bucket, for this package's tests: a service reads {@link #available()}. */
  LeasedBucket bucket() {
    return bucket;
  }

  /**
   * Permits admitted so far (emergency included).
   *
   * @return permits admitted so far
   */
  public long admittedTotal() {
    return demand.admittedTotal();
  }

  /**
   * Permits rejected so far.
   *
   * @return the count
   */
  public long rejectedTotal() {
    return demand.rejectedTotal();
  }

  /**
   * The lease currently held, if any.
   *
   * @return the lease held, or empty
   */
  public synchronized java.util.Optional<LeaseInfo> lease() {
    return (phase == Phase.HELD || phase == Phase.RENEWING)
        ? java.util.Optional.ofNullable(lease).map(LimiterViews::lease)
        : java.util.Optional.empty();
  }

  /**
   * True while admitting from the best-effort emergency budget.
   *
   * @return whether the limiter admits from the emergency budget
   */
  public boolean inEmergency() {
    return inEmergency;
  }

  /**
   * Where the limiter stands with its lease.
   *
   * @return the lease state
   */
  public LeaseState state() {
    return state;
  }

  /**
   * Decisions so far with {@code reason} ({@link #tryAcquire} and {@link #decide} alike).
   *
   * @param reason a reason
   * @return how many decisions had it
   */
  public long decisions(Decision.Reason reason) {
    return decisionCounts[reason.ordinal()].sum();
  }

  /**
   * Emergency tokens spent so far, in this disconnection and the ones before.
   *
   * @return emergency tokens spent so far
   */
  public synchronized long emergencySpentTotal() {
    long current = inEmergency ? Math.max(0, emergencyInstalled - bucket.balance(clock.getAsLong())) : 0;
    return emergencySpentEnded + current;
  }

  /**
   * Tells {@code listener} about this limiter's lease from now on (see {@link LeaseListener}
   * for the thread it is called on).
   *
   * @param listener the listener
   */
  public void addListener(LeaseListener listener) {
    if (listener == null) {
      throw new IllegalArgumentException("listener is required");
    }
    listeners.add(listener);
  }

  /**
   * Stops telling {@code listener}; true if it was registered.
   *
   * @param listener a listener added before
   * @return whether it was registered
   */
  public boolean removeListener(LeaseListener listener) {
    return listeners.remove(listener);
  }

  /**
   * Times the lease's local validity ran out while its renewal was unanswered, so that the
   * limiter suspended admission ({@link LeaseState#SUSPENDED}) instead of giving the lease up.
   *
   * @return suspensions so far
   */
  public synchronized long suspensionsTotal() {
    return suspensions;
  }

  /**
   * Suspensions that ended with the renewal's SUCCESS: the lease resumed with its balance; the
   * others ended in a lost lease and a fresh acquire.
   *
   * @return suspensions a late renewal ended
   */
  public synchronized long resumptionsTotal() {
    return resumptions;
  }

  /**
   * Emergency tokens spent and not yet reported to the ledger, including those of a renewal
   * given up at local expiry whose answer (whether the ledger counted them) is still awaited.
   *
   * @return emergency tokens spent and not yet reported
   */
  public synchronized long emergencyUnreported() {
    return emergencyToReport;
  }
}
