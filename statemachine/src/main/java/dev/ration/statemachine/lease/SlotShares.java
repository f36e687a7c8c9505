package dev.ration.statemachine.lease;

import static dev.ration.statemachine.lease.Arguments.negative;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;
import dev.ration.statemachine.replica.Millis;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Policy;
import java.util.ArrayList;
import java.util.List;

/**
 * Concurrency slots as what is leased: the demand is a count of jobs (running plus queued on
 * renewal), the share is the requester's part of the limit's cap C split by its policy over the
 * live slot holders, and a renewal may carry the holder's promise ({@code release}) to run at
 * most that many jobs until it has the answer — taken at its word: slots above it stop counting
 * at once, in any version. Rate and burst shares of the same lease are kept as they are.
 *
 * <p>One instance per AcquireSlots or slot renewal, on the single applying thread.
 *
 * <p>Invariants: the policy's target lies in [0, C], else I12 is broken and the target
 * throws; a slot share comes only from free slots or slots the lease already counts; a release
 * never lowers the counted slots below the new share (I12).
 */
final class SlotShares extends Leased<Long> {
  /** The holder's promise, or {@link SlotRenewal#NO_RELEASE}. */
  private final long release;

  private SlotShares(long demand, long release, String... problems) {
    super(demand, 0L, problems);
    this.release = release;
  }

  static SlotShares acquiring(AcquireSlots c) {
    return new SlotShares(c.demandSlots(), SlotRenewal.NO_RELEASE,
        negative("demandSlots", c.demandSlots()));
  }

  static SlotShares renewing(SlotRenewal c) {
    return new SlotShares(Millis.plus(c.running(), c.queued()), c.release(),
        negative("running", c.running()),
        negative("queued", c.queued()),
        c.release() < SlotRenewal.NO_RELEASE ? "release " + c.release() + " < -1" : null);
  }

  @Override
  Long free(LimitLedger ledger) {
    return ledger.freeSlots();
  }

  @Override
  Long share(Lease lease) {
    return lease.slotShare();
  }

  @Override
  Long available(Lease lease, LimitLedger ledger) {
    return Millis.plus(lease.countedSlots(), ledger.freeSlots());
  }

  @Override
  Long allocate(LeaseBook book, LimitLedger ledger, long leaseId, Long current, Long available) {
    return Math.min(target(book, ledger, leaseId, current, available), available);
  }

  /**
   * Under free-capacity the demand; else the requester's part of the split of C over the live
   * slot holders (leases that hold or ask for slots) with its new demand. A rate-only lease is
   * no slot holder, so a static split counts only slot holders.
   */
  @Override
  Long target(LeaseBook book, LimitLedger ledger, long leaseId, Long current, Long available) {
    long cap = ledger.concurrency();
    if (ledger.limit().policy() == Policy.FREE_CAPACITY) {
      return demand();
    }
    List<Long> demands = new ArrayList<>();
    int self = liveHolders(book, ledger, leaseId,
        other -> other.demandSlots() > 0 || other.slotShare() > 0, Lease::demandSlots, demand(),
        demands);
    long[] d = new long[demands.size()];
    for (int i = 0; i < d.length; i++) {
      d[i] = demands.get(i);
    }
    long target = Allocation.targets(ledger.limit().policy(), cap, d)[self];
    if (target < 0 || target > Math.max(cap, 0)) {
      throw new InvariantViolation("I12 policy " + ledger.limit().policy() + " proposed "
          + target + " slots outside [0, " + cap + "] on " + ledger.limit().tenant() + "/"
          + ledger.limit().resource());
    }
    return target;
  }

  @Override
  Lease holding(Lease lease, Long share) {
    return lease.withSlots(share, demand());
  }

  @Override
  String exhausted(LimitLedger ledger, String tenant, String resource) {
    return ledger.concurrency() == 0
        ? "limit " + tenant + "/" + resource + " has no concurrency cap"
        : "no free slots on " + tenant + "/" + resource + ": counted slots "
            + ledger.countedSlots() + " of " + ledger.concurrency();
  }

  @Override
  Result granted(Lease lease, LimitLedger ledger, long startBalance) {
    return new Result.SlotsGranted(LeaseReads.slotView(lease, ledger));
  }

  /** With a release, the holder runs no more than it promised (and never more than counted). */
  @Override
  Long inUse(Lease lease) {
    return release >= 0 ? Math.min(release, lease.countedSlots()) : lease.slotShare();
  }

  /** A release replaces whatever slots older versions still counted. */
  @Override
  PendingShrink released(PendingShrink pending) {
    return release >= 0
        ? new PendingShrink(pending.rate(), pending.burst(), 0, pending.untilMillis())
        : pending;
  }

  @Override
  boolean shrinks(Long target, Long inUse) {
    return target < inUse;
  }

  @Override
  PendingShrink keepCounting(PendingShrink pending, Long inUse) {
    return new PendingShrink(pending.rate(), pending.burst(), Math.max(pending.slots(), inUse),
        pending.untilMillis());
  }

  /** A release may have dropped the last pending amount: then nothing pending ends. */
  @Override
  PendingShrink settled(PendingShrink pending) {
    return pending.any() ? pending : pending.until(0);
  }

  @Override
  Result renewed(Lease lease, LimitLedger ledger) {
    return new Result.SlotsGranted(LeaseReads.slotView(lease, ledger));
  }
}
