package dev.ration.statemachine.quota;

import dev.ration.wire.placement.SlotIds;

import dev.ration.statemachine.query.Reservation;

import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.quota.AuditRecord;

import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.QuotaSpec;

import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;

import dev.ration.wire.Window;
import dev.ration.wire.EventType;

import static dev.ration.statemachine.quota.QuotaHarness.concurrent;
import static dev.ration.statemachine.quota.QuotaHarness.rate;
import static dev.ration.statemachine.quota.QuotaHarness.rejected;
import static dev.ration.statemachine.quota.QuotaHarness.reserve;
import static dev.ration.statemachine.quota.QuotaHarness.reserved;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.QuotaResult;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Domain tests of the quota ledger through the real replica on RocksDB, with explicit times. */
class QuotaLedgerTest {
  @TempDir Path dir;
  QuotaHarness h;

  @BeforeEach
  void open() {
    h = new QuotaHarness(dir);
  }

  @AfterEach
  void close() {
    h.close();
  }

  /** Capacity is checked at every level of the scope path; a refusal names the level. */
  @Test
  void everyLevelOfTheScopePathIsChecked() {
    h.apply(concurrent("acme", "jobs", 10));
    h.apply(concurrent("acme/t1", "jobs", 6));
    h.apply(concurrent("acme/t1/p1", "jobs", 100));
    reserved(h.apply(reserve("acme/t1/p1", "jobs", 5)));
    QuotaResult.QuotaRejected no = rejected(h.apply(reserve("acme/t1/p1", "jobs", 2)));
    assertEquals(Outcome.LIMIT_EXHAUSTED, no.outcome());
    assertEquals("acme/t1", no.levelScope());
    assertEquals(0, no.retryAfterMillis(), "concurrent: no time known, client retries bounded");
    reserved(h.apply(reserve("acme/t2", "jobs", 5)));
    QuotaResult.QuotaRejected org = rejected(h.apply(reserve("acme/t2", "jobs", 1)));
    assertEquals("acme", org.levelScope());
    assertEquals(10, h.usage("acme", "jobs").held());
    assertEquals(5, h.usage("acme/t1", "jobs").held());
    assertEquals(5, h.usage("acme/t1/p1", "jobs").held());
  }

  /** Several resources in one request: all reserved, or none. */
  @Test
  void severalResourcesAreAllOrNothing() {
    h.apply(concurrent("acme", "jobs", 10));
    h.apply(concurrent("acme", "gpus", 2));
    Reserve both = new Reserve("acme/t1", List.of(new Reserve.Item("jobs", 4),
        new Reserve.Item("gpus", 3)), 0, 60_000);
    QuotaResult.QuotaRejected no = rejected(h.apply(both));
    assertEquals("gpus", no.resource());
    assertEquals(0, h.usage("acme", "jobs").held(), "jobs must not be held after a refusal");
    Reserve fits = new Reserve("acme/t1", List.of(new Reserve.Item("jobs", 4),
        new Reserve.Item("gpus", 2)), 0, 60_000);
    assertEquals(2, reserved(h.apply(fits)).items().size());
    assertEquals(4, h.usage("acme", "jobs").held());
    assertEquals(2, h.usage("acme", "gpus").held());
  }

  @Test
  void unknownQuotaAndStaleConfigAreRefused() {
    assertEquals(Outcome.LIMIT_UNKNOWN, rejected(h.apply(reserve("acme", "jobs", 1))).outcome());
    long v1 = ((QuotaResult.QuotaSet) h.apply(concurrent("acme", "jobs", 10))).spec().version();
    long v2 = ((QuotaResult.QuotaSet) h.apply(concurrent("acme/t1", "jobs", 5))).spec().version();
    assertTrue(v2 > v1);
    Reserve stale = new Reserve("acme/t1", List.of(new Reserve.Item("jobs", 1)), v1, 60_000);
    QuotaResult.QuotaRejected no = rejected(h.apply(stale));
    assertEquals(Outcome.STALE_CONFIG, no.outcome());
    assertEquals(v2, no.currentVersion());
    Reserve fresh = new Reserve("acme/t1", List.of(new Reserve.Item("jobs", 1)), v2, 60_000);
    assertEquals(v2, reserved(h.apply(fresh)).configVersion());
  }

