package dev.ration.statemachine.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.Overage;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.wire.Bytes;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.quota.AuditRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The security ledger on real RocksDB with explicit ledger times; verify() runs after every
 * entry. Tokens expire by Tick at their ledger-time end; a wrapped command touching a tenant
 * outside its allowed tenants is denied with no effect; tokens, grants and the audit log
 * survive a reopen.
 */
class SecurityLedgerTest {
  @TempDir Path dir;
  private RocksCoordinatorState state;
  private Driver d;

  private static final Bytes SALT = new Bytes(new byte[16]);
  private static final Bytes HASH = new Bytes(new byte[32]);

  @BeforeEach
  void open() {
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
  }

  @AfterEach
  void close() {
    state.close();
  }

  private static Result.SecurityChanged changed(Result r) {
    return assertInstanceOf(Result.SecurityChanged.class, r, r.toString());
  }

  /** Goal: a token with a lifetime disappears at its end, by Tick, and the table follows. */
  @Test
  void tokensExpireAtTheirLedgerTimeEnd() {
    assertTrue(changed(d.at(1_000, new SecurityCommand.CreateToken(5, "svc", SALT, HASH, 500, "root"))).changed());
    assertTrue(state.securityTable().token(5).isPresent());
    assertEquals(1_500, state.securityTable().token(5).get().expiresAtMillis());
    assertEquals(new Result.Ticked(0), d.at(1_499, new Tick(10)));
    assertTrue(state.securityTable().token(5).isPresent());
    assertEquals(new Result.Ticked(1), d.at(1_500, new Tick(10)));
    assertFalse(state.securityTable().token(5).isPresent());
    List<AuditRecord> audit = ((QueryResult.SecurityAudit) state.query(
        new Query.ReadSecurityAudit(0, 10), 0)).records();
    assertEquals(List.of("token.create", "token.expire"),
        audit.stream().map(AuditRecord::action).toList());
    assertEquals("ledger", audit.get(1).actor());
  }

  /**
   * Goal: a budget's id resolves to its tenant, so an identity limited to tenant a can neither
   * report on nor return tenant b's budget, while b's own holder can.
   */
  @Test
  void budgetIdsResolveToTheirTenant() {
    for (String t : List.of("a", "b")) {
      d.at(1_000, new QuotaCommand.SetQuota(new QuotaSpec(t, "api", QuotaKind.RATE,
          Window.MINUTE, 100, "calls", 0, Overage.REJECT, 0, 0, 0, "ops", 0, "seed")));
    }
    Result grant = d.at(1_000, SecurityCommand.Authorized.of("svc-b", List.of("b"),
        new QuotaCommand.GrantBudget("eu-1", "b", "api", 10, 10_000)));
    long id = assertInstanceOf(QuotaResult.BudgetGranted.class, ((Result.Quota) grant).result())
        .budgetId();
    Result foreign = d.at(1_100, SecurityCommand.Authorized.of("svc-a", List.of("a"),
        new QuotaCommand.ReturnBudget(id, 0, 1)));
    assertEquals("identity svc-a may not BUDGET_RETURN on quota id " + id
        + ": it names no live object of the granted tenants (granted tenants: a)",
        assertInstanceOf(Result.Denied.class, foreign, foreign.toString()).message());
    assertInstanceOf(Result.Denied.class, d.at(1_100, SecurityCommand.Authorized.of("svc-a",
        List.of("a"), new QuotaCommand.GrantBudget("eu-1", "b", "api", 1, 10_000))));
    Result own = d.at(1_200, SecurityCommand.Authorized.of("svc-b", List.of("b"),
        new QuotaCommand.ReportBudget(id, 2, 1, 10, 10_000)));
    assertInstanceOf(QuotaResult.BudgetReported.class, ((Result.Quota) own).result(), own.toString());
  }

