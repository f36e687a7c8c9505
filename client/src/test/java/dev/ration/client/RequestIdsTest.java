package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Request ids never repeat for a client id, within a process or across a restart. */
class RequestIdsTest {
  private static RationClientOptions options(boolean fixed) {
    RationClientOptions.Builder b = RationClientOptions.builder().addresses(List.of("127.0.0.1:1"));
    if (fixed) {
      b.clientId(0x0123456789abcdefL, 0x0123456789abcdefL);
    }
    return b.build();
  }

  /** Goal: a random client id counts from 1 and never reads the clock. */
  @Test
  void randomClientIdCountsFromOne() {
    RequestIds ids = RequestIds.forOptions(options(false), () -> {
      throw new AssertionError("the clock is not read for a random client id");
    });
    assertEquals(1, ids.next());
    assertEquals(2, ids.next());
    assertEquals(3, ids.next());
  }

  /**
   * Goal: under a fixed client id, a process restarted later starts above every id of the one
   * before it, although both asked for the same number of ids (a counter from 1 would repeat).
   */
  @Test
  void fixedClientIdRestartedProcessDoesNotReuseIds() {
    AtomicLong clock = new AtomicLong(1_764_633_600_000_000L);
    RequestIds first = RequestIds.forOptions(options(true), clock::get);
    long last = 0;
    for (int i = 0; i < 1_000; i++) {
      long id = first.next();
      assertTrue(id > last, "increasing");
      last = id;
    }
    assertEquals(1_764_633_600_000_000L + 999, last, "ids run ahead of a clock that stood still");
    clock.addAndGet(2_000_000); // the restart took 2 s
    RequestIds restarted = RequestIds.forOptions(options(true), clock::get);
    long firstOfRestart = restarted.next();
    assertTrue(firstOfRestart > last, firstOfRestart + " > " + last);
    assertEquals(clock.get(), firstOfRestart);
  }

  /** Goal: ids never go back within a process when the wall clock steps back. */
  @Test
  void clockSteppingBackNeverMovesIdsBack() {
    AtomicLong clock = new AtomicLong(5_000_000);
    RequestIds ids = RequestIds.followingClock(clock::get);
    assertEquals(5_000_000, ids.next());
    clock.set(1_000_000); // stepped back 4 s
    assertEquals(5_000_001, ids.next());
    assertEquals(5_000_002, ids.next());
    clock.set(9_000_000); // and forward again
    assertEquals(9_000_000, ids.next());
  }

  /** Goal: the real clock gives microseconds since the epoch (not millis, not nanos). */
  @Test
  void wallClockIsMicroseconds() {
    long micros = RequestIds.wallClockMicros();
    long millis = System.currentTimeMillis();
    assertTrue(Math.abs(micros / 1_000 - millis) < 10_000, micros + " vs " + millis);
  }
}
