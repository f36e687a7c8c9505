package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * Goal: a client's moves between servers are logged at most once per interval, never not at
 * all, and the line after a quiet interval counts the moves left out.
 */
class ReconnectLogTest {
  private static final long INTERVAL = 10_000_000_000L;

  @Test
  void aThousandMovesWithinOneIntervalWriteOneLineAndTheNextLineCountsTheRest() {
    CapturingLogger logger = new CapturingLogger("test");
    AtomicLong now = new AtomicLong(5);
    ReconnectLog log = new ReconnectLog(logger, INTERVAL, now::get);
    for (int i = 0; i < 1000; i++) {
      log.moved(true, "from {} to {}", "a:1", "b:2");
      now.addAndGet(INTERVAL / 1000 - 1); // all within the first interval
    }
    assertEquals(1, logger.lines.size(), logger.lines.toString());
    assertEquals(new CapturingLogger.Line(Level.WARN, "from a:1 to b:2"), logger.lines.get(0));

    now.set(5 + INTERVAL);
    assertTrue(log.moved(false, "{} does not lead; to {}", "b:2", "a:1"));
    assertFalse(log.moved(false, "{} does not lead; to {}", "a:1", "b:2"));
    assertEquals(2, logger.lines.size(), logger.lines.toString());
    assertEquals(new CapturingLogger.Line(Level.DEBUG,
        "b:2 does not lead; to a:1 (999 earlier moves not logged)"), logger.lines.get(1));
  }
}
