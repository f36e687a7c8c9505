package dev.ration.protocol;

import dev.ration.wire.EventType;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.Aggregate;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.Outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of the quota kinds (0x40–0x5F) and a round trip of every quota message. A
 * failure here is a protocol change: append a kind, never edit a golden string to pass.
 */
class QuotaMessagesGoldenTest {
  private static final HexFormat HEX = HexFormat.of();

  private static void request(QuotaRequest q, String hex) throws Exception {
    Request r = new Request.Quota(q);
    byte[] bytes = MessageCodec.encodeRequest(1000, r);
    if (!hex.isEmpty()) {
      assertEquals(hex, HEX.formatHex(bytes), "encoding of " + q);
    }
    DecodedRequest d = MessageCodec.decodeRequest(q.kind(), bytes);
    assertEquals(1000, d.timeoutMillis());
    assertEquals(r, d.request());
  }

  private static void response(Kind kind, QuotaResponse q, String hex) throws Exception {
    Response r = new Response.Quota(q);
    byte[] bytes = MessageCodec.encodeResponse(r);
    if (!hex.isEmpty()) {
      assertEquals(hex, HEX.formatHex(bytes), "encoding of " + q);
    }
    assertEquals(r, MessageCodec.decodeResponse(kind, bytes));
  }

  @Test
  void kindsAreExplicit() {
    assertEquals(0x40, Kind.QUOTA_SET.code());
    assertEquals(0x44, Kind.RESERVE.code());
    assertEquals(0xC4, Kind.RESERVE.responseCode());
    assertEquals(0x4D, Kind.AUDIT_READ.code());
    assertEquals(40, Outcome.RESERVATION_UNKNOWN.code());
  }

  @Test
  void reserveGolden() throws Exception {
    request(new QuotaRequest.Reserve("a/b", List.of(new QuotaRequest.Item("j", 5)), 7, 60_000),
        "000003e8" + "0003612f62" + "00000001" + "00016a" + "0000000000000005"
            + "0000000000000007" + "000000000000ea60");
    response(Kind.RESERVE, new QuotaResponse.ReserveReply(Outcome.SUCCESS, "", "", "", 0, 7, 42,
            61_000, 7, List.of(new QuotaResponse.ReservedItem("j", 5, 0, "u"))),
        "0000" + "00" + "0000" + "0000" + "0000" + "0000000000000000" + "0000000000000007"
            + "000000000000002a" + "000000000000ee48" + "0000000000000007" + "00000001"
            + "00016a" + "0000000000000005" + "0000000000000000" + "000175");
    response(Kind.RESERVE, new QuotaResponse.ReserveReply(Outcome.LIMIT_EXHAUSTED, "m", "a", "j",
            300, 0, 0, 0, 0, List.of()),
        "0000" + "02" + "00016d" + "000161" + "00016a" + "000000000000012c" + "0000000000000000"
            + "0000000000000000" + "0000000000000000" + "0000000000000000" + "00000000");
  }

