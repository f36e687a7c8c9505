package dev.ration.client.ttl.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.time.MonotonicInstant;
import dev.ration.testkit.Property;
import dev.ration.testkit.Rng;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link TtlCache} shared by several threads: each key behaves as a linearizable register
 * (checked on recorded histories by {@link RegisterHistory}), and under a mixed load on every
 * policy the invariants hold, no read returns a value past its expiry, and the read counters
 * equal the reads made. Threads start together at a barrier; every wait is bounded.
 */
class TtlCacheConcurrencyTest {
  private static final int THREADS = 4;
  private static final long WAIT_SECONDS = 30;

  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdownNow();
    assertTrue(pool.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "pool did not stop");
  }

  @Test
  void readsAndWritesOfOneKeyAreLinearizable() {
    Property.check(200, rng -> {
      TtlCache<String, String> cache = TtlCache.builder().maxEntries(4).build();
      RegisterHistory history = new RegisterHistory();
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        long seed = rng.anyLong();
        running.add(pool.submit(() -> {
          Rng r = Rng.seeded(seed);
          start.await(WAIT_SECONDS, TimeUnit.SECONDS);
          for (int i = 0; i < 8; i++) {
            int kind = r.uniform(0, 9);
            long invokedAt = history.invoke();
            if (kind < 5) {
              String got = cache.get("k").orElse(null);
              history.complete(thread, false, got, invokedAt);
            } else if (kind < 8) {
              String value = "t" + thread + "-" + i;
              cache.put("k", value);
              history.complete(thread, true, value, invokedAt);
            } else {
              cache.delete("k");
              history.complete(thread, true, null, invokedAt);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : running) {
        f.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      List<RegisterHistory.Operation> ops = history.operations();
      assertTrue(RegisterHistory.linearizable(ops), () -> "not linearizable:\n  " + String.join("\n  ",
          ops.stream().map(Object::toString).toList()));
      cache.verify();
    });
  }

  @Test
  void lruUnderLoadKeepsItsInvariantsAndCounts() throws Exception {
    mixedLoad(EvictionPolicy.LRU);
  }

  @Test
  void lfuUnderLoadKeepsItsInvariantsAndCounts() throws Exception {
    mixedLoad(EvictionPolicy.LFU);
  }

  @Test
  void soonestExpiringUnderLoadKeepsItsInvariantsAndCounts() throws Exception {
    mixedLoad(EvictionPolicy.SOONEST_EXPIRING);
  }

  /**
   * Four threads, 16 keys, room for 8 entries and 60 bytes, a clock one thread moves forward:
   * every value names its own expiry, so a read can check that the cache judged it live at a
   * time no earlier than the clock before the read.
   */
  private void mixedLoad(EvictionPolicy policy) throws Exception {
    AtomicLong clock = new AtomicLong();
    TtlCache<String, String> cache = TtlCache.builder()
        .maxEntries(8)
        .maxBytes(60, (String k, String v) -> v.length())
        .policy(policy)
        .clock(clock::get)
        .build();
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Future<Long>> running = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      running.add(pool.submit(() -> {
        Rng r = Rng.seeded(31L * thread + policy.ordinal());
        long reads = 0;
        start.await(WAIT_SECONDS, TimeUnit.SECONDS);
        for (int i = 0; i < 20_000; i++) {
          String key = "k" + r.uniform(0, 15);
          int kind = r.uniform(0, 19);
          if (thread == 0 && kind == 0) {
            clock.addAndGet(r.uniform(1, 5));
          } else if (kind < 12) {
            long before = clock.get();
            Optional<String> got = cache.get(key);
            reads++;
            if (got.isPresent()) {
              long expiresAt = Long.parseLong(got.get());
              assertTrue(expiresAt > before, "read " + key + " expiring at " + expiresAt + ", clock was " + before);
            }
          } else if (kind < 17) {
            long expiresAt = clock.get() + r.uniform(-2, 20);
            cache.putUntil(key, Long.toString(expiresAt), new MonotonicInstant(expiresAt));
          } else if (kind < 18) {
            cache.delete(key);
          } else if (kind < 19) {
            cache.putKeepTtl(key, Long.toString(Long.MAX_VALUE));
          } else {
            cache.cleanUp();
          }
        }
        return reads;
      }));
    }
    long reads = 0;
    for (Future<Long> f : running) {
      reads += f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    cache.verify();
    CacheStats stats = cache.stats();
    assertEquals(reads, stats.hits() + stats.misses(), stats.toString());
    assertEquals(stats.stored(), stats.entries() + stats.evictions(), stats.toString());
    assertTrue(stats.evictions(EvictionReason.CAPACITY) > 0 && stats.evictions(EvictionReason.EXPIRED) > 0,
        "the load should both overflow and expire: " + stats);
  }
}
