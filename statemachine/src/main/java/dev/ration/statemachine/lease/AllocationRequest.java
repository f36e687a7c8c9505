package dev.ration.statemachine.lease;

import dev.ration.wire.lease.Limit;

import java.util.List;

/**
 * What a policy may look at to size one lease.
 *
 * @param limit the limit's configuration
 * @param demand what the holder asks for now
 * @param current the lease's current share ({@link Shares#ZERO} for a new lease)
 * @param available the most the lease may hold: free capacity, plus what it already has counted
 *     on renewal. The ledger refuses (InvariantViolation) an answer above it.
 * @param leases leases of this limit before this grant
 * @param holders the live holders of the limit in lease-id order (leases not yet expired, plus
 *     the requester), each with its last reported demand; the requester's entry carries
 *     {@code demand}. Empty when the caller gives no context (then the requester is alone).
 * @param self the requester's index in {@code holders} (0 when {@code holders} is empty)
 */
public record AllocationRequest(
    Limit limit, Shares demand, Shares current, Shares available, int leases,
    List<Holder> holders, int self) {

  /** One live holder: its lease id (the requester of an acquire: the id about to be minted). */
  public record Holder(long leaseId, Shares demand) {}

  public AllocationRequest {
    holders = List.copyOf(holders);
    if (!holders.isEmpty() && (self < 0 || self >= holders.size())) {
      throw new IllegalArgumentException("self " + self + " outside holders 0.." + (holders.size() - 1));
    }
  }

  /** Without the other holders: the requester alone (the original, free-capacity form). */
  public AllocationRequest(Limit limit, Shares demand, Shares current, Shares available, int leases) {
    this(limit, demand, current, available, leases, List.of(), 0);
  }

  /** The holders with the requester, whichever form was used. */
  public List<Holder> holdersWithSelf() {
    return holders.isEmpty() ? List.of(new Holder(0, demand)) : holders;
  }

  public int selfIndex() {
    return holders.isEmpty() ? 0 : self;
  }
}