  /** A request id gets its first decision back, even after the state changed. */
  @Test
  void aSeenRequestIdGetsItsFirstDecision() {
    h.apply(concurrent("acme", "jobs", 1));
    RequestKey key = h.freshKey();
    reserved(h.apply(reserve("acme", "jobs", 1)));
    QuotaResult first = h.apply(key, reserve("acme", "jobs", 1));
    assertEquals(Outcome.LIMIT_EXHAUSTED, rejected(first).outcome());
    h.apply(concurrent("acme", "jobs", 100));
    assertEquals(first, h.apply(key, reserve("acme", "jobs", 1)), "retry must not re-decide");
    RequestKey ok = h.freshKey();
    QuotaResult.Reserved r = reserved(h.apply(ok, reserve("acme", "jobs", 1)));
    assertEquals(r, h.apply(ok, reserve("acme", "jobs", 1)));
    assertEquals(2, h.usage("acme", "jobs").held(), "a retried reserve holds once");
  }

  /**
   * Goal: a reservation's application key returns the first decision (reservation id included)
   * to a retry from any client, past the transport retention, after a restart and after the
   * reservation settled, until its settlement is forgotten; other arguments under the key are
   * refused and change nothing; the key is scoped to the scope; after the settlement is
   * forgotten a retry is a new request (the documented edge of the window).
   */
  @Test
  void reservationKeyReturnsTheFirstDecisionUntilTheSettlementIsForgotten() {
    h.apply(concurrent("acme", "jobs", 10));
    Reserve keyed = new Reserve("acme", List.of(new Reserve.Item("jobs", 3)), 0, 3_600_000,
        "order-42");
    QuotaResult.Reserved first = reserved(h.apply(keyed));
    assertEquals(3, h.usage("acme", "jobs").held());
    h.nowMillis += 120_000; // past the transport key's 60 s
    assertEquals(first, h.apply(new RequestKey(99, 1, 1), keyed), "another client, later");
    h.reopen();
    assertEquals(first, h.apply(new RequestKey(99, 2, 1), keyed), "after a restart");
    assertEquals(3, h.usage("acme", "jobs").held(), "held once");

    QuotaResult.QuotaRejected other = rejected(h.apply(new Reserve("acme",
        List.of(new Reserve.Item("jobs", 4)), 0, 3_600_000, "order-42")));
    assertEquals(Outcome.INVALID_ARGUMENT, other.outcome());
    assertEquals("idempotency key order-42 in scope acme was first used for reservation "
        + first.reservationId() + " with other arguments; use a new idempotency key",
        other.message());
    assertEquals(3, h.usage("acme", "jobs").held(), "the refusal changed nothing");
    assertEquals(first, h.apply(keyed), "and the key still answers");

    QuotaResult.Reserved elsewhere = reserved(h.apply(new Reserve("acme/shop",
        List.of(new Reserve.Item("jobs", 3)), 0, 3_600_000, "order-42")));
    assertTrue(elsewhere.reservationId() != first.reservationId(), "keys are per scope");
    h.apply(new CancelReservation(elsewhere.reservationId()));

    h.apply(new CompleteReservation(first.reservationId(), List.of(2L)));
    assertEquals(first, h.apply(keyed), "settled: still the first decision");
    assertEquals(0, h.usage("acme", "jobs").held());

    h.nowMillis += StateOptions.defaults().quota().settledRetentionMillis() + 1;
    h.tick();
    QuotaResult.Reserved late = reserved(h.apply(keyed));
    assertTrue(late.reservationId() != first.reservationId(),
        "past the settled retention the key is forgotten: a new reservation");
  }

