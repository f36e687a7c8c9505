package dev.ration.statemachine.lease;

import dev.ration.wire.placement.SlotIds;
import static dev.ration.statemachine.lease.Arguments.firstInvalid;
import static dev.ration.statemachine.lease.Arguments.invalid;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Millis;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Leasing: admission (acquire), renewal and return of leases — one path for rate leases and
 * slot leases alike, parameterised by {@link Leased} (what is leased: {@link RateShares} or
 * {@link SlotShares}).
 *
 * <p>Allocation (docs/LIMITER.md): each lease keeps the demand its holder last reported; on
 * acquire and renew the limit's policy proposes the requester's share from the live holders'
 * demands, and it is clipped to what is available — the lease's own counted share plus free
 * capacity — so a shrink is two-phase and growth comes only from capacity that is free now.
 * A demand-driven policy grants a lease even when nothing is free yet, as long as the holder's
 * fair target is positive: the lease puts its demand on record, so the others shrink towards
 * their targets at their next renewals, and this one grows at its own.
 *
 * <p>Thread: the single applying thread. Holds no state: it works on the {@link LeaseBook}.
 *
 * <p>Invariants: a grant never exceeds what is free or already counted (I1, I12, enforced by
 * {@link Leased#allocate}); a shrink keeps the old share counted until the holder presents the
 * new version or the old one's countedUntil passes (I2); lease ids and versions are minted only
 * for what is granted (I7); the pool is credited only from a live lease's return, at most its
 * burst share and what fits under B (I8).
 */
final class Leasing {
  private final StateOptions options;
  private final ApplyContext context;
  private final LeaseBook book;
  private final Arguments arguments;

  Leasing(StateOptions options, ApplyContext context, LeaseBook book, Arguments arguments) {
    this.options = options;
    this.context = context;
    this.book = book;
    this.arguments = arguments;
  }

  /** AcquireLease and AcquireSlots: a new lease for {@code holder} on tenant/resource. */
  <A> Result acquire(String tenant, String resource, String holder, Leased<A> what) {
    Optional<Result> bad = firstInvalid(arguments.badName("tenant", tenant),
        arguments.badName("resource", resource), arguments.badName("holder", holder));
    if (bad.isEmpty()) {
      bad = firstInvalid(what.problems());
    }
    if (bad.isPresent()) {
      return bad.get();
    }
    LimitLedger ledger = book.limit(new LimitKey(tenant, resource));
    if (ledger == null) {
      return new Result.Rejected(Outcome.LIMIT_UNKNOWN,
          "no limit for tenant " + tenant + " resource " + resource, 0, 0);
    }
    Limit limit = ledger.limit();
    if (ledger.leaseCount() >= options.maxLeasesPerLimit()) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          "limit " + tenant + "/" + resource + " holds " + ledger.leaseCount()
              + " leases, maxLeasesPerLimit " + options.maxLeasesPerLimit(),
          retryAfterMillis(ledger), 0);
    }
    long leaseId = book.peekLeaseId(tenant);
    A free = what.free(ledger);
    A granted = what.allocate(book, ledger, leaseId, what.none(), free);
    boolean waitForShare = limit.policy() != Policy.FREE_CAPACITY
        && !what.isNone(what.target(book, ledger, leaseId, what.none(), free));
    if (!what.isNone(what.demand()) && what.isNone(granted) && !waitForShare) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          what.exhausted(ledger, tenant, resource), retryAfterMillis(ledger), 0);
    }
    book.mintLeaseId(tenant);
    long version = context.mintVersion();
    long startBalance = what.startBalance(ledger, granted);
    long now = book.nowMillis();
    long expiresAt = Millis.plus(now, limit.leaseDurationMillis());
    long countedUntil = Millis.plus(expiresAt, limit.graceMillis());
    Lease lease = what.holding(Lease.granted(leaseId, tenant, resource, holder, book.epoch(),
        version, now, expiresAt, countedUntil), granted);
    book.putLease(null, lease, ledger);
    return what.granted(lease, ledger, startBalance);
  }

  /**
   * RenewLease and a slot renewal: the next version of lease {@code leaseId} with the share the
   * policy gives its new demand. Presenting the current version acknowledges it, which ends any
   * pending shrink; presenting an older one keeps what older versions still count.
   */
  <A> Result renew(long leaseId, long presentedVersion, Leased<A> what) {
    Optional<Result> bad = firstInvalid(what.problems());
    if (bad.isPresent()) {
      return bad.get();
    }
    Result.Rejected refused = refuseRenewal(leaseId, presentedVersion);
    if (refused != null) {
      return refused;
    }
    Lease lease = book.lease(leaseId);
    LimitLedger ledger = book.ledgerOf(lease);
    Limit limit = ledger.limit();
    boolean acknowledged = presentedVersion == lease.version();
    PendingShrink pending =
        what.released(acknowledged ? PendingShrink.NONE : PendingShrink.of(lease));
    A inUse = what.inUse(lease);
    A target = what.allocate(book, ledger, leaseId, what.share(lease),
        what.available(lease, ledger));
    if (what.shrinks(target, inUse)) {
      // Two-phase shrink: the holder may still be using the current version's share until it
      // acknowledges the smaller version, so keep counting it until then or until the current
      // version could no longer be in use (its countedUntil, which includes grace and any
      // NewEpoch extension).
      long until = pending.any()
          ? Math.max(pending.untilMillis(), lease.countedUntilMillis())
          : lease.countedUntilMillis();
      pending = what.keepCounting(pending, inUse).until(until);
    }
    pending = what.settled(pending);
    long now = book.nowMillis();
    long expiresAt = Millis.plus(now, limit.leaseDurationMillis());
    long countedUntil = Math.max(lease.countedUntilMillis(),
        Millis.plus(expiresAt, limit.graceMillis()));
    Lease renewed = what.holding(lease.renewed(book.epoch(), context.mintVersion(), now,
        expiresAt, countedUntil, pending), target);
    book.putLease(lease, renewed, ledger);
    what.reported(ledger);
    return what.renewed(renewed, ledger);
  }

  /**
   * RenewLeases and RenewSlots: each renewal as if proposed alone, in order, answered as
   * {@code answer} makes it; the batch itself fails only when malformed.
   */
  <R, N> Result renewEach(List<R> renewals, int maxRenewals, String noun,
      Function<R, N> answer, Function<List<N>, Result> batch) {
    int n = renewals.size();
    if (n < 1 || n > maxRenewals) {
      return new Result.Rejected(Outcome.INVALID_ARGUMENT,
          n + " " + noun + " in one batch, allowed 1 to " + maxRenewals, 0, 0);
    }
    List<N> answers = new ArrayList<>(n);
    for (R renewal : renewals) {
      answers.add(answer.apply(renewal));
    }
    return batch.apply(answers);
  }

  /** Why a renewal of {@code leaseId} presenting {@code presented} is refused; null if not. */
  private Result.Rejected refuseRenewal(long leaseId, long presented) {
    Result.Rejected unknown = neverGranted(leaseId);
    if (unknown != null) {
      return unknown;
    }
    Lease lease = book.lease(leaseId);
    if (lease == null) {
      return new Result.Rejected(Outcome.LEASE_EXPIRED,
          "lease " + leaseId + " is gone (returned or expired and freed)", 0, 0);
    }
    long now = book.nowMillis();
    if (now >= lease.expiresAtMillis()) {
      return new Result.Rejected(Outcome.LEASE_EXPIRED,
          "lease " + leaseId + " expired at " + lease.expiresAtMillis() + ", now " + now
              + "; acquire a new lease", 0, lease.version());
    }
    if (presented > lease.version()) {
      return new Result.Rejected(Outcome.VERSION_MISMATCH,
          "lease " + leaseId + " presented version " + presented
              + " is newer than current version " + lease.version(), 0, lease.version());
    }
    return null;
  }

  /**
   * LEASE_UNKNOWN for an id whose counter was never reached; null for one that may have been
   * granted (a plain id below the counter after the switch to slotted ids may also never have
   * been minted: it is then answered as a lease that is gone, which changes nothing either).
   */
  private Result.Rejected neverGranted(long leaseId) {
    if (leaseId <= 0 || SlotIds.counterOf(leaseId) >= book.nextLeaseId()) {
      return new Result.Rejected(Outcome.LEASE_UNKNOWN, "lease " + leaseId
          + " was never granted (next lease counter " + book.nextLeaseId() + ")", 0, 0);
    }
    return null;
  }

  /**
   * ReturnLease: the holder stopped spending, so the whole lease, every version, is freed; a
   * fenced return frees it only at the current version.
   */
  Result returnLease(ReturnLease c) {
    if (c.unusedBalance() < 0) {
      return invalid("unusedBalance " + c.unusedBalance() + " < 0");
    }
    long leaseId = c.leaseId();
    Result.Rejected unknown = neverGranted(leaseId);
    if (unknown != null) {
      return unknown;
    }
    Lease lease = book.lease(leaseId);
    if (lease == null) {
      return new Result.LeaseReturned(leaseId, 0, true);
    }
    if (c.fenced() && c.presentedVersion() != lease.version()) {
      // Only the holder of the current version knows it stopped spending: a delayed duplicate,
      // a restarted holder's old return or a guess must not free a share still in use (I1).
      return new Result.Rejected(Outcome.VERSION_MISMATCH,
          "lease " + leaseId + " return presented version " + c.presentedVersion()
              + ", current version " + lease.version() + "; the lease stays until its holder"
              + " returns its current version or it expires", 0, lease.version());
    }
    LimitLedger ledger = book.ledgerOf(lease);
    book.removeLease(lease, ledger);
    if (book.nowMillis() >= lease.expiresAtMillis()) {
      // Expired but still counted: the holder says it stopped, so free it now; its balance
      // ran out with the lease, so nothing is credited.
      return new Result.LeaseReturned(leaseId, 0, true);
    }
    // The holder invalidated its bucket before returning. Credit only what fits under B next
    // to the counted burst, so pool + Σ counted burst never exceeds the burst ceiling (I1).
    long credit = Math.min(c.unusedBalance(), Math.min(lease.burstShare(), ledger.poolRoom()));
    ledger.addToPool(credit);
    return new Result.LeaseReturned(leaseId, credit, false);
  }

  /** Time until the earliest counted share of this limit is due to be freed; ≥ 1. */
  private long retryAfterMillis(LimitLedger ledger) {
    if (ledger.leaseCount() == 0) {
      return ledger.limit().leaseDurationMillis();
    }
    return Math.max(1, Millis.minus(ledger.earliestFreeTime(), book.nowMillis()));
  }
}
