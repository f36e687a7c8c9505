package dev.ration.client.ttl.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Waits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TtlCache#getOrLoad}: one load per key at a time, callers of that key wait for it and
 * share its result or its failure, a failure is not cached, and a write made during a load wins.
 * Waits are on latches, barriers and thread states, each bounded.
 */
class TtlCacheLoadTest {
  private static final int CALLERS = 6;
  private static final long WAIT_SECONDS = 30;
  private static final Waits WAITS = Waits.upTo(Duration.ofSeconds(WAIT_SECONDS)).every(Duration.ofMillis(2));

  private final ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
  private final AtomicLong clock = new AtomicLong();
  private final TtlCache<String, String> cache = TtlCache.builder().clock(clock::get).build();

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdownNow();
    assertTrue(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "pool did not stop");
  }

  @Test
  void callersOfOneKeyWaitForTheOneLoadAndShareItsValue() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    List<Future<String>> results = callersWhileTheLoadIsHeld(key -> {
      calls.incrementAndGet();
      release.await(WAIT_SECONDS, TimeUnit.SECONDS);
      return "loaded";
    }, release);
    for (Future<String> f : results) {
      assertEquals("loaded", f.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }
    assertEquals(1, calls.get());
    CacheStats stats = cache.stats();
    assertEquals(1, stats.loads());
    assertEquals(CALLERS, stats.misses());
    assertEquals("loaded", cache.get("k").orElseThrow());
    cache.verify();
  }

  @Test
  void aFailedLoadReachesEveryWaiterAndIsNotCached() throws Exception {
    IOException failure = new IOException("backend down");
    CountDownLatch release = new CountDownLatch(1);
    List<Future<String>> results = callersWhileTheLoadIsHeld(key -> {
      release.await(WAIT_SECONDS, TimeUnit.SECONDS);
      throw failure;
    }, release);
    for (Future<String> f : results) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof CacheLoadException, e.toString());
      assertSame(failure, e.getCause().getCause());
    }
    assertEquals(1, cache.stats().loadFailures());
    assertEquals(0, cache.stats().entries());
    assertEquals("second", cache.getOrLoad("k", Duration.ofSeconds(1), k -> "second"));
    assertEquals(1, cache.stats().loads());
  }

  /**
   * Starts {@link #CALLERS} callers of {@code getOrLoad("k")}; once the first is inside the loader
   * and every other is parked waiting for it, opens {@code release}.
   */
  private List<Future<String>> callersWhileTheLoadIsHeld(Loader<String, String> loader, CountDownLatch release)
      throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    AtomicReference<Thread> loaderThread = new AtomicReference<>();
    Loader<String, String> marked = key -> {
      loaderThread.set(Thread.currentThread());
      entered.countDown();
      return loader.load(key);
    };
    List<Thread> callers = new ArrayList<>();
    List<Future<String>> results = new ArrayList<>();
    CyclicBarrier start = new CyclicBarrier(CALLERS);
    for (int i = 0; i < CALLERS; i++) {
      results.add(pool.submit(() -> {
        synchronized (callers) {
          callers.add(Thread.currentThread());
        }
        start.await(WAIT_SECONDS, TimeUnit.SECONDS);
        return cache.getOrLoad("k", Duration.ofSeconds(60), marked);
      }));
    }
    assertTrue(entered.await(WAIT_SECONDS, TimeUnit.SECONDS), "no caller started the load");
    WAITS.until("every other caller parked on the load", () -> {
      synchronized (callers) {
        return callers.stream()
            .filter(t -> t != loaderThread.get())
            .filter(t -> t.getState() == Thread.State.WAITING)
            .count();
      }
    }, parked -> parked == CALLERS - 1);
    release.countDown();
    return results;
  }

  @Test
  void loadsOfOneKeyNeverOverlap() throws Exception {
    // A TTL of zero stores every loaded value already expired, so every call loads again.
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    CyclicBarrier start = new CyclicBarrier(CALLERS);
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      running.add(pool.submit(() -> {
        start.await(WAIT_SECONDS, TimeUnit.SECONDS);
        for (int n = 0; n < 2_000; n++) {
          cache.getOrLoad("k", Duration.ZERO, key -> {
            calls.incrementAndGet();
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            Thread.yield();
            inside.decrementAndGet();
            return "v";
          });
        }
        return null;
      }));
    }
    for (Future<?> f : running) {
      f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    assertEquals(1, mostInside.get(), "loads of one key ran at once");
    assertEquals(calls.get(), cache.stats().loads());
    assertEquals(calls.get(), cache.stats().evictions(EvictionReason.EXPIRED));
    cache.verify();
  }

  @Test
  void aLoaderThatLoadsItsOwnKeyIsRefused() {
    CacheLoadException e = assertThrows(CacheLoadException.class,
        () -> cache.getOrLoad("k", Duration.ofSeconds(1), k -> cache.getOrLoad(k, Duration.ofSeconds(1), k2 -> "x")));
    assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
    assertEquals(0, cache.stats().entries());
  }

  @Test
  void aWriteDuringTheLoadWins() {
    String got = cache.getOrLoad("k", Duration.ofSeconds(1), k -> {
      cache.put(k, "written");
      return "loaded";
    });
    assertEquals("written", got);
    assertEquals("written", cache.get("k").orElseThrow());
    assertEquals(1, cache.stats().stored());
  }

  @Test
  void aLoaderReturningNullFails() {
    CacheLoadException e = assertThrows(CacheLoadException.class,
        () -> cache.getOrLoad("k", Duration.ofSeconds(1), k -> null));
    assertTrue(e.getCause() instanceof NullPointerException, e.toString());
    assertEquals(1, cache.stats().loadFailures());
  }
}