  @Test
  void budgetGolden() throws Exception {
    assertEquals(0x4F, Kind.BUDGET_GRANT.code());
    assertEquals(0x50, Kind.BUDGET_REPORT.code());
    assertEquals(0x51, Kind.BUDGET_RETURN.code());
    assertEquals(0x52, Kind.BUDGET_LIST.code());
    assertEquals(41, Outcome.BUDGET_UNKNOWN.code());
    request(new QuotaRequest.GrantBudget("h", "a/b", "j", 5, 60_000),
        "000003e8" + "000168" + "0003612f62" + "00016a" + "0000000000000005" + "000000000000ea60");
    response(Kind.BUDGET_GRANT, new QuotaResponse.BudgetGrantReply(Outcome.SUCCESS, "", "", "", 0,
            42, 5, 61_000, 120_000, 7, 1_000, 3),
        "0000" + "00" + "0000" + "0000" + "0000" + "0000000000000000" + "000000000000002a"
            + "0000000000000005" + "000000000000ee48" + "000000000001d4c0" + "0000000000000007"
            + "00000000000003e8" + "0000000000000003");
    request(new QuotaRequest.ReportBudgets(List.of(new QuotaRequest.BudgetReport(42, 3, 1, 8, 60_000))),
        "000003e8" + "00000001" + "000000000000002a" + "0000000000000003" + "0000000000000001"
            + "0000000000000008" + "000000000000ea60");
    response(Kind.BUDGET_REPORT, new QuotaResponse.BudgetReportsReply(Outcome.SUCCESS, "", List.of(
            new QuotaResponse.BudgetReportInfo(Outcome.BUDGET_UNKNOWN, "m", 0, 0, 0, 0, 0, false,
                false, 0))),
        "0000" + "00" + "0000" + "00000001" + "29" + "00016d" + "0000000000000000"
            + "0000000000000000" + "0000000000000000" + "0000000000000000" + "0000000000000000"
            + "00" + "00" + "0000000000000000");
    request(new QuotaRequest.ReturnBudget(42, 3, 2),
        "000003e8" + "000000000000002a" + "0000000000000003" + "0000000000000002");
    response(Kind.BUDGET_RETURN, new QuotaResponse.BudgetReturnReply(Outcome.SUCCESS, "", 42, 3, 5),
        "0000" + "00" + "0000" + "000000000000002a" + "0000000000000003" + "0000000000000005");
    request(new QuotaRequest.ListBudgets("a"), "000003e8" + "000161");
    assertEquals(0x53, Kind.RESERVE_BATCH.code());
    request(new QuotaRequest.ReserveBatch(List.of(new QuotaRequest.ReserveKeyed("", "a",
            List.of(new QuotaRequest.Item("s", 2)), 0, 1_000))),
        "000003e8" + "00000001" + "0000" + "000161" + "00000001" + "000173" + "0000000000000002"
            + "0000000000000000" + "00000000000003e8");
    response(Kind.RESERVE_BATCH, new QuotaResponse.ReserveBatchReply(Outcome.SUCCESS, "", List.of(
            new QuotaResponse.ReserveReply(Outcome.LIMIT_EXHAUSTED, "m", "a", "s", 5, 0, 0, 0, 0,
                List.of()))),
        "0000" + "00" + "0000" + "00000001" + "02" + "00016d" + "000161" + "000173"
            + "0000000000000005" + "0000000000000000" + "0000000000000000" + "0000000000000000"
            + "0000000000000000" + "00000000");
    response(Kind.BUDGET_LIST, new QuotaResponse.BudgetList(List.of(new QuotaResponse.BudgetInfo(
        42, "h", "a/b", "j", 5, 3, 1, 1_000, 61_000, 120_000, 3_600_000, false))), "");
  }

  @Test
  void settleGolden() throws Exception {
    request(new QuotaRequest.CompleteReservation(42, List.of(3L)),
        "000003e8" + "000000000000002a" + "00000001" + "0000000000000003");
    response(Kind.RESERVATION_COMPLETE, new QuotaResponse.SettleReply(Outcome.SUCCESS, "", 42, EventType.COMPLETED,
            List.of(3L), List.of(9L), false),
        "0000" + "00" + "0000" + "000000000000002a" + "01" + "00000001" + "0000000000000003"
            + "00000001" + "0000000000000009" + "00");
  }

