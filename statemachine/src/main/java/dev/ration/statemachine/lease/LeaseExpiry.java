package dev.ration.statemachine.lease;

import static dev.ration.statemachine.lease.Arguments.invalid;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.Millis;
import dev.ration.statemachine.result.Result;
import java.util.TreeSet;

/**
 * When counted shares stop counting: Tick's lease kinds of the expiry index (a lease's end at
 * its countedUntil, a pending shrink's end at its pendingUntil), and NewEpoch, which pushes
 * both out because a new leader cannot know how long the old leader's grants are in flight.
 *
 * <p>Thread: the single applying thread. Holds no state: it works on the {@link LeaseBook},
 * whose {@link LeaseExpiryIndex} holds the lease kinds in memory.
 *
 * <p>Invariants: a popped record frees only what is still current (the due time it names is
 * the lease's countedUntil or pendingUntil now), so a stale record changes nothing; a popped
 * record missing from the in-memory index is I6 broken; NewEpoch only ever extends counting
 * (countedUntil and pendingUntil never move earlier), and it visits leases in id order so
 * every replica does the same work.
 */
final class LeaseExpiry {
  private final LeaseBook book;
  private final Arguments arguments;

  LeaseExpiry(LeaseBook book, Arguments arguments) {
    this.book = book;
    this.arguments = arguments;
  }

  /** Tick popped a lease-kind record: free the lease or its pending shrink if still current. */
  boolean expire(ExpiryKey due) {
    if (!book.expiry().remove(due)) {
      throw new InvariantViolation("I6 popped lease-kind record " + due
          + " is not in the in-memory lease index");
    }
    if (due.kind() == ExpiryKey.LEASE_END) {
      Lease lease = book.lease(due.a());
      if (lease != null && lease.countedUntilMillis() == due.dueAtMillis()) {
        book.removeLease(lease, book.ledgerOf(lease));
        return true;
      }
    } else if (due.kind() == ExpiryKey.PENDING_END) {
      Lease lease = book.lease(due.a());
      if (lease != null && lease.hasPending() && lease.pendingUntilMillis() == due.dueAtMillis()) {
        book.putLease(lease, lease.withoutPending(), book.ledgerOf(lease));
        return true;
      }
    } else {
      throw new InvariantViolation("I6 expiry record of unknown kind " + due);
    }
    return false;
  }

  /** NewEpoch: a new leader's epoch, and every live lease counted for one more lease term. */
  Result newEpoch(NewEpoch c) {
    if (c.leaderId() == null
        || Arguments.utf8Length(c.leaderId()) > arguments.maxNameBytes()) {
      return invalid("leaderId missing, invalid or longer than " + arguments.maxNameBytes()
          + " bytes");
    }
    book.startEpoch();
    long now = book.nowMillis();
    // Every lease live before this entry keeps counting until epochStart + leaseDuration +
    // grace: the coordinator cannot know how long the old leader's grants are in flight.
    // Iterate in id order so the work is the same on every replica.
    for (Long id : new TreeSet<>(book.leases().keySet())) {
      Lease lease = book.lease(id);
      LimitLedger ledger = book.ledgerOf(lease);
      long extended = Millis.plus(Millis.plus(now, ledger.limit().leaseDurationMillis()),
          ledger.limit().graceMillis());
      long countedUntil = Math.max(lease.countedUntilMillis(), extended);
      long pendingUntil = lease.hasPending()
          ? Math.max(lease.pendingUntilMillis(), extended)
          : lease.pendingUntilMillis();
      if (countedUntil != lease.countedUntilMillis() || pendingUntil != lease.pendingUntilMillis()) {
        book.putLease(lease, lease.withTimes(countedUntil, pendingUntil), ledger);
      }
    }
    return new Result.EpochStarted(book.epoch(), book.epochStartMillis());
  }
}
