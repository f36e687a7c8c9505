package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The leader's log clock, on an injected monotonic clock (no sleeping). */
class ConsensusLogClockTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final LogClock clock = new LogClock(nanos::get);

  private void advanceMillis(long millis) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
  }

  /** Goal: a new term continues from the ledger's time and advances by elapsed monotonic time. */
  @Test
  void startsFromLedgerTimeAndAdvancesByElapsedTime() {
    clock.start(50_000);
    assertEquals(50_000, clock.now());
    advanceMillis(250);
    assertEquals(50_250, clock.now());
  }

  /** Goal: log time never decreases, even if the underlying clock misbehaves. */
  @Test
  void neverDecreases() {
    clock.start(10_000);
    advanceMillis(500);
    assertEquals(10_500, clock.now());
    nanos.addAndGet(-TimeUnit.SECONDS.toNanos(5));
    assertEquals(10_500, clock.now());
  }

  /** Goal: a later term restarts from that term's ledger time. */
  @Test
  void newTermRestartsFromLedgerTime() {
    clock.start(1_000);
    advanceMillis(100);
    assertEquals(1_100, clock.now());
    clock.stop();
    assertFalse(clock.running());
    assertThrows(IllegalStateException.class, clock::now);
    clock.start(7_000);
    advanceMillis(1);
    assertEquals(7_001, clock.now());
  }
}
