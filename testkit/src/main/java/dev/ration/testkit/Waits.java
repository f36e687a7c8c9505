package dev.ration.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.ThrowingRunnable;

/**
 * Deadline-bounded waits for tests that poll real time: a cluster electing a leader, a follower
 * catching up, a periodic metric refresh, a first write meeting an election. Each wait names
 * what it waits for; on timeout it fails with an {@link AssertionError} that carries that name,
 * the timeout and the last value (or assertion message) it saw, with the last failure as cause.
 * Tests on an injected clock have no use for this: they advance the clock instead of sleeping.
 *
 * <p>Built on Awaitility, set up to behave like the hand-written loops it replaces: the first
 * check happens at once, then one every {@link #every interval} after the previous check ends.
 * Checks run on the calling thread, so a probe reads test state without extra synchronization,
 * and a probe that blocks holds the wait up just as it would a loop (bound its own calls). An
 * exception a probe throws ends the wait at once, unless a {@link #retrying} wait was told to
 * expect it. An uncaught exception on some other thread does not fail the wait: Ratis, Netty
 * and gRPC threads have their own handling, and a test that cares asserts on it. Immutable, so
 * a test can keep one in a constant.
 */
public final class Waits {
  /** Awaitility's own default poll interval. */
  private static final Duration DEFAULT_INTERVAL = Duration.ofMillis(100);

  private final Duration timeout;
  private final Duration interval;

  private Waits(Duration timeout, Duration interval) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout " + timeout + " must be positive");
    }
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval " + interval + " must be positive");
    }
    this.timeout = timeout;
    this.interval = interval;
  }

  /** Waits that give up after {@code timeout}, checking every 100 ms unless {@link #every} says otherwise. */
  public static Waits upTo(Duration timeout) {
    return new Waits(Objects.requireNonNull(timeout, "timeout"), DEFAULT_INTERVAL);
  }

  /** The same waits, checking every {@code interval}. */
  public Waits every(Duration interval) {
    return new Waits(timeout, Objects.requireNonNull(interval, "interval"));
  }

  /**
   * Calls {@code probe} until {@code done} accepts its value, and returns that value. On timeout
   * the failure names {@code what} and shows the last value, so a probe should return something
   * that explains itself (a count, a status, a response) rather than a bare boolean.
   */
  public <T> T until(String what, Callable<T> probe, Predicate<? super T> done) {
    try {
      return conditions(what).ignoreNoExceptions().until(probe, done);
    } catch (ConditionTimeoutException e) {
      throw failure(e);
    }
  }

  /**
   * Runs {@code assertion} until it passes. An {@link AssertionError} from it means "not yet";
   * on timeout the failure names {@code what} and repeats the last assertion message (the error
   * itself is the cause). Any other exception ends the wait at once.
   */
  public void untilAsserted(String what, ThrowingRunnable assertion) {
    try {
      conditions(what).ignoreNoExceptions().untilAsserted(assertion);
    } catch (ConditionTimeoutException e) {
      throw failure(e);
    }
  }

  /**
   * Calls {@code attempt} until it returns, and returns its answer. A failure that
   * {@code transientFailure} accepts means "try again"; any other failure ends the wait at once.
   * On timeout the failure names {@code what}, with the last transient failure as cause.
   */
  public <T> T retrying(String what, Predicate<? super Throwable> transientFailure, Callable<T> attempt) {
    AtomicReference<T> answer = new AtomicReference<>();
    try {
      conditions(what).ignoreExceptionsMatching(transientFailure).until(() -> {
        answer.set(attempt.call());
        return true;
      });
    } catch (ConditionTimeoutException e) {
      throw failure(e);
    }
    return answer.get();
  }

  private ConditionFactory conditions(String what) {
    return Awaitility.await(Objects.requireNonNull(what, "what"))
        .atMost(timeout)
        .pollDelay(Duration.ZERO)
        .pollInterval(interval)
        .pollInSameThread()
        .dontCatchUncaughtExceptions();
  }

  /**
   * A timeout as a test failure (an AssertionError, like the assertions around the wait), with
   * Awaitility's message and cause. A probe's own exceptions, checked ones included, reach the
   * caller unchanged: Awaitility rethrows them as they are.
   */
  private static AssertionError failure(ConditionTimeoutException e) {
    return new AssertionError(e.getMessage(), e.getCause());
  }

  @Override
  public String toString() {
    return "up to " + timeout + ", every " + interval;
  }
}
