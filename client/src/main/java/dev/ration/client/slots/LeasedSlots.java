package dev.ration.client.slots;

import dev.ration.client.pool.SlotSource;
import dev.ration.client.slots.internal.LimitSlotLedger;
import dev.ration.client.slots.internal.SlotLedger;
import dev.ration.client.slots.internal.SlotsAccess;
import dev.ration.client.transport.CallFailure;
import dev.ration.client.transport.Transport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A {@link SlotSource} that holds a lease of concurrency slots: on a limit's cap C (docs/POOL.md,
 * "The global cap"), or on the CONCURRENT quotas of a scope path, counted at every level at once
 * (docs/QUOTAS.md, "Concurrent quotas: slot budgets"). The pool's concurrency is the lease's
 * slot share, never above {@code maxSlots} (the pool's W), so the pools of a whole fleet run at
 * most C jobs at once (at every level of the path, for quotas).
 *
 * <p>One thread of its own acquires the lease, renews it every quarter of the lease duration
 * (sooner when the pool's demand moved away from the share), and reports the pool's demand
 * (running + queued jobs, at most {@code maxSlots}) on every renewal. Each renewal also carries
 * the holder's promise: from when it is sent until it is answered the pool runs at most
 * {@code release = min(share, demand)} jobs (never fewer than are running), and {@link #permits()}
 * is held at that while the renewal is in flight. The ledger then counts exactly what the pool
 * may still be running, so a pool whose demand collapsed hands its slots to the others in one
 * renewal, and a shrunk share whose jobs are still running stays counted for as long as they
 * run under a live lease.
 *
 * <p>Timing: the lease is valid until {@code sent + duration·(1 − 2 %) − 5 ms} on the clock,
 * measured from the first send of the request that granted it. A renewal that fails without an
 * answer is resent under the same request id (same promise) with jittered backoff until then;
 * when the lease lapses, {@link #permits()} is 0 and a new lease is acquired. The pool cancels
 * running jobs before {@link #validUntil()} and reports those still running after it as
 * overruns; the ledger keeps counting their slots until the lease's end plus grace.
 *
 * <p>Thread-safe. {@link #close()} stops renewing and returns the lease.
 */
public final class LeasedSlots implements SlotSource, AutoCloseable {
  private static final double DRIFT = 0.02;
  private static final Duration MARGIN = Duration.ofMillis(5);
  private static final long FIRST_BACKOFF_MILLIS = 50;
  private static final long MAX_BACKOFF_MILLIS = 2_000;
  /** How long an unanswered acquire is resent as it was before a new one replaces it. */
  static final Duration RESEND_WINDOW = Duration.ofSeconds(30);
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LeasedSlots.class);

  /** Refusals of an acquire are logged at most once a minute: a source refused forever is loud. */
  private final dev.ration.client.internal.RateLimitedLog refusedLog =
      new dev.ration.client.internal.RateLimitedLog(LOG,
          dev.ration.client.internal.RateLimitedLog.Level.WARN, TimeUnit.MINUTES.toNanos(1));

  private final SlotLedger ledger;
  private final int maxSlots;
  private final Clock clock;
  private final ScheduledExecutorService timer;
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();

  private final Object lock = new Object();
  // Guarded by lock.
  private SlotLedger.Held lease;
  private Instant validUntil = Instant.EPOCH;
  /** When the acquires since the last answer began (null: none unanswered). Guarded by lock. */
  private Instant acquireSentFirst;
  private int share;
  private int inFlightCap = Integer.MAX_VALUE;
  private boolean renewing;
  private boolean closed;
  private Instant lastSent = Instant.MIN;
  private long renewalsAnswered;
  private long renewalsFailed;
  private long leasesLost;
  /** Bumped by every installed lease: a scheduled renewal of an older one does nothing. */
  private long generation;

  private volatile String lastRefusal = "";
  private volatile int permits;
  /** Jobs running as the pool last reported them (each tick). */
  private volatile int running;
  private volatile int queued;
  /** Attempts running as the pool told of each start and end (exact, unlike the tick's report). */
  private final java.util.concurrent.atomic.AtomicInteger attemptsRunning =
      new java.util.concurrent.atomic.AtomicInteger();
  /** Acquires refused or failed in a row: the backoff before the next one doubles with each. */
  private int acquireFailures;

  private LeasedSlots(SlotLedger ledger, int maxSlots, Clock clock) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    if (maxSlots < 1) {
      throw new IllegalArgumentException("maxSlots " + maxSlots + " must be >= 1");
    }
    this.maxSlots = maxSlots;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ration-slots-" + ledger.describe());
      t.setDaemon(true);
      return t;
    });
  }

  static {
    SlotsAccess.install(LeasedSlots::start);
  }

  /** Slots of a limit over any transport (tests drive a fake one). */
  static LeasedSlots start(Transport transport, String tenant, String resource,
      String holder, int maxSlots) {
    return start(new LimitSlotLedger(transport, tenant, resource, holder), maxSlots,
        Clock.systemUTC());
  }

  static LeasedSlots start(SlotLedger ledger, int maxSlots, Clock clock) {
    LeasedSlots slots = new LeasedSlots(ledger, maxSlots, clock);
    slots.timer.execute(slots::acquire);
    return slots;
  }

  @Override
  public int permits() {
    return permits;
  }

  @Override
  public Instant validUntil() {
    synchronized (lock) {
      return lease == null ? Instant.EPOCH : validUntil;
    }
  }

  @Override
  public void addListener(Runnable onChange) {
    listeners.add(Objects.requireNonNull(onChange, "onChange"));
  }

  /**
   * The pool's demand. A demand away from the share starts a renewal sooner than the regular
   * one (at most ten a lease duration), so a pool that needs more, or much less, says so early.
   */
  @Override
  public void reportUsage(int runningNow, int queuedNow) {
    this.running = Math.max(0, runningNow);
    this.queued = Math.max(0, queuedNow);
    boolean early;
    synchronized (lock) {
      early = lease != null && !renewing && !closed && demand() != share
          && !clock.instant().isBefore(lastSent.plus(leaseDuration().dividedBy(10)));
    }
    if (early) {
      try {
        timer.execute(() -> renew(-1));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // Closed meanwhile.
      }
    }
  }

  /**
   * The slot share of the lease held now (0 when none); {@link #permits()} may be less.
   *
   * @return the share in slots
   */
  public int share() {
    synchronized (lock) {
      return lease == null ? 0 : share;
    }
  }

  /**
   * Why the ledger last refused to grant a lease, while none is held ("" once one is granted):
   * for example a resource with no concurrency cap or quota, or none free. The source keeps
   * asking, with backoff; a refusal is also logged, at most once a minute.
   *
   * @return the ledger's last refusal, or ""
   */
  public String lastRefusal() {
    return lastRefusal;
  }

  /**
   * Renewals the ledger answered with a lease.
   *
   * @return the count since start
   */
  public long renewalsAnswered() {
    synchronized (lock) {
      return renewalsAnswered;
    }
  }

  /**
   * Renewal attempts that failed without an answer (each resent while the lease lasted).
   *
   * @return the count since start
   */
  public long renewalsFailed() {
    synchronized (lock) {
      return renewalsFailed;
    }
  }

  /**
   * Leases lost: refused on renewal, or lapsed without an answer.
   *
   * @return the count since start
   */
  public long leasesLost() {
    synchronized (lock) {
      return leasesLost;
    }
  }

  /** Stops renewing and returns the lease (waiting at most a few seconds for the answer). */
  @Override
  public void close() {
    SlotLedger.Held held;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      held = lease;
      lease = null;
      share = 0;
    }
    publish();
    timer.shutdownNow();
    if (held != null) {
      ledger.giveBack(held, Duration.ofSeconds(5));
    }
  }

  /** The pool started an attempt of a job: counted as running; a ledger that bills starts counts it. */
  @Override
  public void attemptStarted() {
    attemptsRunning.incrementAndGet();
    ledger.attemptStarted();
  }

  /** An attempt the pool started ended. */
  @Override
  public void attemptEnded() {
    attemptsRunning.decrementAndGet();
  }

  // ---------------------------------------------------------------- the lease

  /** Jobs running now: the exact count when the pool tells of starts and ends, else its report. */
  private int runningNow() {
    return Math.max(running, attemptsRunning.get());
  }

  private long demand() {
    return Math.min((long) maxSlots, (long) runningNow() + queued);
  }

  private Duration leaseDuration() {
    SlotLedger.Held l = lease;
    return l == null ? Duration.ofSeconds(1) : Duration.ofMillis(l.durationMillis());
  }

  private void acquire() {
    if (isClosed()) {
      return;
    }
    Instant sent;
    boolean forget = false;
    synchronized (lock) {
      // An attempt that failed without an answer may still be granted, then or by a resend of
      // it: a grant's life counts from the first attempt since the last answer. Resends stop
      // well inside the coordinator's default idempotency retention (60 s), after which a
      // resend would be applied as a new request.
      Instant now = clock.instant();
      if (acquireSentFirst != null && now.isAfter(acquireSentFirst.plus(RESEND_WINDOW))) {
        acquireSentFirst = null;
        forget = true;
      }
      if (acquireSentFirst == null) {
        acquireSentFirst = now;
      }
      sent = acquireSentFirst;
    }
    if (forget) {
      ledger.forgetUnanswered();
    }
    ledger.acquire(demand()).whenComplete((answer, failure) -> {
      if (answer != null) {
        synchronized (lock) {
          acquireSentFirst = null;
        }
      }
      if (answer instanceof SlotLedger.Granted g) {
        lastRefusal = "";
        synchronized (lock) {
          acquireFailures = 0;
        }
        install(null, g.lease(), sent);
      } else {
        if (answer instanceof SlotLedger.Refused no) {
          lastRefusal = no.reason();
          refusedLog.log(TimeUnit.MILLISECONDS.toNanos(clock.millis()),
              "slot source {}: no lease: {}", ledger.describe(), no.reason());
        }
        // Each refused acquire is a Raft entry: back off, doubling, up to the most.
        int failures;
        synchronized (lock) {
          failures = ++acquireFailures;
        }
        long backoff = Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << Math.min(failures - 1, 10));
        long retry = answer instanceof SlotLedger.Refused no
            ? Math.max(no.retryAfterMillis(), backoff)
            : retryAfter(failure, backoff);
        schedule(this::acquire, Duration.ofMillis(jitter(Math.min(retry, MAX_BACKOFF_MILLIS))));
      }
    });
  }

  /**
   * Renews the lease unless a renewal is in flight; {@code ofGeneration} is the lease a
   * scheduled renewal was meant for (−1: an early renewal, for whatever lease is held).
   */
  private void renew(long ofGeneration) {
    SlotLedger.Held held;
    long cap;
    long demand;
    Instant sent = clock.instant();
    synchronized (lock) {
      if (closed || lease == null || renewing
          || (ofGeneration >= 0 && ofGeneration != generation)) {
        return;
      }
      renewing = true;
      held = lease;
      demand = demand();
      cap = Math.min(share, demand);
      inFlightCap = (int) cap;
      lastSent = sent;
    }
    // The promise: until the answer, at most min(share, demand) jobs, or those running now. The
    // lowered permits are published first: the pool's listener takes the pool's lock, under
    // which it checks the permits and counts each start, so once publish() returns every start
    // that saw the old permits is counted, and no later one exceeds the new ones.
    publish();
    int runningNow = runningNow();
    long release = Math.max(runningNow, cap);
    long want = Math.max(demand, runningNow);
    send(ledger.renewal(held, runningNow, (int) Math.max(0, want - runningNow), release, want),
        held, sent, FIRST_BACKOFF_MILLIS);
  }

  /** One attempt of a renewal; a failure without an answer resends the same renewal. */
  private void send(java.util.function.Supplier<java.util.concurrent.CompletableFuture<SlotLedger.Answer>> renewal,
      SlotLedger.Held held, Instant sent, long backoffMillis) {
    renewal.get().whenComplete((answer, failure) -> {
      if (failure == null) {
        answered(answer, held, sent);
        return;
      }
      Instant end;
      synchronized (lock) {
        renewalsFailed++;
        end = lease == held ? validUntil : Instant.MIN;
      }
      long delay = Math.max(jitter(backoffMillis), retryAfter(failure, 0));
      if (clock.instant().plusMillis(delay).isBefore(end)) {
        schedule(() -> send(renewal, held, sent, Math.min(backoffMillis * 2, MAX_BACKOFF_MILLIS)),
            Duration.ofMillis(delay));
      } else {
        // No answer before the lease lapses: start nothing more, and begin again.
        schedule(() -> lost(held), Duration.between(clock.instant(), end).isNegative()
            ? Duration.ZERO : Duration.between(clock.instant(), end));
      }
    });
  }

  private void answered(SlotLedger.Answer answer, SlotLedger.Held held, Instant sent) {
    if (answer instanceof SlotLedger.Granted g) {
      synchronized (lock) {
        renewalsAnswered++;
      }
      install(held, g.lease(), sent);
      return;
    }
    lost(held);
  }

  /** The lease is gone (expired, unknown, refused or lapsed): hold nothing, acquire anew. */
  private void lost(SlotLedger.Held held) {
    synchronized (lock) {
      if (lease != held || closed) {
        return;
      }
      lease = null;
      share = 0;
      renewing = false;
      leasesLost++;
    }
    publish();
    ledger.lost(held);
    timer.execute(this::acquire);
  }

  /**
   * Holds {@code granted} in place of {@code replaced} (null for an acquire) and schedules its
   * renewal; an answer for a lease no longer held (lost meanwhile) is dropped.
   */
  private void install(SlotLedger.Held replaced, SlotLedger.Held granted, Instant sent) {
    long gen;
    Duration delay;
    boolean unused = false;
    synchronized (lock) {
      if (closed || lease != replaced) {
        // A grant answered after close (or after its lease was lost) is handed straight back.
        unused = replaced == null || closed;
      }
    }
    if (unused) {
      ledger.lost(granted);
      return;
    }
    synchronized (lock) {
      if (closed || lease != replaced) {
        return;
      }
      lease = granted;
      share = (int) Math.min(maxSlots, granted.share());
      long lifeMillis = (long) (granted.durationMillis() * (1 - DRIFT));
      validUntil = sent.plusMillis(lifeMillis).minus(MARGIN);
      inFlightCap = Integer.MAX_VALUE;
      renewing = false;
      gen = ++generation;
      // A grant answered late (a resent acquire) may be near its local end, or past it: renew
      // at once rather than a quarter of a lease later, so the pool is not left without slots.
      Duration left = Duration.between(clock.instant(), validUntil);
      if (left.compareTo(renewDelay(granted)) <= 0) {
        delay = Duration.ZERO;
      } else {
        delay = renewDelay(granted);
      }
    }
    publish();
    schedule(() -> renew(gen), delay);
  }

  /** Recomputes {@link #permits()} and tells the listeners. */
  private void publish() {
    synchronized (lock) {
      permits = lease == null || closed ? 0 : Math.max(0, Math.min(share, inFlightCap));
    }
    for (Runnable r : listeners) {
      try {
        r.run();
      } catch (RuntimeException e) {
        // A listener's failure must not stop the lease's upkeep.
      }
    }
  }

  private Duration renewDelay(SlotLedger.Held l) {
    return Duration.ofMillis(Math.max(1, l.durationMillis() / 4));
  }

  private boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  private void schedule(Runnable task, Duration delay) {
    if (isClosed()) {
      return;
    }
    try {
      timer.schedule(task, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed meanwhile.
    }
  }

  private static long jitter(long millis) {
    return millis / 2 + ThreadLocalRandom.current().nextLong(millis / 2 + 1);
  }

  private static long retryAfter(Throwable failure, long floor) {
    return CallFailure.of(failure).map(f -> Math.max(floor, f.retryAfterMillis())).orElse(floor);
  }

  @Override
  public String toString() {
    return "LeasedSlots(" + ledger.describe() + ", share " + share()
        + " of at most " + maxSlots + ")";
  }
}
