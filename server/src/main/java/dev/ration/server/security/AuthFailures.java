package dev.ration.server.security;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Failed authentications per source address: after {@code perMinute} failures within a minute
 * the address must wait before it may try again, 1 s doubling with each further failure, at
 * most 60 s. Bounded: at most {@link #ADDRESSES_MAX} addresses are tracked, the oldest dropped
 * first (a flood from many addresses forgets the oldest, it never grows the heap).
 *
 * <p>Thread-safe (synchronized; only failed or rate-limited HELLOs come here).
 */
final class AuthFailures {
  static final int ADDRESSES_MAX = 10_000;
  private static final long MINUTE_NANOS = 60_000_000_000L;

  private static final class Entry {
    long windowStartNanos;
    int failures;
    long blockedUntilNanos;
    int blocks;
  }

  private final int perMinute;
  private final LongSupplier nanoClock;
  private final LinkedHashMap<String, Entry> byAddress = new LinkedHashMap<>(16, 0.75f, true);

  AuthFailures(int perMinute, LongSupplier nanoClock) {
    this.perMinute = perMinute;
    this.nanoClock = nanoClock;
  }

  /** How long {@code address} must still wait before its next attempt (0 = may try now). */
  synchronized long waitMillis(String address) {
    Entry e = byAddress.get(address);
    if (e == null) {
      return 0;
    }
    long left = e.blockedUntilNanos - nanoClock.getAsLong();
    return left > 0 ? Math.max(1, left / 1_000_000) : 0;
  }

  synchronized void failed(String address) {
    long now = nanoClock.getAsLong();
    Entry e = byAddress.get(address);
    if (e == null) {
      e = new Entry();
      e.windowStartNanos = now;
      byAddress.put(address, e);
      trim();
    }
    if (now - e.windowStartNanos >= MINUTE_NANOS) {
      e.windowStartNanos = now;
      e.failures = 0;
      e.blocks = 0;
    }
    e.failures++;
    if (e.failures >= perMinute) {
      long backoffMillis = Math.min(60_000L, 1000L << Math.min(6, e.blocks));
      e.blocks++;
      e.blockedUntilNanos = now + backoffMillis * 1_000_000L;
    }
  }

  private void trim() {
    Iterator<Map.Entry<String, Entry>> it = byAddress.entrySet().iterator();
    while (byAddress.size() > ADDRESSES_MAX && it.hasNext()) {
      it.next();
      it.remove();
    }
  }

  synchronized int tracked() {
    return byAddress.size();
  }
}
