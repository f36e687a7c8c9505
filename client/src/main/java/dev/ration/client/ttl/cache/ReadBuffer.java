package dev.ration.client.ttl.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The reads a {@link TtlCache} has yet to apply to its eviction order: striped, bounded and lossy,
 * so a read records itself with one CAS and never waits for the write lock. Readers choose a
 * stripe by thread, so threads rarely share one; a stripe is a ring of {@value #STRIPE_SLOTS}
 * slots. When a stripe is full the reader drains that stripe itself if the write lock is free,
 * and otherwise drops its read (so, under contention, LRU and LFU order are approximate, as in
 * Caffeine); a lost CAS drops the read too. A single thread therefore never loses a read.
 *
 * <p>Offers run on any thread; {@link #drain} only under the cache's write lock.
 */
final class ReadBuffer<N> {
  static final int STRIPE_SLOTS = 16;
  private static final int MASK = STRIPE_SLOTS - 1;
  /** Unused slots at each end of a stripe's array, so that two stripes' slots share no cache line. */
  private static final int SLOT_PADDING = 16;
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
    long tail = s.tail;
    if (tail - head >= STRIPE_SLOTS) {
      return Offer.FULL;
    }
    if (!Counters.TAIL.compareAndSet(s, tail, tail + 1)) {
      return Offer.LOST;
    }
    s.slots.lazySet(SLOT_PADDING + (int) (tail & MASK), node);
    return Offer.RECORDED;
  }

  /** Applies every recorded read, stripe by stripe, in each stripe's order. Under the write lock. */
  void drain(Consumer<? super N> apply) {
    for (Stripe<N> s : stripes) {
      drain(s, apply);
    }
  }

  /**
   * Applies the reads recorded in the calling thread's stripe, in order. Under the write lock.
   * A reader that found its stripe full drains only that one: the other stripes' slots stay in
   * their own threads' caches, and one thread's reads keep their order either way.
   */
  void drainOwnStripe(Consumer<? super N> apply) {
    drain(stripes[stripeOf(Thread.currentThread())], apply);
  }

  private static <N> void drain(Stripe<N> s, Consumer<? super N> apply) {
    long head = s.head;
    long tail = s.tail;
    while (head < tail) {
      int slot = SLOT_PADDING + (int) (head & MASK);
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

  private int stripeOf(Thread thread) {
    long h = thread.getId() * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 40) & stripeMask;
  }

  /*
   * A stripe's counters sit alone on their cache line (HotSpot lays a superclass's fields out
   * before a subclass's), so that one thread's CAS on its tail does not slow the reads of the
   * stripe next to it in memory.
   */

  /** Padding before the counters. */
  @SuppressWarnings("unused")
  private static class PaddingBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07;
  }

  /** {@code tail} counts claimed slots, {@code head} drained ones. */
  private static class Counters extends PaddingBefore {
    static final VarHandle TAIL;

    static {
      try {
        TAIL = MethodHandles.lookup().findVarHandle(Counters.class, "tail", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    volatile long tail;
    volatile long head;
  }

  /** Padding after the counters. */
  @SuppressWarnings("unused")
  private static class PaddingAfter extends Counters {
    long p10, p11, p12, p13, p14, p15, p16, p17;
  }

  /** One ring of {@value #STRIPE_SLOTS} slots between unused ones. */
  private static final class Stripe<N> extends PaddingAfter {
    final AtomicReferenceArray<N> slots = new AtomicReferenceArray<>(STRIPE_SLOTS + 2 * SLOT_PADDING);
  }
}
