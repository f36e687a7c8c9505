package dev.ration.statemachine.lease;

import dev.ration.statemachine.result.Result;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What one acquire or renewal asks to lease of a limit — rate and burst shares
 * ({@link RateShares}) or concurrency slots ({@link SlotShares}) — and so the one place where a
 * rate lease and a slot lease differ. {@link Leasing} runs the single admission and renewal
 * path for both and asks this object only what depends on the kind: how the request's demand
 * and its bad arguments are read, what is free and available, what share the limit's policy
 * proposes, which part of the lease holds that share, what the holder may still be using, how
 * a shrink is kept counting, and how the answer looks.
 *
 * <p>{@code A} is the amount leased: {@link Shares} for rate and burst, {@link Long} for slots.
 * One instance serves one request and carries its demand (and, on renewal, what the holder
 * reported with it); it is used on the single applying thread and then dropped.
 *
 * <p>Invariants: every amount is ≥ 0; {@link #allocate} never answers above what it is given
 * as available and refuses (InvariantViolation) a policy answer outside its range (I1 for
 * rate and burst, I12 for slots), so a grant comes only from what is free or already counted.
 */
abstract class Leased<A> {
  private final A demand;
  private final A none;
  private final String[] problems;

  /**
   * {@code none}: the amount nothing of this kind; {@code problems}: the request's own
   * arguments out of range (null where in range).
   */
  Leased(A demand, A none, String... problems) {
    this.demand = demand;
    this.none = none;
    this.problems = problems;
  }

  /** What the holder asks for now. */
  final A demand() {
    return demand;
  }

  /** The request's own arguments that are out of range, in the order they are reported. */
  final String[] problems() {
    return problems;
  }

  /** The amount nothing: the share of a lease not granted yet. */
  final A none() {
    return none;
  }

  final boolean isNone(A amount) {
    return none.equals(amount);
  }

  /** What a new share may take of {@code ledger}'s limit now. */
  abstract A free(LimitLedger ledger);

  /** The lease's current share. */
  abstract A share(Lease lease);

  /** The most a renewal of {@code lease} may hold: what it has counted plus what is free. */
  abstract A available(Lease lease, LimitLedger ledger);

  /**
   * The share the limit's policy gives the requester {@code leaseId} (renewing, or the id about
   * to be minted), clipped to {@code available}; an answer outside [0, available] is an
   * InvariantViolation.
   */
  abstract A allocate(LeaseBook book, LimitLedger ledger, long leaseId, A current, A available);

  /** The requester's fair target under the limit's policy, before the clip to available. */
  abstract A target(LeaseBook book, LimitLedger ledger, long leaseId, A current, A available);

  /** {@code lease} holding {@code share} of this kind, with the request's demand on record. */
  abstract Lease holding(Lease lease, A share);

  /** Why an acquire with a positive demand got nothing and may not wait for its share. */
  abstract String exhausted(LimitLedger ledger, String tenant, String resource);

  /** Returned tokens a new lease starts with, taken from the limit's pool; none by default. */
  long startBalance(LimitLedger ledger, A granted) {
    return 0;
  }

  /** The answer to an acquire that granted {@code lease}. */
  abstract Result granted(Lease lease, LimitLedger ledger, long startBalance);

  /** What the holder may be using of {@code lease}'s current version until it has the answer. */
  A inUse(Lease lease) {
    return share(lease);
  }

  /** The unacknowledged shrink as the holder's report leaves it; unchanged by default. */
  PendingShrink released(PendingShrink pending) {
    return pending;
  }

  /** Whether {@code target} takes away some of what is {@code inUse}. */
  abstract boolean shrinks(A target, A inUse);

  /** {@code pending} extended so that {@code inUse} stays counted (two-phase shrink). */
  abstract PendingShrink keepCounting(PendingShrink pending, A inUse);

  /** The pending shrink a renewal stores, after the shrink rule; unchanged by default. */
  PendingShrink settled(PendingShrink pending) {
    return pending;
  }

  /** After a renewal was put: what the holder reported beyond its demand; nothing by default. */
  void reported(LimitLedger ledger) {}

  /** The answer to a renewal that produced {@code lease}. */
  abstract Result renewed(Lease lease, LimitLedger ledger);

  /**
   * The policy's input, shared by both kinds: the live holders of {@code ledger}'s limit in
   * lease-id order that {@code holds} admits, each as {@code entry} gives it, with the
   * requester {@code leaseId} as {@code self} at its place — appended for an acquire, whose id
   * is about to be minted and so above every existing one. A lease past its expiresAt cannot be
   * renewed, so it is no holder: its share stays counted until freed, but its demand no longer
   * claims a part of the split. Fills {@code into}; returns the requester's index.
   */
  static <H> int liveHolders(LeaseBook book, LimitLedger ledger, long leaseId,
      Predicate<Lease> holds, Function<Lease, H> entry, H self, List<H> into) {
    int index = -1;
    for (long id : ledger.leaseIds()) {
      if (id == leaseId) {
        index = into.size();
        into.add(self);
        continue;
      }
      Lease other = book.lease(id);
      if (book.nowMillis() < other.expiresAtMillis() && holds.test(other)) {
        into.add(entry.apply(other));
      }
    }
    if (index < 0) {
      index = into.size();
      into.add(self);
    }
    return index;
  }
}
