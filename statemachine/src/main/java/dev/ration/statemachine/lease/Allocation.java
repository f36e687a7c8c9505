package dev.ration.statemachine.lease;

/**
 * The seam for allocation policies: how large one lease's share should be.
 *
 * <p>A policy only proposes; {@link LeaseLedger} enforces conservation by refusing any answer
 * outside {@code [0, available]}, so a policy bug can mis-split a limit but never over-grant it.
 * Policies must be pure functions of the request (no clock, no randomness): every replica asks.
 */
public interface Allocation {

  Shares allocate(AllocationRequest request);

  static Allocation forPolicy(Policy policy) {
    switch (policy) {
      case FREE_CAPACITY:
        return FreeCapacity.INSTANCE;
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
  }
}