  /** complete, cancel and expire each emit exactly one event; repeats emit nothing. */
  @Test
  void eachSettlementEmitsExactlyOneEvent() {
    h.apply(concurrent("acme", "jobs", 10));
    long a = reserved(h.apply(reserve("acme/t1", "jobs", 3))).reservationId();
    long b = reserved(h.apply(reserve("acme/t1", "jobs", 2))).reservationId();
    long c = reserved(h.apply(reserve("acme/t1", "jobs", 1))).reservationId();
    QuotaResult.ReservationSettled done =
        (QuotaResult.ReservationSettled) h.apply(new CompleteReservation(a, List.of(2L)));
    assertEquals(EventType.COMPLETED, done.how());
    assertEquals(false, done.alreadySettled());
    QuotaResult.ReservationSettled again =
        (QuotaResult.ReservationSettled) h.apply(new CompleteReservation(a, List.of(3L)));
    assertTrue(again.alreadySettled());
    assertEquals(List.of(2L), again.quantities(), "the first settlement stands");
    assertTrue(((QuotaResult.ReservationSettled) h.apply(new CancelReservation(a))).alreadySettled());
    assertEquals(EventType.CANCELLED,
        ((QuotaResult.ReservationSettled) h.apply(new CancelReservation(b))).how());
    h.nowMillis += 60_000;
    assertTrue(h.tick() >= 1, "reservation c expires (idempotency records go too)");
    assertEquals(0, h.usage("acme", "jobs").held());
    QuotaResult.ReservationSettled late =
        (QuotaResult.ReservationSettled) h.apply(new CompleteReservation(c, List.of(1L)));
    assertEquals(EventType.EXPIRED, late.how());
    assertTrue(late.alreadySettled());
    List<UsageEvent> log = h.log();
    assertEquals(3, log.size(), "one event per settlement: " + log);
    assertEquals(List.of("res:" + a + ":jobs", "res:" + b + ":jobs", "res:" + c + ":jobs"),
        log.stream().map(UsageEvent::eventId).toList());
    assertEquals(List.of(2L, 0L, 1L), log.stream().map(UsageEvent::quantity).toList());
    assertEquals(0, h.usage("acme", "jobs").held());
    assertEquals(Outcome.RESERVATION_UNKNOWN,
        rejected(h.apply(new CancelReservation(999))).outcome());
  }

  /** Decreasing a limit never revokes; new reservations wait until usage is under it. */
  @Test
  void decreasingALimitNeverRevokesAcceptedReservations() {
    h.apply(concurrent("acme", "jobs", 10));
    long id = reserved(h.apply(reserve("acme/t1", "jobs", 8))).reservationId();
    h.apply(concurrent("acme", "jobs", 5));
    List<Reservation> outstanding = ((QuotaAnswer.ReservationList)
        h.query(new QuotaQuery.ListReservations(""))).reservations();
    assertEquals(List.of(id), outstanding.stream().map(Reservation::reservationId).toList());
    assertEquals(8, h.usage("acme", "jobs").held(), "held above the new limit, not revoked");
    assertEquals(Outcome.LIMIT_EXHAUSTED, rejected(h.apply(reserve("acme", "jobs", 1))).outcome());
    h.apply(new CompleteReservation(id, List.of(8L)));
    reserved(h.apply(reserve("acme", "jobs", 5)));
    rejected(h.apply(reserve("acme", "jobs", 1)));
  }

  /** Crossing a soft threshold raises one alert per window, not one per request. */
  @Test
  void aSoftThresholdCrossingRaisesOneAlert() {
    h.apply(rate("acme", "calls", Window.MINUTE, 100, 50));
    h.nowMillis = 60_000;
    for (int i = 0; i < 9; i++) {
      reserved(h.apply(reserve("acme", "calls", 10)));
    }
    assertEquals(1, h.log().stream().filter(e -> e.type() == EventType.ALERT).count());
    h.nowMillis = 120_000; // the window rolls: a new crossing alerts again
    for (int i = 0; i < 6; i++) {
      reserved(h.apply(reserve("acme", "calls", 10)));
    }
    List<UsageEvent> alerts = h.log().stream().filter(e -> e.type() == EventType.ALERT).toList();
    assertEquals(2, alerts.size());
    assertEquals(50, alerts.get(0).quantity());
    assertEquals(2, ((QuotaAnswer.QuotaStatusAnswer) h.query(new QuotaQuery.QuotaStatus())).alertsRaised());
  }

  /** Rate windows roll by ledger time; the refusal says when. */
  @Test
  void rateWindowsRollOverByLedgerTime() {
    h.apply(rate("acme", "calls", Window.SECOND, 5, 0));
    h.nowMillis = 10_000;
    reserved(h.apply(reserve("acme", "calls", 5)));
    h.nowMillis = 10_700;
    QuotaResult.QuotaRejected no = rejected(h.apply(reserve("acme", "calls", 1)));
    assertEquals(300, no.retryAfterMillis());
    h.nowMillis = 11_000;
    reserved(h.apply(reserve("acme", "calls", 5)));
  }

