package dev.ration.statemachine.query;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.security.RoleGrant;
import dev.ration.wire.security.TokenView;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;
import dev.ration.wire.ttl.NamespaceView;
import java.util.List;
import java.util.Optional;

/** Answers to {@link Query}. */
public sealed interface QueryResult {
  /** Calls the {@code handler} method for this answer. */
  <R> R accept(Handler<R> handler);

  /** One method per answer, so whoever maps answers (the endpoint's replies) handles every one. */
  interface Handler<R> {
    R limitAnswer(LimitAnswer answer);

    R limitList(LimitList answer);

    R leaseList(LeaseList answer);

    R slotAnswer(SlotAnswer answer);

    R statusAnswer(StatusAnswer answer);

    R entryAnswer(EntryAnswer answer);

    R entryList(EntryList answer);

    R namespaceAnswer(NamespaceAnswer answer);

    R namespaceList(NamespaceList answer);

    R quota(Quota answer);

    R tokenList(TokenList answer);

    R grantList(GrantList answer);

    R securityAudit(SecurityAudit answer);

    R misrouted(Misrouted answer);

    R slotTable(SlotTableAnswer answer);
  }

  /**
   * Group {@code group}'s slot table by phase: {@code active} slots served here, {@code frozen}
   * (being handed over), {@code installed} (taken over, not yet served), {@code absent}; the four
   * add up to every slot.
   */
  record SlotTableAnswer(int group, int active, int frozen, int installed, int absent)
      implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.slotTable(this);
    }
  }

  /**
   * A read of one tenant whose slot this group does not serve now: read it from the group that
   * does ({@code moving}: the slot is moving into or out of this group, ask again shortly; else
   * {@code ownerGroup} is the group this one last knew to own it, -1 for none), as
   * {@code Result.Misrouted} says for commands.
   */
  record Misrouted(int slot, int ownerGroup, long epoch, boolean moving) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.misrouted(this);
    }
  }

  record LimitAnswer(Optional<LimitStatus> limit) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.limitAnswer(this);
    }
  }

  record LimitList(List<LimitStatus> limits) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.limitList(this);
    }
  }

  record LeaseList(List<LeaseView> leases) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.leaseList(this);
    }
  }

  /** A limit's slot ledger and its leases that hold, count or ask for slots (by id). */
  record SlotAnswer(Optional<SlotStatus> status, List<SlotLease> leases) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.slotAnswer(this);
    }
  }

  record StatusAnswer(
      long appliedTerm,
      long appliedIndex,
      long nowMillis,
      long epoch,
      long epochStartMillis,
      int limits,
      int leases,
      long idempotencyRecords)
      implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.statusAnswer(this);
    }
  }

  /** {@code readAtMillis}: the ledger time expiry was judged at, max(state now, readNowMillis). */
  record EntryAnswer(Optional<EntryView> entry, long readAtMillis)
      implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.entryAnswer(this);
    }
  }

  /** {@code truncated}: more live entries match than were returned (or the scan hit its bound). */
  record EntryList(List<EntryView> entries, boolean truncated,
      long readAtMillis) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.entryList(this);
    }
  }

  record NamespaceAnswer(Optional<NamespaceView> namespace)
      implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.namespaceAnswer(this);
    }
  }

  record NamespaceList(List<NamespaceView> namespaces)
      implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.namespaceList(this);
    }
  }

  /** The quota ledger's answer to {@link Query.Quota}. */
  record Quota(QuotaAnswer answer) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.quota(this);
    }
  }

  record TokenList(List<TokenView> tokens) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.tokenList(this);
    }
  }

  record GrantList(List<RoleGrant> grants) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.grantList(this);
    }
  }

  record SecurityAudit(List<AuditRecord> records) implements QueryResult {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.securityAudit(this);
    }
  }
}
