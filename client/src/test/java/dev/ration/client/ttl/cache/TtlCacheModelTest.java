package dev.ration.client.ttl.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.time.MonotonicInstant;
import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import dev.ration.testkit.Rng;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of operations on a {@link TtlCache} with a hand-driven clock, against
 * {@link CacheModel}, under each policy: TTLs of zero, below zero, none, far beyond the clock's
 * range, and clock moves that land exactly on an entry's expiry; entry and byte bounds small
 * enough that most writes overflow them. After every step: the same answer as the model, no
 * expired value, the same entries held (so the same victims, in the policy's order, and the same
 * expired entries swept), exactly the model's counters, and {@link TtlCache#verify}.
 */
class TtlCacheModelTest {
  private static final List<String> KEYS = List.of("a", "b", "c", "d", "e", "f");

  @Test
  void lruAgreesWithTheModel() {
    Property.forAll(500, scenarios(EvictionPolicy.LRU), TtlCacheModelTest::run);
  }

  @Test
  void lfuAgreesWithTheModel() {
    Property.forAll(500, scenarios(EvictionPolicy.LFU), TtlCacheModelTest::run);
  }

  @Test
  void soonestExpiringAgreesWithTheModel() {
    Property.forAll(500, scenarios(EvictionPolicy.SOONEST_EXPIRING), TtlCacheModelTest::run);
  }

  /**
   * One operation, applied to the cache and the model alike, with their answers compared;
   * {@code toString} is what a failure prints.
   */
  sealed interface Op {
    void apply(Harness h, String step);
  }

  /** The cache under test, its model and their clock. */
  record Harness(TtlCache<String, String> cache, CacheModel model, AtomicLong clock) {
    long now() {
      return clock.get();
    }
  }

  /** {@code put(key, value, ttl)}; a null TTL is {@code put(key, value)}. */
  record Put(String key, String value, Duration ttl) implements Op {
    @Override
    public void apply(Harness h, String step) {
      if (ttl == null) {
        h.cache().put(key, value);
        h.model().put(key, value, CacheModel.NEVER, h.now());
      } else {
        h.cache().put(key, value, ttl);
        h.model().put(key, value, TtlCache.expiryOf(h.now(), ttl), h.now());
      }
    }
  }

  /** {@code putUntil(key, value, now + offset)}, or at {@code Long.MAX_VALUE} when {@code atEnd}. */
  record PutUntil(String key, String value, long offsetNanos, boolean atEnd) implements Op {
    @Override
    public void apply(Harness h, String step) {
      long at = atEnd ? Long.MAX_VALUE : h.now() + offsetNanos;
      h.cache().putUntil(key, value, new MonotonicInstant(at));
      h.model().put(key, value, at, h.now());
    }
  }

  record PutKeepTtl(String key, String value) implements Op {
    @Override
    public void apply(Harness h, String step) {
      assertEquals(h.model().putKeepTtl(key, value, h.now()), h.cache().putKeepTtl(key, value), step);
    }
  }

  /** {@code expire(key, ttl)}; a null TTL is {@link TtlCache#NO_EXPIRY}. */
  record Expire(String key, Duration ttl) implements Op {
    @Override
    public void apply(Harness h, String step) {
      long at = ttl == null ? CacheModel.NEVER : TtlCache.expiryOf(h.now(), ttl);
      assertEquals(h.model().expire(key, at, h.now()),
          h.cache().expire(key, ttl == null ? TtlCache.NO_EXPIRY : ttl), step);
    }
  }

  record Get(String key) implements Op {
    @Override
    public void apply(Harness h, String step) {
      Optional<String> got = h.cache().get(key);
      assertEquals(h.model().get(key, h.now()), got, step);
      if (got.isPresent()) {
        long expiresAt = h.model().entries.get(key).expiresAt;
        assertTrue(h.now() < expiresAt, step + ": returned a value expired at " + expiresAt);
      }
    }
  }

  record Ttl(String key) implements Op {
    @Override
    public void apply(Harness h, String step) {
      assertEquals(h.model().ttl(key, h.now()), h.cache().ttl(key), step);
    }
  }

  record Delete(String key) implements Op {
    @Override
    public void apply(Harness h, String step) {
      assertEquals(h.model().delete(key, h.now()), h.cache().delete(key), step);
    }
  }