  /**
   * Goal: for an identity limited to tenant a, every id a command names must resolve to a live
   * (or still answered) object of a: another tenant's settled reservation is refused, its owner's
   * retried complete still gets its answer, an event cannot name another tenant's reservation,
   * and a command that declares state of no tenant is refused and changes nothing.
   */
  @Test
  void closedAuthorizationRefusesWhatItCannotResolve() {
    for (String t : List.of("a", "b")) {
      d.at(1_000, new QuotaCommand.SetQuota(new QuotaSpec(t, "calls", QuotaKind.ALLOCATION,
          Window.NONE, 100, "calls", 0, Overage.REJECT, 0, 0, 0, "ops", 0, "seed")));
    }
    QuotaResult.Reserved bRes = reserved(d.at(1_000, SecurityCommand.Authorized.of("svc-b",
        List.of("b"), new QuotaCommand.Reserve("b", List.of(new QuotaCommand.Reserve.Item("calls", 5)), 0, 60_000))));
    QuotaResult.Reserved aRes = reserved(d.at(1_000, SecurityCommand.Authorized.of("svc-a",
        List.of("a"), new QuotaCommand.Reserve("a", List.of(new QuotaCommand.Reserve.Item("calls", 3)), 0, 60_000))));
    Result settled = d.at(1_100, SecurityCommand.Authorized.of("svc-b", List.of("b"),
        new QuotaCommand.CompleteReservation(bRes.reservationId(), List.of(4L))));
    assertInstanceOf(QuotaResult.ReservationSettled.class, ((Result.Quota) settled).result());

    Result foreign = d.at(1_200, SecurityCommand.Authorized.of("svc-a", List.of("a"),
        new QuotaCommand.CancelReservation(bRes.reservationId())));
    Result.Denied denied = assertInstanceOf(Result.Denied.class, foreign, foreign.toString());
    assertEquals("identity svc-a may not RESERVATION_CANCEL on quota id " + bRes.reservationId()
        + ": it names no live object of the granted tenants (granted tenants: a)", denied.message());
    Result again = d.at(1_200, SecurityCommand.Authorized.of("svc-b", List.of("b"),
        new QuotaCommand.CompleteReservation(bRes.reservationId(), List.of(4L))));
    QuotaResult.ReservationSettled answer = assertInstanceOf(QuotaResult.ReservationSettled.class,
        ((Result.Quota) again).result());
    assertTrue(answer.alreadySettled(), answer.toString());

    assertInstanceOf(Result.Denied.class, d.at(1_300, SecurityCommand.Authorized.of("svc-a",
        List.of("a"), new QuotaCommand.IngestUsage("e1", 1_300, "a", "calls", 1, "calls",
            bRes.reservationId()))));
    Result own = d.at(1_300, SecurityCommand.Authorized.of("svc-a", List.of("a"),
        new QuotaCommand.IngestUsage("e1", 1_300, "a", "calls", 1, "calls", aRes.reservationId())));
    assertInstanceOf(QuotaResult.UsageIngested.class, ((Result.Quota) own).result(), own.toString());

    Result ack = d.at(1_400, SecurityCommand.Authorized.of("svc-a", List.of("a"),
        new QuotaCommand.AckUsage("billing", 1)));
    assertEquals("identity svc-a may not USAGE_ACK on state of no tenant (granted tenants: a)",
        assertInstanceOf(Result.Denied.class, ack, ack.toString()).message());
  }

  /**
   * Goal: a request key is bound to the identity that first used it: the same key with the same
   * command from another identity limited to tenants is refused as a reused key, neither
   * answered with the first identity's result nor applied.
   */
  @Test
  void aRequestKeyAnswersOnlyTheIdentityThatUsedIt() {
    for (String t : List.of("a")) {
      d.at(1_000, new QuotaCommand.SetQuota(new QuotaSpec(t, "calls", QuotaKind.ALLOCATION,
          Window.NONE, 100, "calls", 0, Overage.REJECT, 0, 0, 0, "ops", 0, "seed")));
    }
    dev.ration.statemachine.command.RequestKey key =
        new dev.ration.statemachine.command.RequestKey(42, 43, 7);
    QuotaCommand.Reserve reserve =
        new QuotaCommand.Reserve("a", List.of(new QuotaCommand.Reserve.Item("calls", 5)), 0, 60_000);
    Result first = d.at(1_000, key, SecurityCommand.Authorized.of("alice", List.of("a"), reserve));
    reserved(first);
    Result again = d.at(1_001, key, SecurityCommand.Authorized.of("alice", List.of("a"), reserve));
    assertEquals(first, again, "the same identity's retry gets the first answer");
    Result other = d.at(1_002, key, SecurityCommand.Authorized.of("mallory", List.of("a"), reserve));
    Result.Rejected refused = assertInstanceOf(Result.Rejected.class, other, other.toString());
    assertEquals(Outcome.INVALID_ARGUMENT, refused.outcome());
    assertTrue(refused.message().contains("was first used for"), refused.message());
  }

  /**
   * Goal: an Authorized as earlier releases wrote it (code 64) keeps their answers on replay:
   * an id that resolves to nothing passed, so a return of a gone lease is answered as gone.
   */
  @Test
  void authorizedAsWrittenBeforeKeepsItsAnswers() {
    Result r = d.at(1_000, new SecurityCommand.Authorized("svc-a", "a",
        new Bytes(dev.ration.statemachine.command.BatchCodec.encodeCommand(
            new LeaseCommand.ReturnLease(77, 1, 0, false))), false));
    assertInstanceOf(Result.Rejected.class, r, r.toString());
    assertEquals(Outcome.LEASE_UNKNOWN, ((Result.Rejected) r).outcome());
  }

