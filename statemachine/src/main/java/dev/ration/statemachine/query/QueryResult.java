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
  record LimitAnswer(Optional<LimitStatus> limit) implements QueryResult {}

  record LimitList(List<LimitStatus> limits) implements QueryResult {}

  record LeaseList(List<LeaseView> leases) implements QueryResult {}

  /** A limit's slot ledger and its leases that hold, count or ask for slots (by id). */
  record SlotAnswer(Optional<SlotStatus> status, List<SlotLease> leases) implements QueryResult {}

  record StatusAnswer(
      long appliedTerm,
      long appliedIndex,
      long nowMillis,
      long epoch,
      long epochStartMillis,
      int limits,
      int leases,
      long idempotencyRecords)
      implements QueryResult {}

  /** {@code readAtMillis}: the ledger time expiry was judged at, max(state now, readNowMillis). */
  record EntryAnswer(Optional<EntryView> entry, long readAtMillis)
      implements QueryResult {}

  /** {@code truncated}: more live entries match than were returned (or the scan hit its bound). */
  record EntryList(List<EntryView> entries, boolean truncated,
      long readAtMillis) implements QueryResult {}

  record NamespaceAnswer(Optional<NamespaceView> namespace)
      implements QueryResult {}

  record NamespaceList(List<NamespaceView> namespaces)
      implements QueryResult {}

  /** The quota ledger's answer to {@link Query.Quota}. */
  record Quota(QuotaAnswer answer) implements QueryResult {}

  record TokenList(List<TokenView> tokens) implements QueryResult {}

  record GrantList(List<RoleGrant> grants) implements QueryResult {}

  record SecurityAudit(List<AuditRecord> records) implements QueryResult {}
}