  /** Billing periods (here calendar months in UTC) roll over by ledger time. */
  @Test
  void billingPeriodsRollOver() {
    long jan15 = Instant.parse("2026-01-15T00:00:00Z").toEpochMilli();
    long feb15 = Instant.parse("2026-02-15T00:00:00Z").toEpochMilli();
    long mar15 = Instant.parse("2026-03-15T00:00:00Z").toEpochMilli();
    h.nowMillis = jan15 + 1000;
    h.apply(new SetQuota(new QuotaSpec("acme", "tokens", QuotaKind.CUMULATIVE, Window.MONTH, 1000, "tokens",
        0, Overage.REJECT, 0, jan15, 0, "ops", 0, "monthly plan")));
    long id = reserved(h.apply(reserve("acme/t1", "tokens", 1000))).reservationId();
    h.apply(new CompleteReservation(id, List.of(900L)));
    reserved(h.apply(reserve("acme/t1", "tokens", 100)));
    h.nowMillis = feb15 - 1;
    QuotaResult.QuotaRejected no = rejected(h.apply(reserve("acme/t1", "tokens", 1)));
    assertEquals(1, no.retryAfterMillis(), "the period ends at the anchor's day next month");
    h.nowMillis = feb15;
    reserved(h.apply(reserve("acme/t1", "tokens", 1000)));
    assertEquals(feb15, h.usage("acme", "tokens").windowStartMillis());
    assertEquals(feb15, Window.MONTH.startOf(mar15 - 1, jan15));
    assertEquals(mar15, Window.MONTH.endOf(feb15));
  }

  /** Overage under ALLOW is admitted up to the stated maximum and flagged billable. */
  @Test
  void overageIsAdmittedOnlyWithinTheAllowanceAndFlagged() {
    h.apply(new SetQuota(new QuotaSpec("acme", "storage", QuotaKind.ALLOCATION, Window.NONE, 10, "GiB", 0,
        Overage.ALLOW, 5, 0, 0, "ops", 0, "burst allowance")));
    QuotaResult.Reserved r = reserved(h.apply(reserve("acme/t1", "storage", 12)));
    assertEquals(2, r.items().get(0).overage());
    rejected(h.apply(reserve("acme/t1", "storage", 4)));
    h.apply(new CompleteReservation(r.reservationId(), List.of(12L)));
    UsageEvent e = h.log().get(0);
    assertEquals(12, e.quantity());
    assertEquals(2, e.overage());
    assertEquals(12, h.usage("acme", "storage").allocated(), "completed allocation stays");
    h.apply(new IngestUsage("freed-1", h.nowMillis, "acme/t1", "storage", -12, "GiB", 0));
    assertEquals(0, h.usage("acme", "storage").allocated(), "a negative event releases it");
  }

  /** Two requests race for the last unit in one group-committed entry: exactly one wins. */
  @Test
  void concurrentReservationsRaceForTheLastUnit() {
    h.apply(concurrent("acme", "jobs", 3));
    reserved(h.apply(reserve("acme/t1", "jobs", 2)));
    List<QuotaResult> results = h.batch(List.of(
        new Proposal(h.freshKey(), reserve("acme/t1", "jobs", 1)),
        new Proposal(h.freshKey(), reserve("acme/t2", "jobs", 1))));
    assertTrue(results.get(0) instanceof QuotaResult.Reserved);
    assertEquals(Outcome.LIMIT_EXHAUSTED, rejected(results.get(1)).outcome());
    assertEquals(3, h.usage("acme", "jobs").held());
  }

