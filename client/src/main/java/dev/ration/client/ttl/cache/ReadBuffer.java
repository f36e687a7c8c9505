package dev.ration.client.ttl.cache;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The reads a {@link TtlCache} has yet to apply to its eviction order: striped, bounded and lossy,
 * so a read records itself with one CAS and never waits for the write lock. Readers choose a
 * stripe by thread, so threads rarely share one; a stripe is a ring of {@value #STRIPE_SLOTS}
 * slots. When a stripe is full the reader drains every stripe itself if the write lock is free,
 * and otherwise drops its read (so, under contention, LRU and LFU order are approximate, as in
 * Caffeine); a lost CAS drops the read too. A single thread therefore never loses a read.
 *
 * <p>Offers run on any thread; {@link #drain} only under the cache's write lock.
 */
final class ReadBuffer<N> {
  static final int STRIPE_SLOTS = 16;
  private static final int MASK = STRIPE_SLOTS - 1;
  private static final int MAX_STRIPES = 64;

  enum Offer {
    RECORDED,
    /** The stripe is full: drain it, or drop the read. */
    FULL,
    /** Another reader took the slot first; the read is dropped. */
    LOST
  }

  private final Stripe<N>[] stripes;
  private final int stripeMask;

  @SuppressWarnings("unchecked")
  ReadBuffer(int processors) {
    int n = Integer.highestOneBit(Math.max(1, Math.min(MAX_STRIPES, processors * 4)) * 2 - 1);
    stripes = new Stripe[n];
    for (int i = 0; i < n; i++) {
      stripes[i] = new Stripe<>();
    }
    stripeMask = n - 1;
  }

  Offer offer(N node) {
    Stripe<N> s = stripes[stripeOf(Thread.currentThread())];
    long head = s.head;
    long tail = s.tail.get();
    if (tail - head >= STRIPE_SLOTS) {
      return Offer.FULL;
    }
    if (!s.tail.compareAndSet(tail, tail + 1)) {
      return Offer.LOST;
    }
    s.slots.lazySet((int) (tail & MASK), node);
    return Offer.RECORDED;
  }

  /** Applies every recorded read, stripe by stripe, in each stripe's order. Under the write lock. */
  void drain(Consumer<? super N> apply) {
    for (Stripe<N> s : stripes) {
      long head = s.head;
      long tail = s.tail.get();
      while (head < tail) {
        int slot = (int) (head & MASK);
        N node = s.slots.get(slot);
        if (node == null) {
          // A reader claimed this slot and has not filled it yet; the next drain takes it.
          break;
        }
        s.slots.lazySet(slot, null);
        apply.accept(node);
        head++;
      }
      s.head = head;
    }
  }

  private int stripeOf(Thread thread) {
    long h = thread.getId() * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 40) & stripeMask;
  }

  /** One ring; {@code tail} counts claimed slots, {@code head} drained ones. */
  private static final class Stripe<N> {
    final AtomicReferenceArray<N> slots = new AtomicReferenceArray<>(STRIPE_SLOTS);
    final AtomicLong tail = new AtomicLong();
    volatile long head;
  }
}
