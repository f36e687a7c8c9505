package dev.ration.statemachine.lease;

import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Millis;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The lease ledger's reads: the node's status, limits with their holders' demand, slot
 * ledgers, lease lists, and the views of a lease that answers carry.
 *
 * <p>Reads change nothing. A read may be answered at a later {@code readNowMillis} than the
 * last applied entry; which holders are live is judged at max(now, readNowMillis), so a read
 * never sees a holder the ledger already considers gone.
 *
 * <p>Thread: the single applying thread (the caller serialises query with apply). Holds no
 * state: it reads the {@link LeaseBook}.
 */
final class LeaseReads {
  private final ApplyContext context;
  private final LeaseBook book;

  LeaseReads(ApplyContext context, LeaseBook book) {
    this.context = context;
    this.book = book;
  }

  Optional<QueryResult> query(Query query, long readNowMillis) {
    if (query instanceof Query.Status) {
      // The node's status is the lease ledger's figures around the replica's own.
      return Optional.of(new QueryResult.StatusAnswer(context.appliedTerm(),
          context.appliedIndex(), context.nowMillis(), book.epoch(), book.epochStartMillis(),
          book.limits().size(), book.leases().size(), context.idempotencyRecords()));
    }
    if (query instanceof Query.GetLimit q) {
      LimitLedger ledger = book.limit(new LimitKey(q.tenant(), q.resource()));
      return Optional.of(new QueryResult.LimitAnswer(
          Optional.ofNullable(ledger).map(l -> status(l, readNowMillis))));
    } else if (query instanceof Query.ListLimits) {
      List<LimitStatus> all = new ArrayList<>(book.limits().size());
      for (LimitLedger ledger : book.limits().values()) {
        all.add(status(ledger, readNowMillis));
      }
      return Optional.of(new QueryResult.LimitList(all));
    } else if (query instanceof Query.GetSlots q) {
      LimitLedger ledger = book.limit(new LimitKey(q.tenant(), q.resource()));
      List<SlotLease> views = new ArrayList<>();
      if (ledger != null) {
        for (long id : ledger.leaseIds()) {
          Lease lease = book.lease(id);
          if (hasSlots(lease)) {
            views.add(slotView(lease, ledger));
          }
        }
      }
      return Optional.of(new QueryResult.SlotAnswer(
          Optional.ofNullable(ledger).map(l -> slotStatus(l, readNowMillis)), views));
    } else if (query instanceof Query.ListLeases q) {
      // Every lease the ledger still counts is listed, expired or not, so an operator sees
      // counted vs granted; expiresAt and countedUntil tell a reader which are past
      // max(now, readNowMillis).
      List<LeaseView> views = new ArrayList<>();
      if (q.tenant().isEmpty() && q.resource().isEmpty()) {
        for (Long id : new TreeSet<>(book.leases().keySet())) {
          Lease lease = book.lease(id);
          views.add(view(lease, book.ledgerOf(lease)));
        }
      } else {
        LimitLedger ledger = book.limit(new LimitKey(q.tenant(), q.resource()));
        if (ledger != null) {
          for (long id : ledger.leaseIds()) {
            views.add(view(book.lease(id), ledger));
          }
        }
      }
      return Optional.of(new QueryResult.LeaseList(views));
    }
    return Optional.empty();
  }

  /**
   * The limit's status with the demand of its live holders (leases not expired at
   * max(now, readNowMillis)), summed saturating.
   */
  private LimitStatus status(LimitLedger ledger, long readNowMillis) {
    long at = Math.max(book.nowMillis(), readNowMillis);
    long rate = 0;
    long burst = 0;
    for (long id : ledger.leaseIds()) {
      Lease lease = book.lease(id);
      if (at < lease.expiresAtMillis()) {
        rate = Millis.plus(rate, lease.demandRatePerSecond());
        burst = Millis.plus(burst, lease.demandBurst());
      }
    }
    return ledger.status().withDemand(rate, burst);
  }

  /** The slot ledger of a limit, demand summed over holders live at max(now, readNowMillis). */
  private SlotStatus slotStatus(LimitLedger ledger, long readNowMillis) {
    long at = Math.max(book.nowMillis(), readNowMillis);
    long demand = 0;
    int holders = 0;
    int pending = 0;
    for (long id : ledger.leaseIds()) {
      Lease lease = book.lease(id);
      if (!hasSlots(lease)) {
        continue;
      }
      holders++;
      if (lease.pendingSlots() > lease.slotShare()) {
        pending++;
      }
      if (at < lease.expiresAtMillis()) {
        demand = Millis.plus(demand, lease.demandSlots());
      }
    }
    Limit limit = ledger.limit();
    return new SlotStatus(limit.tenant(), limit.resource(), ledger.concurrency(), limit.version(),
        ledger.countedSlots(), ledger.grantedSlots(), ledger.slotCeiling(), demand, holders,
        pending);
  }

  private static boolean hasSlots(Lease lease) {
    return lease.countedSlots() > 0 || lease.demandSlots() > 0;
  }

  /** A lease as rate answers and lease lists show it. */
  static LeaseView view(Lease lease, LimitLedger ledger) {
    Limit limit = ledger.limit();
    return new LeaseView(lease.leaseId(), lease.tenant(), lease.resource(), lease.holder(),
        lease.epoch(), lease.version(), lease.rateShare(), lease.burstShare(),
        lease.countedRate(), lease.countedBurst(), lease.grantedAtMillis(),
        lease.expiresAtMillis(), lease.countedUntilMillis(), limit.mode(), limit.emergency(),
        limit.leaseDurationMillis());
  }

  /** A lease as slot answers and slot reads show it. */
  static SlotLease slotView(Lease lease, LimitLedger ledger) {
    return new SlotLease(lease.leaseId(), lease.tenant(), lease.resource(), lease.holder(),
        lease.epoch(), lease.version(), lease.slotShare(), lease.countedSlots(),
        lease.grantedAtMillis(), lease.expiresAtMillis(), lease.countedUntilMillis(),
        ledger.limit().leaseDurationMillis());
  }
}
