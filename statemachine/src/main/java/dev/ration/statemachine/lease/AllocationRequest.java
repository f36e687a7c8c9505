package dev.ration.statemachine.lease;

/**
 * What a policy may look at to size one lease. A record so that the demand-driven policies
 * (fair-share, proportional, static) can be given more context later (the other holders'
 * demand) without changing {@link Allocation}'s signature.
 *
 * @param limit the limit's configuration
 * @param demand what the holder asks for
 * @param current the lease's current share ({@link Shares#ZERO} for a new lease)
 * @param available the most the lease may hold: free capacity, plus what it already has counted
 *     on renewal. The ledger refuses (InvariantViolation) an answer above it.
 * @param leases leases of this limit before this grant
 */
public record AllocationRequest(
    Limit limit, Shares demand, Shares current, Shares available, int leases) {}
