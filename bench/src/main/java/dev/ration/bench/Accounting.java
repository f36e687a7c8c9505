package dev.ration.bench;

import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The load generator's books: which completions fall in the measured window, their latency
 * histograms, and counts of every domain outcome and error code.
 *
 * <p>Window rule: a request is measured iff it <em>completes</em> in {@code [measureStart,
 * measureEnd)}, where {@code measureStart = start + warmup} and {@code measureEnd = measureStart +
 * duration}. A closed loop keeps the same number of requests outstanding the whole time, so
 * counting by completion gives the steady-state rate; a request begun in warm-up and finished
 * in the window counts (with its full latency). Throughput = measured SUCCESS replies / window
 * seconds, where the window is cut short if the run stopped early.
 *
 * <p>Latency is recorded for every reply (any outcome), in microseconds, HdrHistogram with 3
 * significant digits, clamped to one hour. Errors (no reply: the client gave up) are counted by
 * code and not put in the histograms, so a p99 is a p99 of answered requests; their count is
 * reported next to it.
 *
 * <p>Thread-safe: completions arrive on every client's event-loop thread; one lock guards all
 * state (a few thousand records a second on a 2-core machine make the lock cheap next to the
 * request it records). Time is passed in, never read, so tests drive it by hand.
 */
public final class Accounting {
  static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);
  static final int SIGNIFICANT_DIGITS = 3;

  private final long measureStartNanos;
  private final long measureEndNanos;

  // Guarded by this.
  private final Map<OpKind, Books> measured = new EnumMap<>(OpKind.class);
  private long warmupCompletions;
  private Histogram interval = newHistogram();
  private long intervalErrors;
  private long intervalStartNanos;

  public Accounting(long startNanos, Duration warmup, Duration duration) {
    if (warmup.isNegative() || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("warmup " + warmup + " must be >= 0 and duration " + duration + " > 0");
    }
    this.measureStartNanos = startNanos + warmup.toNanos();
    this.measureEndNanos = measureStartNanos + duration.toNanos();
    this.intervalStartNanos = startNanos;
    for (OpKind k : OpKind.values()) {
      measured.put(k, new Books());
    }
  }

  static Histogram newHistogram() {
    return new Histogram(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
  }

  public long measureStartNanos() {
    return measureStartNanos;
  }

  public long measureEndNanos() {
    return measureEndNanos;
  }

  public Phase phaseAt(long nowNanos) {
    if (nowNanos - measureStartNanos < 0) {
      return Phase.WARMUP;
    }
    return nowNanos - measureEndNanos < 0 ? Phase.MEASURE : Phase.DONE;
  }

  boolean inWindow(long endNanos) {
    return endNanos - measureStartNanos >= 0 && endNanos - measureEndNanos < 0;
  }

  static long micros(long startNanos, long endNanos) {
    long us = TimeUnit.NANOSECONDS.toMicros(Math.max(0, endNanos - startNanos));
    return Math.max(1, Math.min(HIGHEST_MICROS, us));
  }

  /** A request answered with a domain outcome (SUCCESS, LIMIT_EXHAUSTED, LEASE_EXPIRED, ...). */
  public synchronized void recordReply(OpKind kind, Outcome outcome, long startNanos, long endNanos) {
    long us = micros(startNanos, endNanos);
    interval.recordValue(us);
    if (!inWindow(endNanos)) {
      countWarmup(endNanos);
      return;
    }
    Books b = measured.get(kind);
    b.latency.recordValue(us);
    b.outcomes.merge(outcome, 1L, Long::sum);
  }

  /** A request the client gave up on, definitely or not (the client's bounded retries are done). */
  public synchronized void recordError(OpKind kind, ErrorCode code, boolean definite, long startNanos, long endNanos) {
    intervalErrors++;
    if (!inWindow(endNanos)) {
      countWarmup(endNanos);
      return;
    }
    Books b = measured.get(kind);
    b.errors.merge(code, 1L, Long::sum);
    if (!definite) {
      b.indeterminate++;
    }
  }

  private void countWarmup(long endNanos) {
    if (endNanos - measureStartNanos < 0) {
      warmupCompletions++;
    }
  }

  /** Completions since the previous sample (for the progress line), and starts a new interval. */
  public synchronized IntervalSample sampleInterval(long nowNanos) {
    double seconds = Math.max(1e-9, (nowNanos - intervalStartNanos) / 1e9);
    // Labelled by where the interval began: the sample that ends the warm-up is warm-up.
    IntervalSample s = new IntervalSample(phaseAt(intervalStartNanos), interval.getTotalCount(), intervalErrors, seconds,
        LatencySummary.of(interval));
    interval = newHistogram();
    intervalErrors = 0;
    intervalStartNanos = nowNanos;
    return s;
  }

  /**
   * The measured results. {@code stoppedNanos} is when the generator stopped issuing; a run
   * stopped before the window's end is measured over the part it covered.
   */
  public synchronized Results results(long stoppedNanos) {
    long endNanos = stoppedNanos;
    if (endNanos - measureStartNanos < 0) {
      endNanos = measureStartNanos;
    } else if (endNanos - measureEndNanos > 0) {
      endNanos = measureEndNanos;
    }
    double windowSeconds = (endNanos - measureStartNanos) / 1e9;
    List<KindResults> kinds = new ArrayList<>();
    Histogram all = newHistogram();
    for (OpKind k : OpKind.values()) {
      Books b = measured.get(k);
      all.add(b.latency);
      long replies = b.latency.getTotalCount();
      long succeeded = b.outcomes.getOrDefault(Outcome.SUCCESS, 0L);
      Map<String, Long> outcomes = new LinkedHashMap<>();
      for (Outcome o : Outcome.values()) {
        Long n = b.outcomes.get(o);
        if (n != null) {
          outcomes.put(o.name(), n);
        }
      }
      Map<String, Long> errors = new LinkedHashMap<>();
      long errorCount = 0;
      for (ErrorCode e : ErrorCode.values()) {
        Long n = b.errors.get(e);
        if (n != null) {
          errors.put(e.name(), n);
          errorCount += n;
        }
      }
      kinds.add(new KindResults(k, replies, succeeded, rate(succeeded, windowSeconds), outcomes, errorCount, errors,
          b.indeterminate, LatencySummary.of(b.latency)));
    }
    long succeeded = kinds.stream().mapToLong(KindResults::succeeded).sum();
    long replies = kinds.stream().mapToLong(KindResults::replies).sum();
    long errors = kinds.stream().mapToLong(KindResults::errors).sum();
    return new Results(windowSeconds, warmupCompletions, replies, succeeded, rate(succeeded, windowSeconds),
        rate(replies, windowSeconds), errors, LatencySummary.of(all), List.copyOf(kinds));
  }

  static double rate(long count, double seconds) {
    return seconds <= 0 ? 0 : count / seconds;
  }

  /** Where the run is: warming up, measuring, or past the window (stop issuing). */
  public enum Phase {
    WARMUP,
    MEASURE,
    DONE
  }

  /** Measured counters of one op kind. */
  private static final class Books {
    final Histogram latency = newHistogram();
    final Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    final Map<ErrorCode, Long> errors = new EnumMap<>(ErrorCode.class);
    long indeterminate;
  }

  /** One progress interval: completions (replies and errors) over {@code seconds}. */
  public record IntervalSample(Phase phase, long replies, long errors, double seconds, LatencySummary latency) {
    public double repliesPerSecond() {
      return rate(replies, seconds);
    }
  }

  /** Measured figures of one op kind; outcome and error maps hold only codes that occurred. */
  public record KindResults(OpKind kind, long replies, long succeeded, double succeededPerSecond,
      Map<String, Long> outcomes, long errors, Map<String, Long> errorCodes, long indeterminate,
      LatencySummary latency) {}

  /**
   * The measured window. {@code throughputPerSecond} counts SUCCESS replies only;
   * {@code repliesPerSecond} every answered request; {@code latency} is over all replies.
   */
  public record Results(double windowSeconds, long warmupCompletions, long replies, long succeeded,
      double throughputPerSecond, double repliesPerSecond, long errors, LatencySummary latency,
      List<KindResults> kinds) {

    public KindResults kind(OpKind k) {
      for (KindResults r : kinds) {
        if (r.kind() == k) {
          return r;
        }
      }
      throw new IllegalStateException("no results for " + k + " in " + kinds);
    }
  }
}