  private static QuotaResult.Reserved reserved(Result r) {
    return assertInstanceOf(QuotaResult.Reserved.class,
        assertInstanceOf(Result.Quota.class, r, r.toString()).result());
  }

  /** Goal: a create retried under the same id is a no-op; another token under the id is refused. */
  @Test
  void createIsIdempotentAndIdsAreNotReused() {
    changed(d.at(1_000, new SecurityCommand.CreateToken(5, "svc", SALT, HASH, 0, "root")));
    assertFalse(changed(d.at(1_001, new SecurityCommand.CreateToken(5, "svc", SALT, HASH, 0, "root"))).changed());
    Result.Rejected r = assertInstanceOf(Result.Rejected.class, d.at(1_002,
        new SecurityCommand.CreateToken(5, "other", SALT, HASH, 0, "root")));
    assertEquals(Outcome.INVALID_ARGUMENT, r.outcome());
    assertInstanceOf(Result.Rejected.class, d.at(1_003,
        new SecurityCommand.CreateToken(6, "svc", SALT, new Bytes(new byte[31]), 0, "root")));
    assertTrue(changed(d.at(1_004, new SecurityCommand.RevokeToken(5, "root"))).changed());
    assertFalse(state.securityTable().token(5).isPresent());
  }

  /** Goal: a renewal of another tenant's lease, wrapped for tenant alpha, changes nothing. */
  @Test
  void authorizedCommandsTouchOnlyAllowedTenants() {
    d.at(1_000, new LeaseCommand.SetLimit(new Limit("beta", "api", 10, 10, Mode.HARD, 5_000,
        1_000, 0, Policy.FREE_CAPACITY, 0)));
    Result.LeaseGranted lease = assertInstanceOf(Result.LeaseGranted.class,
        d.at(1_000, new LeaseCommand.AcquireLease("beta", "api", "h", 5, 5)));
    long id = lease.lease().leaseId();
    Result denied = d.at(1_100, SecurityCommand.Authorized.of("svc-alpha", List.of("alpha"),
        new LeaseCommand.ReturnLease(id, lease.lease().version(), 0)));
    Result.Denied den = assertInstanceOf(Result.Denied.class, denied, denied.toString());
    assertEquals("identity svc-alpha may not RETURN_LEASE on lease id " + id + ": it names no live"
        + " object of the granted tenants (granted tenants: alpha)", den.message());
    // An id that names nothing gets the same words: the refusal tells nothing about beta.
    Result.Denied unknown = assertInstanceOf(Result.Denied.class, d.at(1_100,
        SecurityCommand.Authorized.of("svc-alpha", List.of("alpha"),
            new LeaseCommand.ReturnLease(id + 1000, 1, 0))));
    assertEquals(den.message().replace("id " + id, "id " + (id + 1000)), unknown.message());
    // Still there: beta's own service renews it.
    assertInstanceOf(Result.LeaseRenewed.class, d.at(1_200, SecurityCommand.Authorized.of(
        "svc-beta", List.of("beta"), new LeaseCommand.RenewLease(id, lease.lease().version(), 5, 5, 0, 0, 0))));
    // A limit change on behalf of someone is audited with them.
    d.at(1_300, SecurityCommand.Authorized.of("alice", List.of(), new LeaseCommand.SetLimit(
        new Limit("beta", "api", 20, 20, Mode.HARD, 5_000, 1_000, 0, Policy.FREE_CAPACITY, 0))));
    List<AuditRecord> audit = ((QueryResult.SecurityAudit) state.query(
        new Query.ReadSecurityAudit(0, 10), 0)).records();
    assertEquals(1, audit.size(), audit.toString());
    assertEquals("alice", audit.get(0).actor());
    assertEquals("limit.set", audit.get(0).action());
    assertEquals("beta", audit.get(0).scope());
  }

  /**
   * Goal: a wrapped command this build cannot decode (a command code of a newer release) is not
   * answered as a refusal, which replicas of the newer release would not give: applying it
   * fails, so the node stops instead of diverging, and nothing of its entry is stored.
   */
  @Test
  void undecodableWrappedCommandFailsTheApplyInsteadOfAnswering() {
    byte[] future = {(byte) 0xEF, 1, 2, 3};
    long appliedBefore = state.appliedIndex();
    dev.ration.statemachine.command.BatchFormatException e = org.junit.jupiter.api.Assertions.assertThrows(
        dev.ration.statemachine.command.BatchFormatException.class,
        () -> d.at(1_000, new SecurityCommand.Authorized("alice", "", new Bytes(future), true)));
    assertTrue(e.getMessage().contains("unknown command code 239"), e.getMessage());
    // The node halts after such a failure; what it left on disk is the state before the entry.
    state.close();
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    assertEquals(appliedBefore, state.appliedIndex(), "the failed entry is not stored as applied");
  }

