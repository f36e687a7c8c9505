package dev.ration.client.ttl.cache;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The reference a {@link TtlCache} is checked against: the same rules, written as plainly as
 * possible, one thread, no index, no buffers. Every choice (which expired entry a sweep takes,
 * which live entry a policy gives up) is a minimum over all entries.
 */
final class CacheModel {
  static final long NEVER = Long.MAX_VALUE;

  static final class Entry {
    String value;
    long expiresAt;
    long bytes;
    long expirySequence;
    long uses;
    long lastTouch;

    @Override
    public String toString() {
      return value + "@" + expiresAt + " seq=" + expirySequence + " uses=" + uses + " touch=" + lastTouch;
    }
  }

  private final EvictionPolicy policy;
  private final long maxEntries;
  private final long maxBytes;
  private final int sweepBatch;
  final Map<String, Entry> entries = new HashMap<>();
  private long sequence;
  private long touches;
  long hits;
  long misses;
  long stored;
  long expired;
  long evictedForCapacity;
  long deleted;
  long replaced;
  long bytes;

  CacheModel(EvictionPolicy policy, long maxEntries, long maxBytes, int sweepBatch) {
    this.policy = policy;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.sweepBatch = sweepBatch;
  }

  static long weigh(String key, String value) {
    return key.length() + value.length();
  }

  Optional<String> get(String key, long now) {
    Entry e = entries.get(key);
    if (e != null && now < e.expiresAt) {
      hits++;
      touch(e);
      return Optional.of(e.value);
    }
    misses++;
    return Optional.empty();
  }

  Optional<Duration> ttl(String key, long now) {
    Entry e = entries.get(key);
    if (e == null || now >= e.expiresAt) {
      return Optional.empty();
    }
    return Optional.of(e.expiresAt == NEVER ? TtlCache.NO_EXPIRY
        : Duration.ofNanos(e.expiresAt).minus(Duration.ofNanos(now)));
  }

  void put(String key, String value, long expiresAt, long now) {
    sweep(now, TtlCache.SWEEP_PER_WRITE);
    store(key, value, expiresAt, now, live(key, now), false);
  }

  boolean putKeepTtl(String key, String value, long now) {
    sweep(now, TtlCache.SWEEP_PER_WRITE);
    Entry e = live(key, now);
    if (e == null) {
      return false;
    }
    store(key, value, e.expiresAt, now, e, true);
    return true;
  }

  boolean expire(String key, long expiresAt, long now) {
    sweep(now, TtlCache.SWEEP_PER_WRITE);
    Entry e = live(key, now);
    if (e == null) {
      return false;
    }
    if (expiresAt <= now) {
      remove(key, "expired");
      return true;
    }
    e.expiresAt = expiresAt;
    e.expirySequence = ++sequence;
    return true;
  }

  boolean delete(String key, long now) {
    sweep(now, TtlCache.SWEEP_PER_WRITE);
    if (live(key, now) == null) {
      return false;
    }
    remove(key, "deleted");
    return true;
  }

  int cleanUp(long now) {
    return sweep(now, sweepBatch);
  }

  Set<String> keys() {
    return Set.copyOf(entries.keySet());
  }

  private Entry live(String key, long now) {
    Entry e = entries.get(key);
    if (e != null && now >= e.expiresAt) {
      remove(key, "expired");
      return null;
    }
    return e;
  }

  private void store(String key, String value, long expiresAt, long now, Entry existing, boolean keepsExpiry) {
    stored++;
    long w = weigh(key, value);
    if (expiresAt <= now || w > maxBytes) {
      if (existing != null) {
        remove(key, "replaced");
      }
      if (expiresAt <= now) {
        expired++;
      } else {
        evictedForCapacity++;
      }
      return;
    }
    if (existing == null) {
      makeRoom(1, w, null, now);
      Entry e = new Entry();
      e.value = value;
      e.expiresAt = expiresAt;
      e.bytes = w;
      e.expirySequence = ++sequence;
      e.uses = 1;
      e.lastTouch = ++touches;
      entries.put(key, e);
      bytes += w;
    } else {
      makeRoom(0, w - existing.bytes, key, now);
      replaced++;
      bytes += w - existing.bytes;
      existing.bytes = w;
      existing.value = value;
      if (!keepsExpiry) {
        existing.expiresAt = expiresAt;
        existing.expirySequence = ++sequence;
      }
      touch(existing);
    }
  }

  private void makeRoom(long moreEntries, long moreBytes, String excluded, long now) {
    while (entries.size() + moreEntries > maxEntries || bytes + moreBytes > maxBytes) {
      String soonest = min(excluded, byExpiry());
      if (soonest != null && now >= entries.get(soonest).expiresAt) {
        remove(soonest, "expired");
        continue;
      }
      Comparator<Entry> order = switch (policy) {
        case LRU -> Comparator.comparingLong(e -> e.lastTouch);
        case LFU -> Comparator.<Entry>comparingLong(e -> e.uses).thenComparingLong(e -> e.lastTouch);
        case SOONEST_EXPIRING -> byExpiry();
      };
      String victim = min(excluded, order);
      if (victim == null) {
        throw new AssertionError("model found no victim");
      }
      remove(victim, "capacity");
    }
  }

  private int sweep(long now, int budget) {
    int removed = 0;
    while (removed < budget) {
      String soonest = min(null, byExpiry());
      if (soonest == null || now < entries.get(soonest).expiresAt) {
        break;
      }
      remove(soonest, "expired");
      removed++;
    }
    return removed;
  }

  private static Comparator<Entry> byExpiry() {
    return Comparator.<Entry>comparingLong(e -> e.expiresAt).thenComparingLong(e -> e.expirySequence);
  }

  private String min(String excluded, Comparator<Entry> order) {
    String best = null;
    for (Map.Entry<String, Entry> e : entries.entrySet()) {
      if (e.getKey().equals(excluded)) {
        continue;
      }
      if (best == null || order.compare(e.getValue(), entries.get(best)) < 0) {
        best = e.getKey();
      }
    }
    return best;
  }

  private void touch(Entry e) {
    e.uses++;
    e.lastTouch = ++touches;
  }

  private void remove(String key, String reason) {
    Entry e = entries.remove(key);
    bytes -= e.bytes;
    switch (reason) {
      case "expired" -> expired++;
      case "capacity" -> evictedForCapacity++;
      case "deleted" -> deleted++;
      case "replaced" -> replaced++;
      default -> throw new AssertionError(reason);
    }
  }
}