  @Test
  void everyQuotaMessageRoundTrips() throws Exception {
    QuotaResponse.QuotaInfo info = new QuotaResponse.QuotaInfo(new QuotaSpec("acme/t1", "jobs",
        QuotaKind.CONCURRENT, Window.NONE, 10, "jobs", 8, Overage.ALLOW, 5, 0, 3, "alice", 1000,
        "why"), 0, 0, 4, 0, true);
    request(new QuotaRequest.SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT, Window.NONE, 10,
        "jobs", 8, Overage.ALLOW, 5, 0, 3, "alice", 0,
        "why")), "");
    request(new QuotaRequest.GetQuota("acme", "jobs", true), "");
    request(new QuotaRequest.ListQuotas("", false), "");
    request(new QuotaRequest.QuotaHistory("acme", "jobs"), "");
    request(new QuotaRequest.CancelReservation(9), "");
    request(new QuotaRequest.ListReservations("acme"), "");
    request(new QuotaRequest.IngestUsage("e1", 5, "acme", "bytes", -3, "B", 0), "");
    request(new QuotaRequest.ReadUsage("billing", 0, 100), "");
    request(new QuotaRequest.AckUsage("billing", 7), "");
    request(new QuotaRequest.AggregateUsage("acme", "", 0, 3_600_000), "");
    request(new QuotaRequest.Reconcile("acme/t1", "jobs", 0, 10, true, "ops", "drift"), "");
    request(new QuotaRequest.ReadAudit(1, 50), "");
    response(Kind.QUOTA_SET, new QuotaResponse.QuotaSetReply(Outcome.SUCCESS, "", 3, Optional.of(info)), "");
    response(Kind.QUOTA_SET, new QuotaResponse.QuotaSetReply(Outcome.STALE_CONFIG, "s", 4, Optional.empty()), "");
    response(Kind.QUOTA_GET, new QuotaResponse.QuotaFound(Optional.of(info)), "");
    response(Kind.QUOTA_LIST, new QuotaResponse.QuotaList(List.of(info, info)), "");
    response(Kind.QUOTA_HISTORY, new QuotaResponse.QuotaList(List.of(info)), "");
    response(Kind.RESERVATION_LIST, new QuotaResponse.ReservationList(List.of(
        new QuotaResponse.ReservationInfo(1, "acme", 3, 10, 20,
            List.of(new QuotaResponse.ReservedItem("jobs", 2, 1, "jobs"))))), "");
    response(Kind.USAGE_INGEST, new QuotaResponse.IngestReply(Outcome.SUCCESS, "", 5, true), "");
    response(Kind.USAGE_READ, new QuotaResponse.UsageBatch(List.of(new UsageEvent(
        1, "res:1:jobs", EventType.COMPLETED, 10, 11, "acme", "jobs", 2, "jobs", 1, 0)), 0, 1), "");
    response(Kind.USAGE_ACK, new QuotaResponse.AckReply(Outcome.SUCCESS, "", 7), "");
    response(Kind.USAGE_AGGREGATE, new QuotaResponse.AggregateReply(List.of(
        new Aggregate("acme", "jobs", 0, 5, 2)), 5), "");
    response(Kind.USAGE_RECONCILE, new QuotaResponse.ReconcileReply(Outcome.SUCCESS, "", List.of(
        new Drift("reservation", "acme/t1", "jobs", 1, 0, 5, 8, 9))), "");
    response(Kind.AUDIT_READ, new QuotaResponse.AuditList(List.of(new AuditRecord(
        1, 10, "alice", "quota.set", "acme", "jobs", 3, "why", "created"))), "");
  }

  @Test
  void aHostileCountIsRefusedBeforeAllocating() {
    byte[] bytes = HEX.parseHex("000003e8" + "0001" + "61" + "7fffffff");
    assertThrows(MalformedMessageException.class,
        () -> MessageCodec.decodeRequest(Kind.RESERVE, bytes));
  }

  /**
   * Goal: a usage batch of events with empty strings decodes. The declared count is bounded by
   * the smallest event (57 bytes); a bound of 60 would refuse a batch of 17 or more events from
   * reservations with an empty event id and unit as MALFORMED.
   */
  @Test
  void usageBatchOfSmallestEventsDecodes() throws Exception {
    List<UsageEvent> events = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      events.add(new UsageEvent(i, "", EventType.COMPLETED, 0, 0, "", "", 1, "", 7, 0));
    }
    response(Kind.USAGE_READ, new QuotaResponse.UsageBatch(events, 40, 40), "");
  }

  /**
   * Goal: an audit page of records with empty strings decodes: the declared count is bounded by
   * the smallest record (36 bytes), not by more.
   */
  @Test
  void auditListOfSmallestRecordsDecodes() throws Exception {
    List<AuditRecord> records = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      records.add(new AuditRecord(i, 0, "", "", "", "", 0, "", ""));
    }
    response(Kind.AUDIT_READ, new QuotaResponse.AuditList(records), "");
  }
}
