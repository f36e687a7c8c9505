package dev.ration.statemachine.lease;

import dev.ration.wire.lease.Limit;

import dev.ration.wire.Mode;

import dev.ration.wire.Policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The splits behind the demand-driven policies ({@link Allocation#targets}): for random
 * capacities and demands, every policy's targets are non-negative and sum to at most the
 * capacity; fair-share is max-min fair and work-conserving up to demand (checked against an
 * independent unit-by-unit reference); proportional and static have their own defining
 * properties. Also: the clip to available never exceeds it.
 */
class AllocationPropertyTest {

  /**
   * 0–8 holders' demands, each small (0–60) two times in three and otherwise up to
   * {@code Long.MAX_VALUE / 2}, so sums overflow a long.
   */
  static final Gen<long[]> DEMANDS = r -> {
    long[] demands = new long[r.size(0, 8)];
    for (int i = 0; i < demands.length; i++) {
      demands[i] = r.uniform(0, 2) < 2 ? r.between(0, 60) : r.between(0, Long.MAX_VALUE / 2);
    }
    return demands;
  };

  /** Demands with a capacity; printed with the demands' values. */
  record Split(long[] demands, long capacity) {
    @Override
    public String toString() {
      return "Split[demands=" + Arrays.toString(demands) + ", capacity=" + capacity + "]";
    }
  }

  /** Demands with a capacity of 0–500. */
  static final Gen<Split> SPLITS = r -> new Split(DEMANDS.next(r), r.between(0, 500));

  @Test
  void everyPolicySumsToAtMostCapacity() {
    // A capacity of 0–500, or half the time Long.MAX_VALUE / 3.
    Gen<Split> splits = r -> {
      long[] demands = DEMANDS.next(r);
      long smallCapacity = r.between(0, 500);
      return new Split(demands, r.bool() ? Long.MAX_VALUE / 3 : smallCapacity);
    };
    Property.forAll(400, splits, split -> {
      long[] demands = split.demands();
      long capacity = split.capacity();
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
    });
  }

  @Test
  void fairShareIsMaxMinFair() {
    Property.forAll(400, SPLITS, split -> {
      long[] demands = split.demands();
      long capacity = split.capacity();
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
    });
  }

  @Test
  void proportionalFollowsDemand() {
    Property.forAll(300, SPLITS, split -> {
      long[] demands = split.demands();
      long capacity = split.capacity();
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
    });
  }

  @Test
  void staticSplitsEqually() {
    Property.forAll(200, SPLITS, split -> {
      long[] t = Allocation.targets(Policy.STATIC, split.capacity(), split.demands());
      if (t.length == 0) {
        return;
      }
      long sum = Arrays.stream(t).sum();
      assertEquals(split.capacity(), sum, "static hands out the whole capacity");
      long min = Arrays.stream(t).min().getAsLong();
      long max = Arrays.stream(t).max().getAsLong();
      assertTrue(max - min <= 1, "static split uneven: " + Arrays.toString(t));
    });
  }

  /** Demands with a limit's rate (0–500) and burst (0–100) and what is available of each. */
  record Offer(long[] demands, long rate, long burst, long availableRate, long availableBurst) {
    @Override
    public String toString() {
      return "Offer[demands=" + Arrays.toString(demands) + ", rate=" + rate + ", burst=" + burst
          + ", availableRate=" + availableRate + ", availableBurst=" + availableBurst + "]";
    }
  }

  @Test
  void allocateNeverExceedsAvailable() {
    Gen<Offer> offers = r -> new Offer(DEMANDS.next(r), r.between(0, 500), r.between(0, 100),
        r.between(0, 500), r.between(0, 100));
    Property.forAll(300, offers, offer -> {
      long[] demands = offer.demands();
      if (demands.length == 0) {
        return;
      }
      for (Policy p : Policy.values()) {
        Limit limit = new Limit("t", "r", offer.rate(), offer.burst(), Mode.HARD, 1000, 100, 0, p, 1);
        List<AllocationRequest.Holder> holders = new java.util.ArrayList<>();
        for (int i = 0; i < demands.length; i++) {
          holders.add(new AllocationRequest.Holder(i + 1, new Shares(demands[i], demands[i] % 101)));
        }
        int self = demands.length - 1;
        Shares available = new Shares(offer.availableRate(), offer.availableBurst());
        Shares got = Allocation.forPolicy(p).allocate(new AllocationRequest(limit,
            holders.get(self).demand(), Shares.ZERO, available, demands.length - 1, holders, self));
        assertTrue(got.ratePerSecond() >= 0 && got.ratePerSecond() <= offer.availableRate()
            && got.burst() >= 0 && got.burst() <= offer.availableBurst(), p + " allocated " + got
            + " outside [0, " + available + "]");
      }
    });
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
