package dev.ration.client.ttl.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.time.MonotonicInstant;
import dev.ration.testkit.Waits;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link TtlCache}'s rules, one at a time, with explicit times on a hand-driven clock. */
class TtlCacheTest {
  private final AtomicLong clock = new AtomicLong(1_000);

  private TtlCache<String, String> cache(EvictionPolicy policy, long maxEntries) {
    return TtlCache.builder().maxEntries(maxEntries).policy(policy).clock(clock::get).build();
  }

  @Test
  void theInstantOfExpiryIsExpired() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 10);
    cache.put("k", "v", Duration.ofNanos(10));
    clock.set(1_009);
    assertEquals(Optional.of("v"), cache.get("k"));
    assertEquals(Optional.of(Duration.ofNanos(1)), cache.ttl("k"));
    clock.set(1_010);
    assertEquals(Optional.empty(), cache.get("k"));
    assertEquals(Optional.empty(), cache.ttl("k"));
    assertEquals(1, cache.stats().entries(), "still held until swept");
    assertEquals(1, cache.cleanUp());
    assertEquals(1, cache.stats().expired());
    cache.verify();
  }

  @Test
  void aTtlOfZeroOrLessLeavesTheKeyAbsent() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 10);
    cache.put("k", "old");
    cache.put("k", "new", Duration.ZERO);
    assertEquals(Optional.empty(), cache.get("k"));
    cache.put("k", "old");
    cache.put("k", "newer", Duration.ofNanos(-5));
    cache.putUntil("j", "v", new MonotonicInstant(clock.get()));
    assertEquals(Optional.empty(), cache.get("j"));
    CacheStats stats = cache.stats();
    assertEquals(5, stats.stored());
    assertEquals(2, stats.replaced(), "the old values");
    assertEquals(3, stats.expired(), "the values written already expired");
    assertEquals(0, stats.entries());
    cache.verify();
  }

  @Test
  void putKeepTtlKeepsTheExpiryAndLeavesAnAbsentKeyAlone() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 10);
    assertFalse(cache.putKeepTtl("k", "v"));
    assertEquals(Optional.empty(), cache.get("k"));
    cache.put("k", "v", Duration.ofNanos(10));
    clock.addAndGet(4);
    assertTrue(cache.putKeepTtl("k", "w"));
    assertEquals(Optional.of(Duration.ofNanos(6)), cache.ttl("k"));
    assertEquals(Optional.of("w"), cache.get("k"));
    clock.addAndGet(6);
    assertFalse(cache.putKeepTtl("k", "x"), "expired");
    assertEquals(Optional.empty(), cache.get("k"));
    cache.verify();
  }

  @Test
  void expireSetsANewTtlAndZeroRemovesTheKey() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 10);
    cache.put("k", "v");
    assertEquals(Optional.of(TtlCache.NO_EXPIRY), cache.ttl("k"));
    assertTrue(cache.expire("k", Duration.ofNanos(3)));
    assertEquals(Optional.of(Duration.ofNanos(3)), cache.ttl("k"));
    assertTrue(cache.expire("k", Duration.ZERO));
    assertEquals(Optional.empty(), cache.get("k"));
    assertFalse(cache.expire("k", Duration.ofSeconds(1)));
    assertEquals(1, cache.stats().expired());
  }

  @Test
  void deleteOfAnExpiredKeyAnswersFalseAndCountsItExpired() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 10);
    cache.put("live", "v");
    cache.put("old", "v", Duration.ofNanos(1));
    clock.addAndGet(1);
    assertTrue(cache.delete("live"));
    assertFalse(cache.delete("old"));
    CacheStats stats = cache.stats();
    assertEquals(1, stats.deleted());
    assertEquals(1, stats.expired());
  }

  @Test
  void aValueHeavierThanTheByteBoundIsNotKept() {
    TtlCache<String, String> cache = TtlCache.builder()
        .maxBytes(5, (String k, String v) -> v.length()).clock(clock::get).build();
    cache.put("k", "abc");
    cache.put("j", "ab");
    cache.put("k", "abcdef");
    assertEquals(Optional.empty(), cache.get("k"), "neither the new value nor the old one");
    assertEquals(Optional.of("ab"), cache.get("j"), "nothing else was evicted for it");
    assertEquals(1, cache.stats().evictedForCapacity());
    assertEquals(1, cache.stats().replaced());
  }

  @Test
  void expiredEntriesGoBeforeAnyLiveOne() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 2);
    cache.put("old", "v");
    cache.put("short", "v", Duration.ofNanos(1));
    clock.addAndGet(1);
    cache.get("old");
    cache.put("new", "v");
    assertEquals(Set.of("old", "new"), cache.storedKeys());
    assertEquals(1, cache.stats().expired());
    assertEquals(0, cache.stats().evictedForCapacity());
  }

  @Test
  void lruGivesUpTheEntryUsedLongestAgo() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 2);
    cache.put("a", "v");
    cache.put("b", "v");
    cache.get("a");
    cache.put("c", "v");
    assertEquals(Set.of("a", "c"), cache.storedKeys());
  }

  @Test
  void lfuGivesUpTheEntryUsedLeast() {
    TtlCache<String, String> cache = cache(EvictionPolicy.LFU, 2);
    cache.put("a", "v");
    cache.get("a");
    cache.get("a");
    cache.put("b", "v");
    cache.get("b");
    cache.put("c", "v");
    assertEquals(Set.of("a", "c"), cache.storedKeys());
  }

  @Test
  void soonestExpiringGivesUpTheEntryClosestToItsExpiry() {
    TtlCache<String, String> cache = cache(EvictionPolicy.SOONEST_EXPIRING, 2);
    cache.put("never", "v");
    cache.put("soon", "v", Duration.ofNanos(5));
    cache.get("soon");
    cache.put("later", "v", Duration.ofNanos(50));
    assertEquals(Set.of("never", "later"), cache.storedKeys());
  }

  @Test
  void writesSweepAFewExpiredEntriesAndCleanUpABatch() {
    TtlCache<String, String> cache = TtlCache.builder().maxEntries(100).sweepBatch(10).clock(clock::get).build();
    for (int i = 0; i < 30; i++) {
      cache.put("k" + i, "v", Duration.ofNanos(1));
    }
    clock.addAndGet(1);
    cache.put("x", "v");
    assertEquals(31 - TtlCache.SWEEP_PER_WRITE, cache.stats().entries());
    assertEquals(10, cache.cleanUp());
    assertEquals(10, cache.cleanUp());
    assertEquals(6, cache.cleanUp());
    assertEquals(0, cache.cleanUp());
    assertEquals(1, cache.stats().entries());
    cache.verify();
  }

  @Test
  void theBackgroundSweepRemovesExpiredEntries() throws InterruptedException {
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    try (TtlCache<String, String> cache = TtlCache.builder().clock(clock::get)
        .sweepEvery(Duration.ofMillis(1), executor).build()) {
      cache.put("k", "v", Duration.ofNanos(5));
      clock.addAndGet(5);
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(2))
          .until("the sweep removed the expired entry", () -> cache.stats(), s -> s.expired() == 1);
      assertEquals(0, cache.stats().entries());
    } finally {
      executor.shutdownNow();
      assertTrue(executor.awaitTermination(30, TimeUnit.SECONDS));
    }
  }

  @Test
  void theBuilderRefusesBoundsThatAreNotPositive() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TtlCache.builder().maxEntries(0).build());
    assertTrue(e.getMessage().contains("maxEntries 0"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TtlCache.builder().sweepBatch(-1).build());
  }

  @Test
  void aNegativeWeightIsRefused() {
    TtlCache<String, String> cache = TtlCache.builder().maxBytes(10, (String k, String v) -> -1).build();
    assertThrows(IllegalArgumentException.class, () -> cache.put("k", "v"));
    cache.verify();
  }

  @Test
  void aTtlBeyondTheClocksRangeSaturatesInsteadOfWrapping() {
    clock.set(Long.MAX_VALUE - 10);
    TtlCache<String, String> cache = cache(EvictionPolicy.LRU, 10);
    cache.put("k", "v", Duration.ofDays(365L * 1000));
    assertEquals(Optional.of("v"), cache.get("k"));
    assertEquals(Optional.of(TtlCache.NO_EXPIRY), cache.ttl("k"));
  }
}