  /** Goal: tokens, grants and the audit sequence survive a reopen (they are in RocksDB). */
  @Test
  void stateSurvivesAReopen() {
    changed(d.at(1_000, new SecurityCommand.CreateToken(5, "svc", SALT, HASH, 0, "root")));
    changed(d.at(1_000, new SecurityCommand.GrantRole("svc", "service", "acme", "root")));
    assertFalse(changed(d.at(1_000, new SecurityCommand.GrantRole("svc", "service", "acme", "root"))).changed());
    assertInstanceOf(Result.Rejected.class,
        d.at(1_000, new SecurityCommand.GrantRole("svc", "service", "acme/shop", "root")));
    state.close();
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
    assertTrue(state.securityTable().token(5).isPresent());
    assertEquals(1, state.securityTable().grants("svc").size());
    long seq = changed(d.at(2_000, new SecurityCommand.RevokeRole("svc", "service", "acme", "root"))).auditSequence();
    assertEquals(3, seq);
    assertTrue(state.securityTable().grants("svc").isEmpty());
  }

  private List<Long> auditSequences() {
    return ((QueryResult.SecurityAudit) state.query(new Query.ReadSecurityAudit(0, 1_000), 0))
        .records().stream().map(AuditRecord::sequence).toList();
  }

  /**
   * Goal: an audit record lives exactly its retention of ledger time, is deleted by the first
   * entry applied after that (any entry, a Tick too), oldest first and a bounded number per
   * entry, and the bookkeeping survives a reopen. verify() checks after every entry that the
   * oldest record in memory is the oldest stored.
   */
  @Test
  void auditRecordsArePrunedAfterTheirRetentionInLedgerTime() {
    state.close();
    StateOptions tenSeconds = StateOptions.defaults().withSecurityAuditRetention(10_000);
    state = RocksCoordinatorState.open(dir.resolve("db"), tenSeconds);
    d = new Driver(state);
    changed(d.at(1_000, new SecurityCommand.GrantRole("a", "service", "acme", "root")));   // 1
    changed(d.at(2_000, new SecurityCommand.GrantRole("b", "service", "acme", "root")));   // 2
    changed(d.at(5_000, new SecurityCommand.GrantRole("c", "service", "acme", "root")));   // 3
    d.at(10_999, new Tick(10));
    assertEquals(List.of(1L, 2L, 3L), auditSequences(), "nothing is due before its retention");
    d.at(11_000, new Tick(10));
    assertEquals(List.of(2L, 3L), auditSequences(), "due at exactly at + retention");
    d.at(11_999, new Tick(10));
    assertEquals(List.of(2L, 3L), auditSequences());

    // A reopen finds the oldest record again and carries on.
    state.close();
    state = RocksCoordinatorState.open(dir.resolve("db"), tenSeconds);
    d = new Driver(state);
    changed(d.at(12_000, new SecurityCommand.GrantRole("d", "service", "acme", "root")));  // 4
    assertEquals(List.of(3L, 4L), auditSequences(), "the entry that wrote 4 deleted 2");
    // One entry deletes every due record and writes a new one: the new one is the oldest kept.
    changed(d.at(30_000, new SecurityCommand.GrantRole("e", "service", "acme", "root")));  // 5
    assertEquals(List.of(5L), auditSequences());
    // The grants themselves are not audit records: they stay.
    assertEquals(1, state.securityTable().grants("a").size());

    // A backlog is deleted a bounded number per entry, oldest first.
    int many = StateOptions.SECURITY_AUDIT_PRUNE_PER_ENTRY + 6;
    for (int i = 0; i < many; i++) {
      changed(d.at(31_000, new SecurityCommand.GrantRole("f" + i, "service", "acme", "root")));
    }
    assertEquals(many + 1, auditSequences().size());
    d.at(41_000, new Tick(10));
    List<Long> left = auditSequences();
    assertEquals(many + 1 - StateOptions.SECURITY_AUDIT_PRUNE_PER_ENTRY, left.size(), left.toString());
    assertEquals(5L + StateOptions.SECURITY_AUDIT_PRUNE_PER_ENTRY, left.get(0));
    d.at(41_001, new Tick(10));
    assertEquals(List.of(), auditSequences());
    long next = changed(d.at(41_002, new SecurityCommand.RevokeRole("a", "service", "acme", "root")))
        .auditSequence();
    assertEquals(6L + many, next, "sequences are never reused");
    assertEquals(List.of(next), auditSequences());
  }
}