  record CleanUp() implements Op {
    @Override
    public void apply(Harness h, String step) {
      assertEquals(h.model().cleanUp(h.now()), h.cache().cleanUp(), step);
    }
  }

  record Advance(long nanos) implements Op {
    @Override
    public void apply(Harness h, String step) {
      h.clock().addAndGet(nanos);
    }
  }

  /** Moves the clock to exactly the key's expiry, when that is finite and ahead. */
  record AdvanceToExpiry(String key) implements Op {
    @Override
    public void apply(Harness h, String step) {
      CacheModel.Entry e = h.model().entries.get(key);
      if (e != null && e.expiresAt != CacheModel.NEVER && e.expiresAt > h.now()
          && e.expiresAt - h.now() < (1L << 41)) {
        h.clock().set(e.expiresAt);
      }
    }
  }

  record Scenario(EvictionPolicy policy, long maxEntries, long maxBytes, int sweepBatch, long startNanos,
      List<Op> ops) {
    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(String.format(
          "%s maxEntries=%d maxBytes=%d sweepBatch=%d start=%d, %d ops:",
          policy, maxEntries, maxBytes, sweepBatch, startNanos, ops.size()));
      for (int i = 0; i < ops.size(); i++) {
        s.append("\n    ").append(i).append(": ").append(ops.get(i));
      }
      return s.toString();
    }
  }

  static Gen<Scenario> scenarios(EvictionPolicy policy) {
    return r -> new Scenario(policy, r.between(1L, 5L),
        r.bool() ? Long.MAX_VALUE : r.between(3L, 20L), r.between(1, 3),
        r.between(-(1L << 40), 1L << 40), r.list(30, 300, TtlCacheModelTest::op));
  }

  static Op op(Rng r) {
    String key = r.oneOf(KEYS);
    return switch (r.uniform(0, 13)) {
      case 0, 1 -> new Put(key, value(r), ttl(r));
      case 2 -> new PutUntil(key, value(r), r.between(-3L, 12L), r.oneIn(10));
      case 3 -> new PutKeepTtl(key, value(r));
      case 4 -> new Expire(key, ttl(r));
      case 5, 6, 7 -> new Get(key);
      case 8 -> new Ttl(key);
      case 9 -> new Delete(key);
      case 10 -> new CleanUp();
      case 11 -> new AdvanceToExpiry(key);
      default -> new Advance(r.between(0L, 6L));
    };
  }

  private static String value(Rng r) {
    return "v".repeat(r.between(0, 8));
  }

  /** Null (no expiry), zero, negative, short, or longer than the clock can count. */
  private static Duration ttl(Rng r) {
    return switch (r.uniform(0, 9)) {
      case 0 -> null;
      case 1 -> Duration.ZERO;
      case 2 -> Duration.ofNanos(r.between(-5L, -1L));
      case 3 -> Duration.ofDays(r.between(365L * 300, 365L * 1000));
      case 4 -> TtlCache.NO_EXPIRY;
      default -> Duration.ofNanos(r.between(1L, 12L));
    };
  }

  static void run(Scenario s) {
    AtomicLong clock = new AtomicLong(s.startNanos());
    TtlCache<String, String> cache = TtlCache.builder()
        .maxEntries(s.maxEntries())
        .maxBytes(s.maxBytes(), (String k, String v) -> CacheModel.weigh(k, v))
        .policy(s.policy())
        .sweepBatch(s.sweepBatch())
        .clock(clock::get)
        .build();
    CacheModel model = new CacheModel(s.policy(), s.maxEntries(), s.maxBytes(), s.sweepBatch());
    Harness h = new Harness(cache, model, clock);
    int done = 0;
    for (Op op : s.ops()) {
      String step = "after step " + done + " " + op + " at " + clock.get();
      op.apply(h, step);
      done++;
      cache.verify();
      assertEquals(model.keys(), cache.storedKeys(), step + ": entries held");
      CacheStats stats = cache.stats();
      CacheStats expected = new CacheStats(model.hits, model.misses, 0, 0, model.stored, model.expired,
          model.evictedForCapacity, model.deleted, model.replaced, model.entries.size(), model.bytes);
      assertEquals(expected, stats, step + ": counters");
    }
  }
}