  /** Duplicate ids are dropped; late events are aggregated by event time; too old is refused. */
  @Test
  void duplicateAndOutOfOrderUsageEvents() {
    h.nowMillis = 10 * 3_600_000L + 5_000;
    QuotaResult.UsageIngested first = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("svc-1", h.nowMillis, "acme/t1", "bytes", 100, "B", 0));
    QuotaResult.UsageIngested dup = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("svc-1", h.nowMillis, "acme/t1", "bytes", 100, "B", 0));
    assertTrue(dup.duplicate());
    assertEquals(first.sequence(), dup.sequence());
    long lastHour = h.nowMillis - 30 * 60_000L; // late: event time in the previous hour bucket
    h.apply(new IngestUsage("svc-0", lastHour, "acme/t1", "bytes", 7, "B", 0));
    assertEquals(Outcome.INVALID_ARGUMENT, rejected(h.apply(new IngestUsage("svc-old",
        h.nowMillis - 2 * 3_600_000L, "acme/t1", "bytes", 1, "B", 0))).outcome());
    QuotaAnswer.AggregateList now = (QuotaAnswer.AggregateList) h.query(
        new QuotaQuery.AggregateUsage("acme", "bytes", 10 * 3_600_000L, 11 * 3_600_000L));
    QuotaAnswer.AggregateList before = (QuotaAnswer.AggregateList) h.query(
        new QuotaQuery.AggregateUsage("acme/t1", "bytes", 9 * 3_600_000L, 10 * 3_600_000L));
    assertEquals(100, now.total(), "the org level aggregates its tenants' events");
    assertEquals(7, before.total());
    assertEquals(2, h.log().size());
  }

  /**
   * Event ids are per tenant: another tenant's event under the same id neither drops nor
   * reveals this tenant's, the same event again is a duplicate, and other content under a used
   * id is refused. An ingest as earlier releases wrote it (code 44) keeps one id space.
   */
  @Test
  void eventIdsArePerTenantAndJudgedOnTheWholeEvent() {
    h.nowMillis = 10 * 3_600_000L + 5_000;
    QuotaResult.UsageIngested a = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("b-evt-2", h.nowMillis, "a/p", "calls", 1, "calls", 0));
    assertFalse(a.duplicate());
    QuotaResult.UsageIngested b = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("b-evt-2", h.nowMillis, "b/p", "calls", 3, "calls", 0));
    assertFalse(b.duplicate(), "b's event is not another tenant's duplicate");
    QuotaResult.UsageIngested again = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("b-evt-2", h.nowMillis, "b/p", "calls", 3, "calls", 0));
    assertTrue(again.duplicate());
    assertEquals(b.sequence(), again.sequence());
    QuotaResult.QuotaRejected other = rejected(h.apply(
        new IngestUsage("b-evt-2", h.nowMillis, "b/p", "calls", 4, "calls", 0)));
    assertEquals(Outcome.INVALID_ARGUMENT, other.outcome());
    assertTrue(other.message().contains("already used in tenant b for another event"),
        other.message());
    assertEquals(2, h.log().size(), "no record for the refused event");
    QuotaResult.UsageIngested legacy = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("b-evt-2", h.nowMillis, "c/p", "calls", 9, "calls", 0, false));
    assertFalse(legacy.duplicate(), "code 44 looks up 'D' records only, which per-tenant ids never write");
    QuotaResult.UsageIngested legacyDup = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("b-evt-2", h.nowMillis, "d/p", "calls", 9, "calls", 0, false));
    assertTrue(legacyDup.duplicate(), "code 44: one id space for every tenant");
    // Past the dedup retention both kinds of id record are forgotten (verify runs after each).
    h.nowMillis += 2 * 3_600_000L;
    assertEquals(3, h.tick(), "the three event id records (a, b per tenant; c in one space) are forgotten");
    QuotaResult.UsageIngested reused = (QuotaResult.UsageIngested) h.apply(
        new IngestUsage("b-evt-2", h.nowMillis, "b/p", "calls", 4, "calls", 0));
    assertFalse(reused.duplicate());
  }

  /** A scope prefix with a trailing '/' lists that scope itself and everything below it. */
  @Test
  void aPrefixWithATrailingSlashListsItsOwnScopeToo() {
    h.apply(concurrent("acme", "jobs", 10));
    h.apply(concurrent("acme/t1", "jobs", 5));
    h.apply(concurrent("acmex", "jobs", 5));
    for (String prefix : List.of("acme", "acme/")) {
      List<String> scopes = ((QuotaAnswer.QuotaList) h.query(new QuotaQuery.ListQuotas(prefix)))
          .quotas().stream().map(r -> r.spec().scope()).toList();
      assertEquals(List.of("acme", "acme/t1"), scopes, "prefix " + prefix);
    }
  }

  /** Consumers read from their acknowledged cursor; a replay from any sequence is possible. */
  @Test
  void consumersReplayFromTheirCursor() {
    for (int i = 0; i < 5; i++) {
      h.apply(new IngestUsage("e" + i, h.nowMillis, "acme", "calls", i, "n", 0));
    }
    QuotaAnswer.UsageBatch all = (QuotaAnswer.UsageBatch) h.query(new QuotaQuery.ReadUsage("billing", 0, 100));
    assertEquals(5, all.events().size());
    assertEquals(0, all.cursor());
    h.apply(new AckUsage("billing", 3));
    h.reopen(); // the cursor is replicated state, it survives a restart
    QuotaAnswer.UsageBatch rest = (QuotaAnswer.UsageBatch) h.query(new QuotaQuery.ReadUsage("billing", 0, 100));
    assertEquals(List.of(4L, 5L), rest.events().stream().map(UsageEvent::sequence).toList());
    assertEquals(3, rest.cursor());
    assertEquals(3, ((QuotaResult.UsageAcked) h.apply(new AckUsage("billing", 2))).cursor(),
        "a cursor never moves back");
    QuotaAnswer.UsageBatch replay = (QuotaAnswer.UsageBatch) h.query(new QuotaQuery.ReadUsage("billing", 2, 2));
    assertEquals(List.of(2L, 3L), replay.events().stream().map(UsageEvent::sequence).toList());
  }

  /** Reconciliation finds a double-reported reservation and repairs it with one compensation. */
  @Test
  void reconciliationFindsAndRepairsAnInjectedDrift() {
    h.apply(concurrent("acme", "jobs", 10));
    long id = reserved(h.apply(reserve("acme/t1", "jobs", 5))).reservationId();
    h.apply(new CompleteReservation(id, List.of(5L)));
    // Injected drift: the service also reports the same work under the reservation.
    h.apply(new IngestUsage("svc-dup", h.nowMillis, "acme/t1", "jobs", 3, "jobs", id));
    QuotaAnswer.ReconcileAnswer report = (QuotaAnswer.ReconcileAnswer) h.query(
        new QuotaQuery.ReconcileReport("acme/t1", "jobs", 0, h.nowMillis + 1));
    assertEquals(1, report.drifts().size());
    Drift d = report.drifts().get(0);
    assertEquals(5, d.expected());
    assertEquals(8, d.recorded());
    int before = h.log().size();
    QuotaResult.Reconciled fixed = (QuotaResult.Reconciled) h.apply(
        new Reconcile("acme/t1", "jobs", 0, h.nowMillis + 1, "ops", "double report"));
    long comp = fixed.drifts().get(0).compensationSequence();
    UsageEvent compensation = h.log().get((int) comp - 1);
    assertEquals(EventType.COMPENSATION, compensation.type());
    assertEquals(-3, compensation.quantity());
    assertEquals(before + 1, h.log().size(), "repair appends, never edits");
    assertTrue(((QuotaAnswer.ReconcileAnswer) h.query(new QuotaQuery.ReconcileReport(
        "acme/t1", "jobs", 0, h.nowMillis + 1))).drifts().isEmpty());
    assertEquals(5, ((QuotaAnswer.AggregateList) h.query(new QuotaQuery.AggregateUsage(
        "acme/t1", "jobs", 0, h.nowMillis + 1))).total());
    List<AuditRecord> audit = ((QuotaAnswer.AuditList) h.query(new QuotaQuery.ReadAudit(0, 100))).records();
    assertEquals("usage.reconcile", audit.get(audit.size() - 1).action());
  }

  /** Every change is a new version with who/when/why; old versions and the audit stay. */
  @Test
  void catalogChangesAreVersionedAndAudited() {
    h.apply(concurrent("acme", "jobs", 10));
    h.nowMillis = 5_000;
    h.apply(new SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT, Window.NONE, 20, "jobs", 15,
        Overage.REJECT, 0, 0, 0, "alice", 0, "customer upgrade")));
    List<QuotaSpec> history = ((QuotaAnswer.History) h.query(
        new QuotaQuery.QuotaHistory("acme", "jobs"))).versions();
    assertEquals(List.of(10L, 20L), history.stream().map(QuotaSpec::limit).toList());
    assertEquals("alice", history.get(1).actor());
    assertEquals(5_000, history.get(1).changedAtMillis());
    assertEquals("customer upgrade", history.get(1).reason());
    long v = history.get(1).version();
    assertEquals(Outcome.STALE_CONFIG, rejected(h.apply(new SetQuota(new QuotaSpec("acme", "jobs",
        QuotaKind.CONCURRENT, Window.NONE, 30, "jobs", 0, Overage.REJECT, 0, 0, v - 1, "bob", 0,
        "race")))).outcome());
    assertEquals(Outcome.INVALID_ARGUMENT, rejected(h.apply(new SetQuota(new QuotaSpec("acme", "jobs",
        QuotaKind.RATE, Window.SECOND, 30, "jobs", 0, Overage.REJECT, 0, 0, 0, "bob", 0,
        "kind change")))).outcome());
    List<AuditRecord> audit = ((QuotaAnswer.AuditList) h.query(new QuotaQuery.ReadAudit(0, 100))).records();
    assertEquals(2, audit.size());
    assertTrue(audit.get(1).detail().contains("limit 10 -> 20"), audit.get(1).detail());
  }

  /** The whole quota state survives a restart byte for byte (RocksDB is the copy). */
  @Test
  void stateSurvivesARestart() {
    h.apply(concurrent("acme", "jobs", 10));
    long id = reserved(h.apply(reserve("acme/t1", "jobs", 4))).reservationId();
    h.apply(new IngestUsage("x", h.nowMillis, "acme", "jobs", 1, "jobs", 0));
    byte[] before = h.canonical();
    h.reopen();
    assertArrayEquals(before, h.canonical());
    h.apply(new CompleteReservation(id, List.of(4L)));
    assertEquals(0, h.usage("acme", "jobs").held());
    long next = reserved(h.apply(reserve("acme/t1", "jobs", 1))).reservationId();
    assertEquals(SlotIds.counterOf(id) + 1, SlotIds.counterOf(next), "ids continue from the stored counter");
  }

  /**
   * A restart with another settled-retention keeps the settlements made before it: each is
   * forgotten at the time its own retention gave, and the invariants hold on open and after.
   */
  @Test
  void settlementsOutliveAChangeOfTheirRetention() {
    h.apply(concurrent("acme", "jobs", 10));
    long id = reserved(h.apply(reserve("acme/t1", "jobs", 2))).reservationId();
    h.apply(new CompleteReservation(id, List.of(1L)));
    long hour = 3_600_000;
    QuotaOptions q = QuotaOptions.defaults();
    h.reopen(StateOptions.defaults().withQuota(new QuotaOptions(q.dedupRetentionMillis(), 2 * hour,
        q.maxFutureSkewMillis(), q.maxReservationTtlMillis(), q.maxItemsPerReservation(),
        q.maxScanRecords())));
    h.nowMillis += hour - 1;
    h.tick();
    assertTrue(((QuotaResult.ReservationSettled) h.apply(new CancelReservation(id))).alreadySettled(),
        "still remembered within the retention it settled under");
    h.nowMillis += 1;
    assertTrue(h.tick() >= 1, "forgotten when the retention it settled under has passed");
    assertEquals(Outcome.RESERVATION_UNKNOWN, rejected(h.apply(new CancelReservation(id))).outcome());
  }

  /** The worked example of docs/QUOTAS.md, step by step. */
  @Test
  void theWorkedExampleOfTheDocs() {
    h.apply(new SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT, Window.NONE, 10, "jobs", 8,
        Overage.REJECT, 0, 0, 0, "ops", 0, "plan: team")));
    h.apply(concurrent("acme/shop", "jobs", 6));
    h.apply(concurrent("acme/shop/web", "jobs", 4));
    h.apply(concurrent("acme/labs", "jobs", 6));
    long r1 = reserved(h.apply(reserve("acme/shop/web", "jobs", 3))).reservationId();
    assertEquals("acme/shop/web", rejected(h.apply(reserve("acme/shop/web", "jobs", 2))).levelScope());
    reserved(h.apply(reserve("acme/shop", "jobs", 2)));
    reserved(h.apply(reserve("acme/labs", "jobs", 4)));
    assertEquals(1, h.log().stream().filter(e -> e.type() == EventType.ALERT).count());
    assertEquals("acme", rejected(h.apply(reserve("acme/labs", "jobs", 2))).levelScope());
    h.apply(new SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT, Window.NONE, 8, "jobs", 8,
        Overage.REJECT, 0, 0, 0, "ops", 0, "downgrade")));
    assertEquals(9, h.usage("acme", "jobs").held(), "nothing revoked");
    h.apply(new CompleteReservation(r1, List.of(2L)));
    assertEquals(6, h.usage("acme", "jobs").held());
    assertEquals(0, h.usage("acme/shop/web", "jobs").held());
    RequestKey step8 = h.freshKey();
    long r4 = reserved(h.apply(step8, reserve("acme/labs", "jobs", 2))).reservationId();
    assertEquals(r4, reserved(h.apply(step8, reserve("acme/labs", "jobs", 2))).reservationId());
    assertEquals(8, h.usage("acme", "jobs").held());
    assertEquals(6, h.usage("acme/labs", "jobs").held());
  }
}
