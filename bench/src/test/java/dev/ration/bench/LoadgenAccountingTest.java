package dev.ration.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The generator's books, driven with explicit nanosecond times: window, histograms, rates. */
class LoadgenAccountingTest {
  static final long T0 = 1_000_000_000L;
  static final long SEC = TimeUnit.SECONDS.toNanos(1);
  static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  Accounting books() {
    return new Accounting(T0, Duration.ofSeconds(10), Duration.ofSeconds(60));
  }

  /** Goal: only completions in [start + warmup, start + warmup + duration) are measured. */
  @Test
  void countsOnlyCompletionsInsideTheWindow() {
    Accounting a = books();
    long start = T0 + 10 * SEC;
    long end = start + 60 * SEC;
    a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, T0, start - 1); // warm-up
    a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, start - MS, start); // first measured instant
    a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, end - 2 * MS, end - 1); // last measured instant
    a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, end - MS, end); // window closed
    a.recordError(OpKind.ACQUIRE, ErrorCode.UNAVAILABLE, false, T0, T0 + SEC); // warm-up error

    Accounting.Results r = a.results(end + SEC);
    assertEquals(2, r.succeeded());
    assertEquals(2, r.replies());
    assertEquals(0, r.errors());
    assertEquals(2, r.warmupCompletions(), "one warm-up reply and one warm-up error");
    assertEquals(60.0, r.windowSeconds(), 1e-9);
  }

  @Test
  void phaseFollowsTheWindow() {
    Accounting a = books();
    assertEquals(Accounting.Phase.WARMUP, a.phaseAt(T0));
    assertEquals(Accounting.Phase.WARMUP, a.phaseAt(T0 + 10 * SEC - 1));
    assertEquals(Accounting.Phase.MEASURE, a.phaseAt(T0 + 10 * SEC));
    assertEquals(Accounting.Phase.MEASURE, a.phaseAt(T0 + 70 * SEC - 1));
    assertEquals(Accounting.Phase.DONE, a.phaseAt(T0 + 70 * SEC));
  }

  /** Goal: throughput is SUCCESS replies over the window; replies/s counts every outcome. */
  @Test
  void ratesDivideByTheWindow() {
    Accounting a = books();
    long start = T0 + 10 * SEC;
    for (int i = 0; i < 600; i++) {
      long end = start + i * 100 * MS; // 600 replies spread over the 60 s window
      a.recordReply(OpKind.RENEW, Outcome.SUCCESS, end - MS, end);
    }
    for (int i = 0; i < 60; i++) {
      a.recordReply(OpKind.RENEW, Outcome.LEASE_EXPIRED, start + i * SEC, start + i * SEC + MS);
    }
    Accounting.Results r = a.results(start + 60 * SEC);
    assertEquals(10.0, r.throughputPerSecond(), 1e-9);
    assertEquals(11.0, r.repliesPerSecond(), 1e-9);
    Accounting.KindResults renew = r.kind(OpKind.RENEW);
    assertEquals(600, renew.succeeded());
    assertEquals(660, renew.replies());
    assertEquals(Map.of("SUCCESS", 600L, "LEASE_EXPIRED", 60L), renew.outcomes());
    assertEquals(0, r.kind(OpKind.ACQUIRE).replies());
  }

  /** Goal: a run stopped early is measured over the part of the window it covered. */
  @Test
  void stoppedEarlyShortensTheWindow() {
    Accounting a = books();
    long start = T0 + 10 * SEC;
    for (int i = 0; i < 300; i++) {
      a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, start + i * 100 * MS, start + i * 100 * MS + MS);
    }
    Accounting.Results r = a.results(start + 30 * SEC);
    assertEquals(30.0, r.windowSeconds(), 1e-9);
    assertEquals(10.0, r.throughputPerSecond(), 1e-9);

    Accounting.Results never = books().results(T0 + SEC); // stopped in warm-up
    assertEquals(0.0, never.windowSeconds(), 1e-9);
    assertEquals(0.0, never.throughputPerSecond(), 1e-9);
  }

  /** Goal: percentiles in microseconds within HdrHistogram's 3 significant digits. */
  @Test
  void histogramGivesPercentilesInMicros() {
    Accounting a = books();
    long start = T0 + 10 * SEC;
    // 1000 replies with latencies 1 ms .. 1000 ms (i ms for i = 1..1000).
    for (int i = 1; i <= 1000; i++) {
      long end = start + i * SEC / 100;
      a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, end - i * MS, end);
    }
    LatencySummary l = a.results(start + 60 * SEC).kind(OpKind.ACQUIRE).latency();
    assertEquals(1000, l.count());
    assertWithin(500_000, l.p50Micros());
    assertWithin(990_000, l.p99Micros());
    assertWithin(999_000, l.p999Micros());
    assertWithin(1_000_000, l.maxMicros());
    assertWithin(500_500, Math.round(l.meanMicros()));
  }

  static void assertWithin(long expected, long actual) {
    assertTrue(Math.abs(expected - actual) <= expected / 1000 + 1,
        "expected " + expected + " within 0.1%, got " + actual);
  }

  /** Goal: errors are counted by code (and indeterminate ones apart), never put in the histogram. */
  @Test
  void errorsAreCountedNotTimed() {
    Accounting a = books();
    long start = T0 + 10 * SEC;
    a.recordReply(OpKind.RENEW, Outcome.SUCCESS, start, start + 2 * MS);
    a.recordError(OpKind.RENEW, ErrorCode.DEADLINE_EXCEEDED, false, start, start + 5 * SEC);
    a.recordError(OpKind.RENEW, ErrorCode.OVERLOADED, true, start, start + 5 * SEC);
    a.recordError(OpKind.RENEW, ErrorCode.OVERLOADED, true, start, start + 5 * SEC);
    a.recordError(OpKind.REACQUIRE, ErrorCode.UNAVAILABLE, false, start, start + 5 * SEC);

    Accounting.Results r = a.results(start + 60 * SEC);
    Accounting.KindResults renew = r.kind(OpKind.RENEW);
    assertEquals(3, renew.errors());
    assertEquals(1, renew.indeterminate());
    assertEquals(Map.of("OVERLOADED", 2L, "DEADLINE_EXCEEDED", 1L), renew.errorCodes());
    assertEquals(1, renew.latency().count());
    assertWithin(2_000, renew.latency().maxMicros());
    assertEquals(4, r.errors());
    assertEquals(1, r.kind(OpKind.REACQUIRE).indeterminate());
    assertEquals(1, r.latency().count(), "the all-ops histogram holds replies only");
  }

  /** Goal: the progress interval covers everything since the previous sample, then restarts. */
  @Test
  void intervalSamplesRestart() {
    Accounting a = books();
    for (int i = 0; i < 50; i++) {
      a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, T0 + i * MS, T0 + i * MS + MS);
    }
    a.recordError(OpKind.ACQUIRE, ErrorCode.OVERLOADED, true, T0, T0 + MS);
    Accounting.IntervalSample s = a.sampleInterval(T0 + 5 * SEC);
    assertEquals(50, s.replies());
    assertEquals(1, s.errors());
    assertEquals(10.0, s.repliesPerSecond(), 1e-9);
    assertEquals(Accounting.Phase.WARMUP, s.phase());
    Accounting.IntervalSample straddling = a.sampleInterval(T0 + 11 * SEC);
    assertEquals(0, straddling.replies());
    assertEquals(Accounting.Phase.WARMUP, straddling.phase(), "labelled by where the interval began");
    assertEquals(Accounting.Phase.MEASURE, a.sampleInterval(T0 + 12 * SEC).phase());
  }

  @Test
  void latencyIsClampedToTheHistogramRange() {
    assertEquals(1, Accounting.micros(T0, T0));
    assertEquals(1, Accounting.micros(T0, T0 - SEC), "a clock step backwards is not negative");
    assertEquals(Accounting.HIGHEST_MICROS, Accounting.micros(T0, T0 + TimeUnit.HOURS.toNanos(5)));
    Accounting a = books();
    a.recordReply(OpKind.ACQUIRE, Outcome.SUCCESS, T0, T0 + 10 * SEC + TimeUnit.HOURS.toNanos(0) + 1);
    assertEquals(1, a.results(T0 + 70 * SEC).replies());
  }

  @Test
  void refusesAnEmptyWindow() {
    assertThrows(IllegalArgumentException.class, () -> new Accounting(T0, Duration.ZERO, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> new Accounting(T0, Duration.ofSeconds(-1), Duration.ofSeconds(1)));
  }
}
