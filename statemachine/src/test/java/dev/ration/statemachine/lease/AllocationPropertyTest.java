package dev.ration.statemachine.lease;

import dev.ration.wire.lease.Limit;

import dev.ration.wire.Mode;

import dev.ration.wire.Policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * The splits behind the demand-driven policies ({@link Allocation#targets}): for random
 * capacities and demands, every policy's targets are non-negative and sum to at most the
 * capacity; fair-share is max-min fair and work-conserving up to demand (checked against an
 * independent unit-by-unit reference); proportional and static have their own defining
 * properties. Also: the clip to available never exceeds it.
 */
class AllocationPropertyTest {

  @Provide
  Arbitrary<long[]> demands() {
    Arbitrary<Long> small = Arbitraries.longs().between(0, 60);
    Arbitrary<Long> large = Arbitraries.longs().between(0, Long.MAX_VALUE / 2);
    return Arbitraries.oneOf(small, small, large).list().ofMinSize(0).ofMaxSize(8)
        .map(l -> l.stream().mapToLong(Long::longValue).toArray());
  }

  @Property(tries = 400)
  void everyPolicySumsToAtMostCapacity(@ForAll("demands") long[] demands,
      @ForAll @LongRange(min = 0, max = 500) long smallCapacity, @ForAll boolean huge) {
    long capacity = huge ? Long.MAX_VALUE / 3 : smallCapacity;
    for (Policy p : List.of(Policy.FAIR_SHARE, Policy.PROPORTIONAL, Policy.STATIC)) {
      long[] t = Allocation.targets(p, capacity, demands);
      BigInteger sum = BigInteger.ZERO;
      for (long x : t) {
        assertTrue(x >= 0, p + " negative target in " + Arrays.toString(t));
        sum = sum.add(BigInteger.valueOf(x));
      }
      assertTrue(sum.compareTo(BigInteger.valueOf(capacity)) <= 0,
          p + " targets " + Arrays.toString(t) + " sum " + sum + " > capacity " + capacity
              + " for demands " + Arrays.toString(demands));
    }
  }

  @Property(tries = 400)
  void fairShareIsMaxMinFair(@ForAll("demands") long[] demands,
      @ForAll @LongRange(min = 0, max = 500) long capacity) {
    long[] t = Allocation.targets(Policy.FAIR_SHARE, capacity, demands);
    BigInteger totalDemand = BigInteger.ZERO;
    long sum = 0;
    for (int i = 0; i < t.length; i++) {
      assertTrue(t[i] <= demands[i], "target " + t[i] + " above demand " + demands[i]);
      totalDemand = totalDemand.add(BigInteger.valueOf(demands[i]));
      sum += t[i];
    }
    // Work-conserving up to demand: nothing is left free while someone is short.
    assertEquals(totalDemand.min(BigInteger.valueOf(capacity)).longValueExact(), sum,
        "fair-share " + Arrays.toString(t) + " for " + Arrays.toString(demands) + " cap " + capacity);
    // Max-min: a holder below its demand could get more only by taking from a holder whose
    // allocation is at most one unit (integer granularity) above its own.
    for (int i = 0; i < t.length; i++) {
      if (t[i] < demands[i]) {
        for (int j = 0; j < t.length; j++) {
          assertTrue(t[j] <= t[i] + 1, "holder " + i + " short of demand at " + t[i]
              + " while holder " + j + " has " + t[j] + ": " + Arrays.toString(t)
              + " demands " + Arrays.toString(demands));
        }
      }
    }
    if (capacity <= 500 && Arrays.stream(demands).allMatch(d -> d <= 1_000)) {
      assertArrayEquals(unitByUnit(capacity, demands), t,
          "fair-share differs from the unit-by-unit reference for " + Arrays.toString(demands));
    }
  }

  @Property(tries = 300)
  void proportionalFollowsDemand(@ForAll("demands") long[] demands,
      @ForAll @LongRange(min = 0, max = 500) long capacity) {
    long[] t = Allocation.targets(Policy.PROPORTIONAL, capacity, demands);
    BigInteger total = BigInteger.ZERO;
    for (long d : demands) {
      total = total.add(BigInteger.valueOf(d));
    }
    if (total.compareTo(BigInteger.valueOf(capacity)) <= 0) {
      assertArrayEquals(demands, t, "everyone gets its demand when the total fits");
      return;
    }
    long sum = 0;
    for (int i = 0; i < t.length; i++) {
      sum += t[i];
      assertTrue(t[i] <= demands[i], "proportional target above demand");
      for (int j = 0; j < t.length; j++) {
        if (demands[i] <= demands[j]) {
          assertTrue(t[i] <= t[j], "more demand never gets less: " + Arrays.toString(t)
              + " for " + Arrays.toString(demands));
        }
      }
    }
    // Rounding down loses less than one unit per holder.
    assertTrue(capacity - sum < Math.max(1, t.length),
        "proportional leaves " + (capacity - sum) + " of " + capacity + " unallocated");
  }

  @Property(tries = 200)
  void staticSplitsEqually(@ForAll("demands") long[] demands,
      @ForAll @LongRange(min = 0, max = 500) long capacity) {
    long[] t = Allocation.targets(Policy.STATIC, capacity, demands);
    if (t.length == 0) {
      return;
    }
    long sum = Arrays.stream(t).sum();
    assertEquals(capacity, sum, "static hands out the whole capacity");
    long min = Arrays.stream(t).min().getAsLong();
    long max = Arrays.stream(t).max().getAsLong();
    assertTrue(max - min <= 1, "static split uneven: " + Arrays.toString(t));
  }

  @Property(tries = 300)
  void allocateNeverExceedsAvailable(@ForAll("demands") long[] demands,
      @ForAll @LongRange(min = 0, max = 500) long rate, @ForAll @LongRange(min = 0, max = 100) long burst,
      @ForAll @LongRange(min = 0, max = 500) long availableRate,
      @ForAll @LongRange(min = 0, max = 100) long availableBurst) {
    if (demands.length == 0) {
      return;
    }
    for (Policy p : Policy.values()) {
      Limit limit = new Limit("t", "r", rate, burst, Mode.HARD, 1000, 100, 0, p, 1);
      List<AllocationRequest.Holder> holders = new java.util.ArrayList<>();
      for (int i = 0; i < demands.length; i++) {
        holders.add(new AllocationRequest.Holder(i + 1, new Shares(demands[i], demands[i] % 101)));
      }
      int self = demands.length - 1;
      Shares available = new Shares(availableRate, availableBurst);
      Shares got = Allocation.forPolicy(p).allocate(new AllocationRequest(limit,
          holders.get(self).demand(), Shares.ZERO, available, demands.length - 1, holders, self));
      assertTrue(got.ratePerSecond() >= 0 && got.ratePerSecond() <= availableRate
          && got.burst() >= 0 && got.burst() <= availableBurst, p + " allocated " + got
          + " outside [0, " + available + "]");
    }
  }

  @Test
  void examples() {
    assertArrayEquals(new long[] {10, 45, 45}, Allocation.targets(Policy.FAIR_SHARE, 100, new long[] {10, 80, 50}));
    assertArrayEquals(new long[] {34, 33, 33}, Allocation.targets(Policy.FAIR_SHARE, 100, new long[] {90, 90, 90}));
    assertArrayEquals(new long[] {5, 7}, Allocation.targets(Policy.FAIR_SHARE, 100, new long[] {5, 7}));
    assertArrayEquals(new long[] {25, 75}, Allocation.targets(Policy.PROPORTIONAL, 100, new long[] {100, 300}));
    assertArrayEquals(new long[] {34, 33, 33}, Allocation.targets(Policy.STATIC, 100, new long[] {0, 0, 1000}));
  }

  /** Reference: hand out one unit at a time to the lowest allocation still short (ties: lowest index). */
  static long[] unitByUnit(long capacity, long[] demands) {
    long[] out = new long[demands.length];
    for (long unit = 0; unit < capacity; unit++) {
      int best = -1;
      for (int i = 0; i < demands.length; i++) {
        if (out[i] < demands[i] && (best < 0 || out[i] < out[best])) {
          best = i;
        }
      }
      if (best < 0) {
        break;
      }
      out[best]++;
    }
    return out;
  }
}
