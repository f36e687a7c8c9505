package dev.ration.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import dev.ration.client.ttl.cache.EvictionPolicy;
import dev.ration.client.ttl.cache.TtlCache;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Ration's in-process {@link TtlCache} beside Caffeine 3.1.8, same run shape, same keys, same
 * bound: get of a present key (hit), get of an absent key (miss), and put (overwriting a present
 * key with a new TTL). Run with {@code -t 1} and {@code -t 2}; both caches are shared by the
 * benchmark threads.
 *
 * <p>Both enforce a TTL per entry and read {@code System.nanoTime} on every get: Ration's cache
 * always does; Caffeine is built with {@code expireAfter} (variable expiry), and its puts go
 * through {@code policy().expireVariably()}, which takes the TTL per put as Ration's put does.
 * Both count hits and misses exactly (Caffeine with {@code recordStats()}), and both record reads
 * for their eviction order in a lossy striped buffer (Ration's policy is LRU; Caffeine's is
 * W-TinyLFU); {@code rationSoonestExpiringGetHit} is Ration's hit under a policy that records no
 * reads, for the cost of recording. {@value #KEYS} keys, each with its own TTL of about an hour, in caches bounded
 * at {@value #MAX_ENTRIES} entries, so nothing expires or is evicted during a run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TtlCacheBenchmark {
  static final int KEYS = 1 << 13;
  static final int MASK = KEYS - 1;
  static final int MAX_ENTRIES = 1 << 14;
  static final Duration TTL = Duration.ofHours(1);

  private final Integer[] present = new Integer[KEYS];
  private final Integer[] absent = new Integer[KEYS];
  private final Duration[] ttls = new Duration[KEYS];
  private TtlCache<Integer, Integer> ration;
  private TtlCache<Integer, Integer> rationSoonestExpiring;
  private Cache<Integer, Integer> caffeine;
  private Policy.VarExpiration<Integer, Integer> caffeineTtl;

  /** One benchmark thread's position in the keys. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    @Setup
    public void setup() {
      next = (int) (Thread.currentThread().getId() * 0x9E3779B9L) & MASK;
    }

    int advance() {
      return next++ & MASK;
    }
  }

  @Setup
  public void setup() {
    for (int i = 0; i < KEYS; i++) {
      present[i] = i * 2;
      absent[i] = i * 2 + 1;
      ttls[i] = TTL.plusNanos(i);
    }
    ration = TtlCache.builder().maxEntries(MAX_ENTRIES).policy(EvictionPolicy.LRU).build();
    rationSoonestExpiring = TtlCache.builder().maxEntries(MAX_ENTRIES).policy(EvictionPolicy.SOONEST_EXPIRING).build();
    caffeine = Caffeine.newBuilder()
        .maximumSize(MAX_ENTRIES)
        .expireAfter(new Expiry<Integer, Integer>() {
          @Override
          public long expireAfterCreate(Integer key, Integer value, long currentTime) {
            return TTL.toNanos();
          }

          @Override
          public long expireAfterUpdate(Integer key, Integer value, long currentTime, long currentDuration) {
            return TTL.toNanos();
          }

          @Override
          public long expireAfterRead(Integer key, Integer value, long currentTime, long currentDuration) {
            return currentDuration;
          }
        })
        .recordStats()
        .build();
    caffeineTtl = caffeine.policy().expireVariably().orElseThrow();
    for (int i = 0; i < KEYS; i++) {
      ration.put(present[i], i, ttls[i]);
      rationSoonestExpiring.put(present[i], i, ttls[i]);
      caffeineTtl.put(present[i], i, ttls[i]);
    }
    caffeine.cleanUp();
    ration.cleanUp();
  }

  @Benchmark
  public Integer rationGetHit(Cursor c) {
    return ration.get(present[c.advance()]).orElse(null);
  }

  /** The same hit under a policy that reads do not change, so nothing is recorded: the cost of recording. */
  @Benchmark
  public Integer rationSoonestExpiringGetHit(Cursor c) {
    return rationSoonestExpiring.get(present[c.advance()]).orElse(null);
  }

  @Benchmark
  public Integer caffeineGetHit(Cursor c) {
    return caffeine.getIfPresent(present[c.advance()]);
  }

  @Benchmark
  public Integer rationGetMiss(Cursor c) {
    return ration.get(absent[c.advance()]).orElse(null);
  }

  @Benchmark
  public Integer caffeineGetMiss(Cursor c) {
    return caffeine.getIfPresent(absent[c.advance()]);
  }

  @Benchmark
  public void rationPut(Cursor c) {
    int i = c.advance();
    ration.put(present[i], i, ttls[i]);
  }

  @Benchmark
  public void caffeinePut(Cursor c) {
    int i = c.advance();
    caffeineTtl.put(present[i], i, ttls[i]);
  }
}
