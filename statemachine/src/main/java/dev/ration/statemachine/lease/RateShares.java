package dev.ration.statemachine.lease;

import static dev.ration.statemachine.lease.Arguments.negative;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.replica.Millis;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Policy;
import java.util.ArrayList;
import java.util.List;

/**
 * Rate and burst shares as what is leased: the demand is a (rate, burst) pair, the share comes
 * from the limit's {@link Allocation} policy over the live holders' reported demands, a new
 * lease starts with returned tokens from the pool, and a renewal reports the emergency tokens
 * its holder used.
 *
 * <p>One instance per AcquireLease or RenewLease, on the single applying thread.
 *
 * <p>Invariants: the policy's answer lies in [0, available] in both dimensions, else I1 is
 * broken and {@link #allocate} throws; a shrink in either dimension keeps the larger old share
 * counted until acknowledged (I2).
 */
final class RateShares extends Leased<Shares> {
  private final long emergencyUsed;

  private RateShares(Shares demand, long emergencyUsed, String... problems) {
    super(demand, Shares.ZERO, problems);
    this.emergencyUsed = emergencyUsed;
  }

  static RateShares acquiring(AcquireLease c) {
    return new RateShares(new Shares(c.demandRatePerSecond(), c.demandBurst()), 0,
        negative("demandRatePerSecond", c.demandRatePerSecond()),
        negative("demandBurst", c.demandBurst()));
  }

  static RateShares renewing(RenewLease c) {
    return new RateShares(new Shares(c.demandRatePerSecond(), c.demandBurst()), c.emergencyUsed(),
        negative("demandRatePerSecond", c.demandRatePerSecond()),
        negative("demandBurst", c.demandBurst()),
        negative("admittedPerSecond", c.admittedPerSecond()),
        negative("rejectedPerSecond", c.rejectedPerSecond()),
        negative("emergencyUsed", c.emergencyUsed()));
  }

  @Override
  Shares free(LimitLedger ledger) {
    return ledger.free();
  }

  @Override
  Shares share(Lease lease) {
    return new Shares(lease.rateShare(), lease.burstShare());
  }

  @Override
  Shares available(Lease lease, LimitLedger ledger) {
    Shares free = ledger.free();
    return new Shares(Millis.plus(lease.countedRate(), free.ratePerSecond()),
        Millis.plus(lease.countedBurst(), free.burst()));
  }

  @Override
  Shares allocate(LeaseBook book, LimitLedger ledger, long leaseId, Shares current,
      Shares available) {
    Shares target = Allocation.forPolicy(ledger.limit().policy()).allocate(
        request(book, ledger, leaseId, current, available));
    if (target.ratePerSecond() < 0 || target.burst() < 0
        || target.ratePerSecond() > available.ratePerSecond()
        || target.burst() > available.burst()) {
      throw new InvariantViolation("I1 policy " + ledger.limit().policy() + " proposed " + target
          + " outside [0, " + available + "] for demand " + demand() + " on "
          + ledger.limit().tenant() + "/" + ledger.limit().resource());
    }
    return target;
  }

  @Override
  Shares target(LeaseBook book, LimitLedger ledger, long leaseId, Shares current,
      Shares available) {
    return Allocation.forPolicy(ledger.limit().policy())
        .target(request(book, ledger, leaseId, current, available));
  }

  /**
   * The policy's input: under free-capacity the requester alone; else every live holder with
   * its last reported demand and the requester with its new one.
   */
  private AllocationRequest request(LeaseBook book, LimitLedger ledger, long leaseId,
      Shares current, Shares available) {
    if (ledger.limit().policy() == Policy.FREE_CAPACITY) {
      return new AllocationRequest(ledger.limit(), demand(), current, available,
          ledger.leaseCount());
    }
    List<AllocationRequest.Holder> holders = new ArrayList<>(ledger.leaseCount() + 1);
    int self = liveHolders(book, ledger, leaseId, other -> true,
        other -> new AllocationRequest.Holder(other.leaseId(), other.demand()),
        new AllocationRequest.Holder(leaseId, demand()), holders);
    return new AllocationRequest(ledger.limit(), demand(), current, available,
        ledger.leaseCount(), holders, self);
  }

  @Override
  Lease holding(Lease lease, Shares share) {
    return lease.withRate(share, demand());
  }

  @Override
  String exhausted(LimitLedger ledger, String tenant, String resource) {
    return "no free capacity on " + tenant + "/" + resource + ": counted rate "
        + ledger.countedRate() + " of " + ledger.limit().ratePerSecond() + ", counted burst "
        + ledger.countedBurst() + " + pool " + ledger.pool() + " of " + ledger.limit().burst();
  }

  /** Returned tokens go out once, as the starting balance of a new lease (I8). */
  @Override
  long startBalance(LimitLedger ledger, Shares granted) {
    long balance = Math.min(ledger.pool(), granted.burst());
    ledger.takeFromPool(balance);
    return balance;
  }

  @Override
  Result granted(Lease lease, LimitLedger ledger, long startBalance) {
    return new Result.LeaseGranted(LeaseReads.view(lease, ledger), startBalance);
  }

  @Override
  boolean shrinks(Shares target, Shares inUse) {
    return target.ratePerSecond() < inUse.ratePerSecond() || target.burst() < inUse.burst();
  }

  @Override
  PendingShrink keepCounting(PendingShrink pending, Shares inUse) {
    return new PendingShrink(Math.max(pending.rate(), inUse.ratePerSecond()),
        Math.max(pending.burst(), inUse.burst()), pending.slots(), pending.untilMillis());
  }

  @Override
  void reported(LimitLedger ledger) {
    ledger.reportEmergency(emergencyUsed);
  }

  @Override
  Result renewed(Lease lease, LimitLedger ledger) {
    return new Result.LeaseRenewed(LeaseReads.view(lease, ledger));
  }
}
