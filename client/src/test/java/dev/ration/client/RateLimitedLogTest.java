package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.internal.RateLimitedLog;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * Goal: a line that recurs at retry rate (a client's moves between servers, a limiter's lost
 * lease) is logged at most once per interval, never not at all, at the level each call asks
 * for, and the line after a quiet interval counts the lines left out.
 */
class RateLimitedLogTest {
  private static final long INTERVAL = 10_000_000_000L;

  @Test
  void aThousandLinesWithinOneIntervalWriteOneAndTheNextLineCountsTheRest() {
    CapturingLogger logger = new CapturingLogger("test");
    RateLimitedLog log = new RateLimitedLog(logger, RateLimitedLog.Level.INFO, INTERVAL);
    long now = 5;
    for (int i = 0; i < 1000; i++) {
      log.log(now, RateLimitedLog.Level.WARN, "from {} to {}", "a:1", "b:2");
      now += INTERVAL / 1000 - 1; // all within the first interval
    }
    assertEquals(1, logger.lines.size(), logger.lines.toString());
    assertEquals(new CapturingLogger.Line(Level.WARN, "from a:1 to b:2"), logger.lines.get(0));
    assertEquals(999, log.suppressed());

    now = 5 + INTERVAL;
    assertTrue(log.log(now, RateLimitedLog.Level.DEBUG, "{} does not lead; to {}", "b:2", "a:1"));
    assertFalse(log.log(now, "{} does not lead; to {}", "a:1", "b:2"));
    assertEquals(2, logger.lines.size(), logger.lines.toString());
    assertEquals(new CapturingLogger.Line(Level.DEBUG,
        "b:2 does not lead; to a:1 (999 similar lines left out)"), logger.lines.get(1));
    assertEquals(2, log.written());
    assertEquals(1, log.suppressed());

    now += INTERVAL;
    assertTrue(log.log(now, "quiet again"));
    assertEquals(new CapturingLogger.Line(Level.INFO, "quiet again (1 similar lines left out)"),
        logger.lines.get(2));
  }

  @Test
  void aNonPositiveIntervalIsRefused() {
    CapturingLogger logger = new CapturingLogger("test");
    assertThrows(IllegalArgumentException.class,
        () -> new RateLimitedLog(logger, RateLimitedLog.Level.WARN, 0));
  }
}
