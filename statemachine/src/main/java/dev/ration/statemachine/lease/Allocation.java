package dev.ration.statemachine.lease;

import dev.ration.wire.Policy;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;

/**
 * The seam for allocation policies: how large one lease's share should be.
 *
 * <p>A policy only proposes; {@link LeaseLedger} enforces conservation by refusing any answer
 * outside {@code [0, available]}, so a policy bug can mis-split a limit but never over-grant it.
 * Policies must be pure functions of the request (no clock, no randomness, integers only): every
 * replica asks.
 *
 * <p>The demand-driven policies ({@link Policy#FAIR_SHARE}, {@link Policy#PROPORTIONAL},
 * {@link Policy#STATIC}) first compute a {@link #target} for the requester from the split of R
 * and of B over all live holders ({@link #targets}), then clip it to what is available: a
 * holder above its target shrinks to it (the ledger keeps counting the old share until the
 * shrink is acknowledged or expires), a holder below grows only as far as free capacity allows.
 * Because every holder's target comes from the same split, Σ targets ≤ R and ≤ B; the clip makes
 * each grant safe on its own.
 */
public interface Allocation {

  /** The share to grant: the target clipped to {@code [0, available]}. */
  Shares allocate(AllocationRequest request);

  /** The share this holder should have if capacity were free (before the clip). */
  Shares target(AllocationRequest request);

  static Allocation forPolicy(Policy policy) {
    switch (policy) {
      case FREE_CAPACITY:
        return FreeCapacity.INSTANCE;
      case FAIR_SHARE:
      case PROPORTIONAL:
      case STATIC:
        return new DemandDriven(policy);
      default:
        throw new IllegalArgumentException("no allocation for policy " + policy);
    }
  }

  /** Grant min(demand, available) in each dimension: first come, first served. */
  final class FreeCapacity implements Allocation {
    static final FreeCapacity INSTANCE = new FreeCapacity();

    private FreeCapacity() {}

    @Override
    public Shares allocate(AllocationRequest request) {
      return new Shares(
          Math.min(request.demand().ratePerSecond(), request.available().ratePerSecond()),
          Math.min(request.demand().burst(), request.available().burst()));
    }

    @Override
    public Shares target(AllocationRequest request) {
      return request.demand();
    }
  }

  /** Fair-share, proportional and static: the requester's part of a split over all holders. */
  final class DemandDriven implements Allocation {
    private final Policy policy;

    DemandDriven(Policy policy) {
      this.policy = policy;
    }

    @Override
    public Shares target(AllocationRequest request) {
      List<AllocationRequest.Holder> holders = request.holdersWithSelf();
      long[] rates = new long[holders.size()];
      long[] bursts = new long[holders.size()];
      for (int i = 0; i < rates.length; i++) {
        rates[i] = holders.get(i).demand().ratePerSecond();
        bursts[i] = holders.get(i).demand().burst();
      }
      int self = request.selfIndex();
      return new Shares(
          targets(policy, request.limit().ratePerSecond(), rates)[self],
          targets(policy, request.limit().burst(), bursts)[self]);
    }

    @Override
    public Shares allocate(AllocationRequest request) {
      Shares target = target(request);
      return new Shares(
          Math.min(target.ratePerSecond(), request.available().ratePerSecond()),
          Math.min(target.burst(), request.available().burst()));
    }
  }

  /**
   * Splits {@code capacity} over holders with the given demands (index order = lease-id order,
   * which breaks ties: a unit that cannot be split goes to the lower index). Pure, integer,
   * Σ result ≤ capacity; every entry ≥ 0.
   *
   * <ul>
   *   <li>FAIR_SHARE: max-min fair (water-filling). Holders whose demand is at most the water
   *       level get their demand; the others get the level, the remainder +1 to the lowest
   *       indexes. Σ = min(capacity, Σ demand): capacity beyond total demand stays free.
   *   <li>PROPORTIONAL: the demand when Σ demand ≤ capacity, else floor(capacity·d / Σ d).
   *   <li>STATIC: capacity / n each, the remainder +1 to the lowest indexes (demand ignored).
   *   <li>FREE_CAPACITY: min(demand, capacity) each — not a split; Σ may exceed capacity (the
   *       ledger's clip to free capacity is what conserves under this policy).
   * </ul>
   */
  static long[] targets(Policy policy, long capacity, long[] demands) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity " + capacity + " < 0");
    }
    for (long d : demands) {
      if (d < 0) {
        throw new IllegalArgumentException("demand " + d + " < 0 in " + Arrays.toString(demands));
      }
    }
    switch (policy) {
      case FAIR_SHARE:
        return maxMinFair(capacity, demands);
      case PROPORTIONAL:
        return proportional(capacity, demands);
      case STATIC:
        return equal(capacity, demands.length);
      case FREE_CAPACITY: {
        long[] out = new long[demands.length];
        for (int i = 0; i < out.length; i++) {
          out[i] = Math.min(capacity, demands[i]);
        }
        return out;
      }
      default:
        throw new IllegalArgumentException("no split for policy " + policy);
    }
  }

  private static long[] maxMinFair(long capacity, long[] demands) {
    int n = demands.length;
    long[] out = new long[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (x, y) -> demands[x] != demands[y]
        ? Long.compare(demands[x], demands[y]) : Integer.compare(x, y));
    long remaining = capacity;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      int left = n - k;
      long level = remaining / left;
      if (demands[i] <= level) {
        out[i] = demands[i];
        remaining -= demands[i];
        continue;
      }
      // Everyone from here on demands more than the level: the level each, and the units that
      // do not divide go to the lowest indexes (stable, so targets do not flap between renewals).
      int[] rest = new int[left];
      for (int j = 0; j < left; j++) {
        rest[j] = order[k + j];
      }
      Arrays.sort(rest);
      long extra = remaining - level * left;
      for (int j : rest) {
        out[j] = level + (extra > 0 ? 1 : 0);
        extra--;
      }
      break;
    }
    return out;
  }

  private static long[] proportional(long capacity, long[] demands) {
    int n = demands.length;
    long[] out = new long[n];
    BigInteger sum = BigInteger.ZERO;
    for (long d : demands) {
      sum = sum.add(BigInteger.valueOf(d));
    }
    if (sum.compareTo(BigInteger.valueOf(capacity)) <= 0) {
      return demands.clone();
    }
    BigInteger c = BigInteger.valueOf(capacity);
    for (int i = 0; i < n; i++) {
      out[i] = c.multiply(BigInteger.valueOf(demands[i])).divide(sum).longValueExact();
    }
    return out;
  }

  private static long[] equal(long capacity, int n) {
    long[] out = new long[n];
    if (n == 0) {
      return out;
    }
    long each = capacity / n;
    long extra = capacity - each * n;
    for (int i = 0; i < n; i++) {
      out[i] = each + (i < extra ? 1 : 0);
    }
    return out;
  }
}
