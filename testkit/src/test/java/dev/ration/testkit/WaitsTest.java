package dev.ration.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The behaviour the replaced hand-written loops had, which tests keep relying on: the first
 * check at once and on the calling thread, a timeout reported as an AssertionError naming the
 * wait and the last value seen, unexpected exceptions passed through at once and unchanged.
 */
class WaitsTest {
  /** For waits that must time out: short, so the test is quick. */
  private static final Waits SHORT = Waits.upTo(Duration.ofMillis(300)).every(Duration.ofMillis(10));
  /** For waits that must succeed after a few polls: generous, so a loaded machine passes. */
  private static final Waits AMPLE = Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(10));

  @Test
  void returnsTheFirstAcceptedValueCheckingAtOnceOnTheCallingThread() {
    Thread caller = Thread.currentThread();
    List<Thread> probedOn = new ArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    long started = System.nanoTime();
    int value = Waits.upTo(Duration.ofSeconds(10)).every(Duration.ofSeconds(5)).until("one call",
        () -> {
          probedOn.add(Thread.currentThread());
          return calls.incrementAndGet();
        }, n -> n == 1);
    assertEquals(1, value);
    assertEquals(List.of(caller), probedOn);
    assertTrue(System.nanoTime() - started < Duration.ofSeconds(4).toNanos(), "no initial delay");
  }

  @Test
  void pollsUntilTheValueIsAccepted() {
    AtomicInteger calls = new AtomicInteger();
    assertEquals(3, AMPLE.until("three calls", calls::incrementAndGet, n -> n >= 3));
  }

  @Test
  void aTimeoutNamesTheWaitAndTheLastValue() {
    AtomicInteger calls = new AtomicInteger();
    AssertionError e = assertThrows(AssertionError.class,
        () -> SHORT.until("a value above a million", calls::incrementAndGet, n -> n > 1_000_000));
    assertTrue(e.getMessage().contains("a value above a million"), e.getMessage());
    assertTrue(e.getMessage().contains("<" + calls.get() + ">"), e.getMessage());
  }

  @Test
  void aTimeoutOfAnAssertionRepeatsTheLastAssertionMessage() {
    AssertionError e = assertThrows(AssertionError.class, () -> SHORT.untilAsserted("never",
        () -> assertEquals(1, 2, "one is not two")));
    assertTrue(e.getMessage().contains("never") && e.getMessage().contains("one is not two"),
        e.getMessage());
    assertInstanceOf(AssertionError.class, e.getCause());
  }

  @Test
  void anExceptionFromAProbeEndsTheWaitAtOnceAndUnchanged() {
    IOException boom = new IOException("boom");
    AtomicInteger calls = new AtomicInteger();
    Exception thrown = assertThrows(IOException.class, () -> SHORT.until("no failure", () -> {
      calls.incrementAndGet();
      throw boom;
    }, v -> true));
    assertSame(boom, thrown);
    assertEquals(1, calls.get());
    AssertionError failed = new AssertionError("an invariant broke");
    assertSame(failed, assertThrows(AssertionError.class, () -> SHORT.until("no failure", () -> {
      throw failed;
    }, v -> true)), "an assertion inside a probe is not retried");
  }

  @Test
  void retryingTriesAgainOnlyOnExpectedFailures() {
    AtomicInteger calls = new AtomicInteger();
    assertEquals("ok", AMPLE.retrying("a third attempt", e -> e instanceof IllegalStateException, () -> {
      if (calls.incrementAndGet() < 3) {
        throw new IllegalStateException("not yet");
      }
      return "ok";
    }));
    IllegalArgumentException other = new IllegalArgumentException("unexpected");
    assertSame(other, assertThrows(IllegalArgumentException.class, () -> SHORT.retrying("no",
        e -> e instanceof IllegalStateException, () -> {
          throw other;
        })));
    AssertionError timedOut = assertThrows(AssertionError.class, () -> SHORT.retrying("never",
        e -> e instanceof IllegalStateException, () -> {
          throw new IllegalStateException("still not");
        }));
    assertTrue(timedOut.getMessage().contains("never"), timedOut.getMessage());
    assertEquals("still not", timedOut.getCause().getMessage(), "the last failure is the cause");
  }

  @Test
  void anUncaughtExceptionOnAnotherThreadDoesNotFailTheWait() throws Exception {
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> { });
    try {
      AtomicInteger calls = new AtomicInteger();
      int value = AMPLE.until("after a background failure", () -> {
        if (calls.incrementAndGet() == 1) {
          Thread t = new Thread(() -> {
            throw new IllegalStateException("background");
          });
          t.start();
          t.join();
        }
        return calls.get();
      }, n -> n >= 2);
      assertEquals(2, value);
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
    }
  }
}
