package dev.ration.client.pool;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded worker pool: W platform worker threads it owns, a queue of at most Q waiting jobs,
 * and one housekeeping thread. It never creates a thread per job, so memory is bounded by Q + W
 * job payloads (a running job that fails and backs off keeps its place while it waits: see
 * {@link #submit}) and W + 1 stacks.
 *
 * <p>Concurrency: at most {@code min(W, slots.permits())} jobs run at once. A worker starts a
 * job only under the pool lock after checking that bound, so a shrink of the slot count takes
 * effect on the next start; jobs already running are left to finish. When the slot lease is
 * within {@code cancelLead} of its end, nothing starts and running jobs' tokens are cancelled;
 * a job still running when the lease ends is counted and listed as an overrun.
 *
 * <p>Every accepted job reaches exactly one terminal state. Terminal transitions go through
 * {@link Task#finish}, which fails loudly if a job would end twice: that is a bug in the pool,
 * never a job's fault. Transitions out of QUEUED happen under the pool lock; RUNNING jobs end
 * only on their worker.
 *
 * <p>Thread-safe. Job callbacks (token callbacks, future completions) never run under the pool
 * lock.
 */
public final class WorkerPool implements AutoCloseable {
  private static final Duration MIN_RETRY_AFTER = Duration.ofMillis(1);
  private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(30);
  private static final int OVERRUNS_LISTED = 1_000;

  private final PoolOptions options;
  private final SlotSource slots;
  private final AtomicLong ids = new AtomicLong();

  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when a job may start: one queued, a worker freed, the slot count changed. */
  private final Condition workAvailable = lock.newCondition();
  /** Signalled when a queue place frees, for submitters that wait for room. */
  private final Condition roomAvailable = lock.newCondition();
  /** Signalled when a worker exits; shutdown also re-checks every tick, as jobs end without the lock. */
  private final Condition jobEnded = lock.newCondition();

  // Guarded by lock.
  private final LinkedHashSet<Task<?>> queue = new LinkedHashSet<>();
  private final PriorityQueue<Task<?>> backingOff =
      new PriorityQueue<>((a, b) -> a.readyAt.compareTo(b.readyAt));
  /**
   * Jobs running now. Added to only under the lock, after the start check, so the bound holds;
   * removed from without it when a job ends (which only lowers the count).
   */
  private final Set<Task<?>> running = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicInteger runningCount = new java.util.concurrent.atomic.AtomicInteger();
  private final ArrayDeque<Long> overrunIds = new ArrayDeque<>();
  /** Ended jobs' results by id, oldest first; guarded by its own monitor, not the pool lock. */
  private final LinkedHashMap<Long, Retained> retained = new LinkedHashMap<>();
  private boolean stopping;
  private int workersAlive;
  private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
  /** When a misbehaving source was last logged (the monotonic clock), 0 before the first time. */
  private final AtomicLong badSourceLoggedAt = new AtomicLong();

  /** Jobs accepted and not ended, by id; bounded by Q + W. */
  private final Map<Long, Task<?>> live = new ConcurrentHashMap<>();

  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong overloaded = new AtomicLong();
  private final AtomicLong succeeded = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong cancelled = new AtomicLong();
  private final AtomicLong retries = new AtomicLong();
  private final AtomicLong overruns = new AtomicLong();
  private final AtomicLong runNanosTotal = new AtomicLong();
  private final AtomicLong attemptsEnded = new AtomicLong();
  /** Smoothed run time of one attempt, for the retry-after estimate. */
  private volatile long runNanosAverage = 1_000_000;

  private final List<Thread> threads = new ArrayList<>();
  private final Thread housekeeper;

  /**
   * A pool; its workers start at once.
   *
   * @param options its options
   * @param slots how many jobs may run at once
   */
  public WorkerPool(PoolOptions options, SlotSource slots) {
    this.options = Objects.requireNonNull(options, "options");
    this.slots = Objects.requireNonNull(slots, "slots");
    for (int i = 0; i < options.workers(); i++) {
      Thread t = new Thread(this::work, options.threadNamePrefix() + "-worker-" + i);
      // Daemon: a job that ignores its token and never returns must not keep the JVM alive
      // after shutdown has abandoned it.
      t.setDaemon(true);
      threads.add(t);
    }
    housekeeper = new Thread(this::housekeep, options.threadNamePrefix() + "-housekeeper");
    housekeeper.setDaemon(true);
    workersAlive = threads.size();
    slots.addListener(this::slotsChanged);
    threads.forEach(Thread::start);
    housekeeper.start();
  }

  /**
   * The pool's options.
   *
   * @return the options
   */
  public PoolOptions options() {
    return options;
  }

  /**
   * {@link #submit(Job, Instant, Duration)} without waiting for room.
   *
   * @param <T> the job's value type
   * @param job the job
   * @param deadline when it must end, on the pool's clock
   * @return accepted, rejected or overloaded
   */
  public <T> SubmitResult<T> submit(Job<T> job, Instant deadline) {
    return submit(job, deadline, Duration.ZERO);
  }

  /**
   * Offers {@code job}, to end by {@code deadline}. Answers Rejected (the pool is stopping, or
   * the deadline has passed), Overloaded (Q jobs wait already; after waiting up to
   * {@code maxWait}, and never past the deadline, for a place to free) or Accepted. Room is
   * counted over queued and backing-off jobs: a running job that fails and is retried goes back
   * to wait even when the queue is full, so at most Q + W jobs are ever held.
   *
   * @param <T> the job's value type
   * @param job the job
   * @param deadline when it must end, on the pool's clock
   * @param maxWait how long to wait for room in the queue
   * @return accepted, rejected or overloaded
   */
  public <T> SubmitResult<T> submit(Job<T> job, Instant deadline, Duration maxWait) {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(maxWait, "maxWait");
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait " + maxWait + " must be >= 0");
    }
    // Built outside the lock, which workers wait on: an id lost to a refusal is only a gap.
    Task<T> task = new Task<>(ids.incrementAndGet(), job, deadline);
    lock.lock();
    try {
      Instant now = options.clock().instant();
      if (stopping) {
        rejected.incrementAndGet();
        return new SubmitResult.Rejected<>(SubmitResult.RejectReason.STOPPING, "pool is shutting down");
      }
      if (!now.isBefore(deadline)) {
        rejected.incrementAndGet();
        return new SubmitResult.Rejected<>(SubmitResult.RejectReason.DEADLINE_PASSED,
            "deadline " + deadline + " is not after now " + now);
      }
      if (waiting() >= options.queueCapacity()) {
        long waitNanos = Math.min(maxWait.toNanos(), Duration.between(now, deadline).toNanos());
        while (waitNanos > 0 && !stopping && waiting() >= options.queueCapacity()) {
          waitNanos = roomAvailable.awaitNanos(waitNanos);
        }
        if (stopping) {
          rejected.incrementAndGet();
          return new SubmitResult.Rejected<>(SubmitResult.RejectReason.STOPPING, "pool is shutting down");
        }
        if (waiting() >= options.queueCapacity()) {
          overloaded.incrementAndGet();
          return new SubmitResult.Overloaded<>(retryAfter());
        }
        now = options.clock().instant();
      }
      task.state.set(JobState.QUEUED);
      task.readyAt = now;
      // In the live map before any worker can take it (and so end it and remove it).
      live.put(task.id, task);
      queue.add(task);
      accepted.incrementAndGet();
      workAvailable.signal();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      overloaded.incrementAndGet();
      return new SubmitResult.Overloaded<>(retryAfter());
    } finally {
      lock.unlock();
    }
    return new SubmitResult.Accepted<>(task);
  }

  /**
   * The state of job {@code id}, while it is live or its result is retained.
   *
   * @param id a job's id
   * @return its state, or empty once forgotten
   */
  public Optional<JobState> state(long id) {
    Task<?> t = live.get(id);
    if (t != null) {
      return Optional.of(t.state.get());
    }
    return result(id).map(JobResult::state);
  }

  /**
   * The result of ended job {@code id}, kept for the newest {@code resultsRetained} jobs and for
   * at most {@code resultsRetainedFor} after they ended; empty otherwise (also while it runs).
   *
   * @param id a job's id
   * @return its result, or empty while running or once forgotten
   */
  public Optional<JobResult<?>> result(long id) {
    synchronized (retained) {
      Retained r = retained.get(id);
      return r == null ? Optional.empty() : Optional.of(r.result);
    }
  }

  /**
   * Cancels job {@code id}; see {@link JobHandle#cancel}. False if it is not live.
   *
   * @param id a job's id
   * @return whether it was live (it is cancelled now)
   */
  public boolean cancel(long id) {
    Task<?> t = live.get(id);
    return t != null && t.cancel();
  }

  /**
   * Ids of the most recent overruns (at most 1,000; {@link PoolStats#overruns} counts all).
   *
   * @return the ids of those jobs
   */
  public List<Long> overrunJobIds() {
    lock.lock();
    try {
      return List.copyOf(overrunIds);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The pool's figures now.
   *
   * @return the figures
   */
  public PoolStats stats() {
    lock.lock();
    try {
      Instant now = options.clock().instant();
      Duration oldest = queue.isEmpty() ? Duration.ZERO : Duration.between(queue.iterator().next().readyAt, now);
      return new PoolStats(queue.size(), backingOff.size(), oldest.isNegative() ? Duration.ZERO : oldest,
          runningCount.get(), options.workers(), slotsHeld(), accepted.get(), rejected.get(), overloaded.get(),
          succeeded.get(), failed.get(), cancelled.get(), retries.get(), overruns.get(), runNanosTotal.get(),
          attemptsEnded.get());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops admission (later submissions are Rejected STOPPING), cancels the queue (CANCEL_QUEUED)
   * or keeps running it (DRAIN), and waits until every job live at the call has ended or
   * {@code deadline} passes on the pool's clock. At the deadline, jobs still waiting are
   * cancelled and running ones have their tokens cancelled and are reported abandoned. Calling
   * it again reports on the jobs live at that call.
   *
   * @param deadline the latest end, on the pool's clock
   * @param policy cancel the queue or drain it
   * @return what became of the jobs
   * @throws InterruptedException if the calling thread is interrupted while waiting
   */
  public ShutdownReport shutdown(Instant deadline, ShutdownPolicy policy) throws InterruptedException {
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(policy, "policy");
    List<Task<?>> inFlight;
    List<Task<?>> dropped = new ArrayList<>();
    lock.lock();
    try {
      stopping = true;
      inFlight = new ArrayList<>(live.values());
      if (policy == ShutdownPolicy.CANCEL_QUEUED) {
        dropped.addAll(drainWaiting());
      }
      workAvailable.signalAll();
      roomAvailable.signalAll();
    } finally {
      lock.unlock();
    }
    endCancelled(dropped);
    List<Task<?>> stillRunning = new ArrayList<>();
    lock.lock();
    try {
      while (true) {
        if (allEnded(inFlight)) {
          break;
        }
        long leftNanos = Duration.between(options.clock().instant(), deadline).toNanos();
        if (leftNanos <= 0) {
          break;
        }
        jobEnded.awaitNanos(Math.min(leftNanos, options.tick().toNanos()));
      }
      dropped.clear();
      dropped.addAll(drainWaiting());
      stillRunning.addAll(running);
      workAvailable.signalAll();
    } finally {
      lock.unlock();
    }
    endCancelled(dropped);
    for (Task<?> t : stillRunning) {
      cancelQuietly(t, CancellationToken.Reason.SHUTDOWN);
    }
    List<Long> finished = new ArrayList<>();
    List<Long> wasCancelled = new ArrayList<>();
    List<Long> abandoned = new ArrayList<>();
    for (Task<?> t : inFlight) {
      JobState s = t.state.get();
      if (s == JobState.SUCCEEDED || s == JobState.FAILED) {
        finished.add(t.id);
      } else if (s == JobState.CANCELLED) {
        wasCancelled.add(t.id);
      } else {
        abandoned.add(t.id);
      }
    }
    return new ShutdownReport(finished, wasCancelled, abandoned);
  }

  /** Shuts down, cancelling the queue and waiting up to 5 seconds for running jobs. */
  @Override
  public void close() throws InterruptedException {
    shutdown(options.clock().instant().plusSeconds(5), ShutdownPolicy.CANCEL_QUEUED);
  }

  /**
   * True once every worker thread has exited (after shutdown, when no job runs any more).
   *
   * @return whether the pool has shut down and its workers ended
   */
  public boolean isTerminated() {
    lock.lock();
    try {
      return workersAlive == 0;
    } finally {
      lock.unlock();
    }
  }

  // ---- workers ----

  private void work() {
    try {
      while (true) {
        Task<?> task;
        List<Task<?>> expired = new ArrayList<>();
        lock.lock();
        try {
          while (true) {
            task = null;
            if (canStart()) {
              task = pollRunnable(expired);
              if (task != null) {
                break;
              }
            }
            if (stopping && queue.isEmpty() && backingOff.isEmpty()) {
              return;
            }
            if (!expired.isEmpty()) {
              break;
            }
            // Bounded, so a lease end or a slot change that arrives without a signal is still seen.
            workAvailable.awaitNanos(options.tick().toNanos());
          }
        } finally {
          lock.unlock();
        }
        endDeadlinePassed(expired);
        if (task != null) {
          run(task);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.lock();
      try {
        workersAlive--;
        jobEnded.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Under the lock: whether one more job may start now. */
  private boolean canStart() {
    return runningCount.get() < slotsHeld() && !leaseEndingAt(options.clock().instant());
  }

  private int slotsHeld() {
    int permits;
    try {
      permits = slots.permits();
    } catch (RuntimeException e) {
      badSource("permits() threw", e);
      return 0;
    }
    return Math.max(0, Math.min(options.workers(), permits));
  }

  /**
   * The source's lease end, read so that no answer of a source can stop the pool's threads: a
   * source that throws or answers null holds no valid permission (as {@link Instant#MIN} does),
   * so nothing starts and running jobs count as overruns until it answers again.
   */
  private Instant validUntil() {
    Instant until;
    try {
      until = slots.validUntil();
    } catch (RuntimeException e) {
      badSource("validUntil() threw", e);
      return Instant.MIN;
    }
    if (until == null) {
      badSource("validUntil() returned null", null);
      return Instant.MIN;
    }
    return until;
  }

  private boolean leaseEndingAt(Instant now) {
    Instant until = validUntil();
    if (until.equals(Instant.MAX)) {
      return false;
    }
    // now + cancelLead >= until, computed without until - cancelLead, which is out of Instant's
    // range for a source answering Instant.MIN (that threw and ended the worker threads).
    return !now.isBefore(until) || Duration.between(now, until).compareTo(options.cancelLead()) <= 0;
  }

  /** Logs a misbehaving slot source at most once a minute; the pool carries on without slots. */
  private void badSource(String what, RuntimeException e) {
    long now = options.monotonicClock().nanoTime();
    long last = badSourceLoggedAt.get();
    if ((last == 0 || now - last >= TimeUnit.MINUTES.toNanos(1)) && badSourceLoggedAt.compareAndSet(last, now == 0 ? 1 : now)) {
      LOG.warn("slot source {} {}: no job starts until it answers again", slots, what, e);
    }
  }

  /**
   * Under the lock: takes the oldest queued job and marks it RUNNING; jobs whose deadline has
   * passed are moved to {@code expired} (they fail without running).
   */
  private Task<?> pollRunnable(List<Task<?>> expired) {
    Instant now = options.clock().instant();
    Iterator<Task<?>> it = queue.iterator();
    while (it.hasNext()) {
      Task<?> t = it.next();
      it.remove();
      roomAvailable.signal();
      if (!now.isBefore(t.deadline)) {
        expired.add(t);
        continue;
      }
      if (!t.state.compareAndSet(JobState.QUEUED, JobState.RUNNING)) {
        throw new IllegalStateException("job " + t.id + " in the queue in state " + t.state.get());
      }
      running.add(t);
      runningCount.incrementAndGet();
      try {
        slots.attemptStarted();
      } catch (RuntimeException e) {
        badSource("attemptStarted() threw", e);
      }
      return t;
    }
    return null;
  }

  private void endDeadlinePassed(List<Task<?>> expired) {
    Instant now = options.clock().instant();
    for (Task<?> t : expired) {
      t.finish(JobState.FAILED, null,
          new JobDeadlineExceededException(t.id, t.deadline, now, "before it could run"), false);
    }
  }

  private <T> void run(Task<T> task) {
    task.attempts++;
    Attempt attempt = new Attempt(task.id, task.attempts, options.maxAttempts(), task.deadline, task.token);
    T value = null;
    Throwable failure = null;
    long start = options.monotonicClock().nanoTime();
    try {
      value = task.job.run(attempt);
    } catch (Throwable e) {
      // Any failure is the job's outcome, reported through its result; an Error too, because
      // the worker thread must survive to keep W workers.
      failure = e;
    }
    long ranNanos = options.monotonicClock().nanoTime() - start;
    runNanosTotal.addAndGet(ranNanos);
    attemptsEnded.incrementAndGet();
    runNanosAverage = runNanosAverage - (runNanosAverage >> 3) + (ranNanos >> 3);

    // The common ends (success, permanent failure, cancellation) take no pool lock: the running
    // set and count are concurrent, the result store has its own monitor. Only a retry (the
    // backoff queue) and an overrun (the overrun list) need the lock.
    Instant now = options.clock().instant();
    running.remove(task);
    runningCount.decrementAndGet();
    try {
      slots.attemptEnded();
    } catch (RuntimeException e) {
      badSource("attemptEnded() threw", e);
    }
    if (!now.isBefore(validUntil())) {
      lock.lock();
      try {
        markOverrunIfLeaseEnded(task, now);
      } finally {
        lock.unlock();
      }
    }
    JobState end;
    if (failure == null) {
      end = JobState.SUCCEEDED;
    } else if (task.token.isCancelled() || failure instanceof CancellationException) {
      end = task.token.reason().orElse(null) == CancellationToken.Reason.DEADLINE
          ? JobState.FAILED : JobState.CANCELLED;
    } else {
      end = JobState.FAILED;
      if (task.attempts < options.maxAttempts() && classify(failure)) {
        long capNanos = options.backoffCapNanos(task.attempts - 1);
        long delayNanos = Math.max(0, Math.min(capNanos, options.jitter().applyAsLong(capNanos)));
        Instant readyAt = now.plusNanos(delayNanos);
        if (readyAt.isBefore(task.deadline)) {
          lock.lock();
          try {
            if (!stopping) {
              task.readyAt = readyAt;
              task.state.set(JobState.QUEUED);
              backingOff.add(task);
              retries.incrementAndGet();
              return;
            }
          } finally {
            lock.unlock();
          }
        }
      }
    }
    task.finish(end, value, failure, task.overrun);
  }

  private boolean classify(Throwable failure) {
    try {
      return options.maxAttempts() > 1 && failure instanceof Exception && classifier.isRetryable(failure);
    } catch (RuntimeException e) {
      // A classifier that fails cannot say "retry": treat the failure as permanent.
      return false;
    }
  }

  private volatile FailureClassifier classifier = FailureClassifier.DEFAULT;

  /**
   * Sets how failures are classified; {@link FailureClassifier#DEFAULT} until called.
   *
   * @param classifier decides which failures are retried
   * @return this pool
   */
  public WorkerPool classifyingFailuresWith(FailureClassifier classifier) {
    this.classifier = Objects.requireNonNull(classifier, "classifier");
    return this;
  }

  /** Under the lock: records {@code task} as an overrun if the lease has ended by {@code now}. */
  private boolean markOverrunIfLeaseEnded(Task<?> task, Instant now) {
    if (task.overrun || now.isBefore(validUntil())) {
      return task.overrun;
    }
    task.overrun = true;
    overruns.incrementAndGet();
    overrunIds.addLast(task.id);
    if (overrunIds.size() > OVERRUNS_LISTED) {
      overrunIds.removeFirst();
    }
    return true;
  }

  // ---- housekeeping ----

  private void housekeep() {
    try {
      while (true) {
        List<Task<?>> toCancel = new ArrayList<>();
        List<Task<?>> pastDeadline = new ArrayList<>();
        int runningNow;
        int waitingNow;
        lock.lock();
        try {
          if (workersAlive == 0) {
            return;
          }
          Instant now = options.clock().instant();
          while (!backingOff.isEmpty() && !backingOff.peek().readyAt.isAfter(now)) {
            Task<?> t = backingOff.poll();
            t.readyAt = now;
            queue.add(t);
          }
          boolean leaseEnding = leaseEndingAt(now);
          for (Task<?> t : running) {
            if (leaseEnding) {
              toCancel.add(t);
            }
            if (!now.isBefore(t.deadline)) {
              pastDeadline.add(t);
            }
            markOverrunIfLeaseEnded(t, now);
          }
          synchronized (retained) {
            evictRetained(now);
          }
          runningNow = runningCount.get();
          waitingNow = waiting();
          workAvailable.signalAll();
        } finally {
          lock.unlock();
        }
        for (Task<?> t : toCancel) {
          cancelQuietly(t, CancellationToken.Reason.LEASE_ENDING);
        }
        for (Task<?> t : pastDeadline) {
          cancelQuietly(t, CancellationToken.Reason.DEADLINE);
        }
        try {
          slots.reportUsage(runningNow, waitingNow);
        } catch (RuntimeException e) {
          badSource("reportUsage() threw", e);
        }
        TimeUnit.NANOSECONDS.sleep(options.tick().toNanos());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void cancelQuietly(Task<?> t, CancellationToken.Reason reason) {
    try {
      t.token.cancel(reason);
    } catch (RuntimeException e) {
      // The job's own cancel callback failed; the job sees the token cancelled either way, and
      // its outcome reports what happened to it.
    }
  }

  private void slotsChanged() {
    lock.lock();
    try {
      workAvailable.signalAll();
    } finally {
      lock.unlock();
    }
  }

  // ---- helpers under the lock ----

  private int waiting() {
    return queue.size() + backingOff.size();
  }

  private Duration retryAfter() {
    int held = slotsHeld();
    if (held == 0) {
      return Duration.ofSeconds(1);
    }
    Duration d = Duration.ofNanos(runNanosAverage / held);
    return d.compareTo(MIN_RETRY_AFTER) < 0 ? MIN_RETRY_AFTER : d.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : d;
  }

  private List<Task<?>> drainWaiting() {
    List<Task<?>> out = new ArrayList<>(queue);
    out.addAll(backingOff);
    queue.clear();
    backingOff.clear();
    roomAvailable.signalAll();
    return out;
  }

  private boolean allEnded(List<Task<?>> tasks) {
    for (Task<?> t : tasks) {
      if (!t.state.get().isTerminal()) {
        return false;
      }
    }
    return true;
  }

  private void endCancelled(List<Task<?>> tasks) {
    for (Task<?> t : tasks) {
      t.token.cancel(CancellationToken.Reason.SHUTDOWN);
      t.finish(JobState.CANCELLED, null, null, false);
    }
  }

  /** Holding {@code retained}'s monitor: drops results beyond the count or age bound, oldest first. */
  private void evictRetained(Instant now) {
    Instant oldest = now.minus(options.resultsRetainedFor());
    Iterator<Retained> it = retained.values().iterator();
    while (it.hasNext()) {
      Retained r = it.next();
      if (retained.size() > options.resultsRetained() || r.result.finishedAt().isBefore(oldest)) {
        it.remove();
      } else {
        break;
      }
    }
  }

  private record Retained(JobResult<?> result) {
  }

  /** One accepted job. Mutable fields other than {@code state} are guarded by the pool lock or owned by its worker. */
  private final class Task<T> implements JobHandle<T> {
    final long id;
    final Job<T> job;
    final Instant deadline;
    final CancellationToken token = new CancellationToken();
    final CompletableFuture<JobResult<T>> future = new CompletableFuture<>();
    final AtomicReference<JobState> state = new AtomicReference<>(JobState.SUBMITTED);
    Instant readyAt;
    int attempts;
    /** Written under the pool lock; read by the worker after its run. */
    volatile boolean overrun;

    Task(long id, Job<T> job, Instant deadline) {
      this.id = id;
      this.job = job;
      this.deadline = deadline;
    }

    @Override
    public long id() {
      return id;
    }

    @Override
    public JobState state() {
      return state.get();
    }

    @Override
    public CompletableFuture<JobResult<T>> result() {
      return future;
    }

    @Override
    public boolean cancel() {
      boolean dropped = false;
      lock.lock();
      try {
        JobState s = state.get();
        if (s.isTerminal()) {
          return false;
        }
        if (s == JobState.QUEUED) {
          dropped = queue.remove(this) || backingOff.remove(this);
          if (dropped) {
            roomAvailable.signal();
          }
        }
      } finally {
        lock.unlock();
      }
      // Running (or just picked by a worker): the token tells the job; its worker ends it.
      token.cancel(CancellationToken.Reason.CANCELLED);
      if (dropped) {
        finish(JobState.CANCELLED, null, null, false);
      }
      return true;
    }

    /**
     * Ends the job: exactly once, or the pool has a bug. Needs no pool lock (the state is
     * atomic, the counters too, the result store has its own monitor), so a caller may hold it
     * or not; the future is completed last.
     */
    @SuppressWarnings("unchecked")
    void finish(JobState end, Object value, Throwable failure, boolean wasOverrun) {
      JobState before = state.getAndSet(end);
      if (before.isTerminal()) {
        throw new IllegalStateException("job " + id + " ended " + end + " after it had ended " + before);
      }
      switch (end) {
        case SUCCEEDED -> succeeded.incrementAndGet();
        case FAILED -> failed.incrementAndGet();
        case CANCELLED -> cancelled.incrementAndGet();
        default -> throw new IllegalStateException("job " + id + " ended in non-terminal " + end);
      }
      JobResult<T> result = new JobResult<>(id, end, Optional.ofNullable((T) value), Optional.ofNullable(failure),
          attempts, options.clock().instant(), wasOverrun);
      live.remove(id);
      if (options.resultsRetained() > 0) {
        synchronized (retained) {
          retained.put(id, new Retained(result));
          evictRetained(result.finishedAt());
        }
      }
      future.complete(result);
    }

    @Override
    public String toString() {
      return "job " + id + " " + state.get();
    }
  }

  @Override
  public String toString() {
    return "WorkerPool(workers " + options.workers() + ", queue " + options.queueCapacity() + ", slots " + slots + ")";
  }

  /** Visible for tests in this package: the ids of jobs running now. */
  List<Long> runningIds() {
    lock.lock();
    try {
      List<Long> ids = new ArrayList<>();
      for (Task<?> t : running) {
        ids.add(t.id);
      }
      Collections.sort(ids);
      return ids;
    } finally {
      lock.unlock();
    }
  }
}
