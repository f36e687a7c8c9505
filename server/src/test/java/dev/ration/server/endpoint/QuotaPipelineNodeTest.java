package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.quota.AckResult;
import dev.ration.client.quota.AuditEntry;
import dev.ration.client.quota.IngestResult;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.QuotaStatus;
import dev.ration.client.quota.ReconcileResult;
import dev.ration.client.quota.SetQuotaResult;
import dev.ration.client.quota.UsageAggregates;
import dev.ration.client.quota.UsageBatch;
import dev.ration.client.quota.UsageRecord;
import dev.ration.client.quota.UsageReport;
import dev.ration.client.time.LedgerTime;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The typed operator and pipeline calls of {@link QuotaClient} against a real node (Ratis,
 * RocksDB, the client's socket): catalog history, usage ingest, the consumer cursor (read and
 * acknowledge), hourly aggregates, reconciliation and its repair, and the audit log. Each call's
 * happy path, and for each a definite error: refused by the ledger as a value, failed by the
 * server as an invalid request, or refused by the client before anything is sent.
 */
class QuotaPipelineNodeTest {

  @Test
  void operatorAndPipelineCallsOverTheNetwork(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build())) {
      QuotaClient quotas = client.quotas();
      SetQuotaResult set = Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
          .retrying("a leader accepting SetQuota", e -> e instanceof RuntimeException,
              () -> quotas.setQuota(QuotaDefinition.concurrent("acme", "jobs", 10)
                  .actor("alice").reason("plan").build()));
      assertTrue(set.succeeded(), set.toString());
      assertEquals("units", set.quota().orElseThrow().spec().unit(), "the default unit is one the ledger accepts");
      SetQuotaResult raised = quotas.setQuota(QuotaDefinition.concurrent("acme", "jobs", 20).unit("jobs")
          .actor("bob").reason("upgrade").build());
      assertTrue(raised.succeeded(), raised.toString());

      // History: every version, oldest first; an unknown tenant has none.
      List<QuotaStatus> history = quotas.quotaHistory("acme", "jobs");
      assertEquals(List.of(10L, 20L), history.stream().map(s -> s.spec().limit()).toList());
      assertEquals(List.of(), quotas.quotaHistory("nobody", "jobs"));
      assertThrows(IllegalArgumentException.class, () -> quotas.quotaHistory("", "jobs"));

      // Ingest: idempotent by event id; refusals record nothing.
      LedgerTime now = client.clusterStatus().ledgerNow();
      IngestResult first = quotas.ingestUsage(UsageReport.of("ev-1", now, "acme/web", "calls", 5)
          .withUnit("requests"));
      assertTrue(first.succeeded(), first.toString());
      assertFalse(first.duplicate());
      IngestResult again = quotas.ingestUsage(UsageReport.of("ev-1", now, "acme/web", "calls", 5)
          .withUnit("requests"));
      assertTrue(again.duplicate(), "a retried report is counted once");
      assertEquals(first.sequence(), again.sequence());
      IngestResult other = quotas.ingestUsage(UsageReport.of("ev-1", now, "acme/web", "calls", 6)
          .withUnit("requests"));
      assertEquals(Outcome.INVALID_ARGUMENT, other.outcome(), "another event under a used id");
      LedgerTime tomorrow = LedgerTime.ofMillis(now.millis() + Duration.ofDays(1).toMillis());
      IngestResult future = quotas.ingestUsage(UsageReport.of("ev-2", tomorrow, "acme/web", "calls", 1));
      assertEquals(Outcome.INVALID_ARGUMENT, future.outcome());
      assertTrue(future.message().contains("after ledger now"), future.message());
      assertEquals(Outcome.INVALID_ARGUMENT,
          quotas.ingestUsage(UsageReport.of("res:forged", now, "acme/web", "calls", 1)).outcome());
      assertThrows(IllegalArgumentException.class,
          () -> UsageReport.of("ev-3", now, "acme/web", "calls", 1).forReservation(0));

      // The consumer cursor: read what is not acknowledged, acknowledge, read nothing more.
      UsageBatch batch = quotas.readUsage("billing", 100);
      assertEquals(0, batch.cursor());
      UsageRecord ev1 = batch.records().stream().filter(r -> r.eventId().equals("ev-1"))
          .findFirst().orElseThrow(() -> new AssertionError("ev-1 not read: " + batch));
      assertEquals(EventType.INGESTED, ev1.type());
      assertEquals(5, ev1.quantity());
      assertEquals("requests", ev1.unit());
      assertEquals(now, ev1.eventTime());
      assertTrue(ev1.reservation().isEmpty());
      assertTrue(batch.records().stream().noneMatch(r -> r.eventId().equals("ev-2")), "refused: not recorded");
      AckResult ack = quotas.ackUsage("billing", batch.readUpTo());
      assertTrue(ack.succeeded(), ack.toString());
      assertEquals(batch.readUpTo(), ack.cursor());
      UsageBatch after = quotas.readUsage("billing", 100);
      assertEquals(List.of(), after.records(), "acknowledged records are not read again");
      assertEquals(batch.readUpTo(), after.cursor());
      AckResult beyond = quotas.ackUsage("billing", after.lastSequence() + 100);
      assertEquals(Outcome.INVALID_ARGUMENT, beyond.outcome(), "a cursor past the log is refused");
      assertEquals(batch.readUpTo(), quotas.readUsage("billing", 1).cursor(), "and moves nothing");
      assertEquals(batch.records(), quotas.replayUsage(1, 100).records(), "replay ignores cursors");
      assertThrows(IllegalArgumentException.class, () -> quotas.replayUsage(0, 10));
      assertThrows(IllegalArgumentException.class, () -> quotas.readUsage("billing", 0));

      // Aggregates: per hour of event time, at every level above the event's scope.
      UsageAggregates agg = quotas.aggregateUsage("acme", "calls", LedgerTime.ofMillis(0), LedgerTime.NEVER);
      assertEquals(5, agg.total());
      assertEquals(1, agg.buckets().size(), agg.toString());
      assertEquals(1, agg.buckets().get(0).events());
      assertEquals(0, quotas.aggregateUsage("nobody", "calls", LedgerTime.ofMillis(0), LedgerTime.NEVER).total());
      assertThrows(IllegalArgumentException.class,
          () -> quotas.aggregateUsage("acme", "calls", now, now));

      // Reconcile reads; repair writes and is audited; an empty period is an invalid request.
      ReconcileResult report = quotas.reconcile("acme", "", LedgerTime.ofMillis(0), LedgerTime.NEVER);
      assertTrue(report.succeeded(), report.toString());
      assertEquals(List.of(), report.drifts(), "log and aggregates agree");
      ReconcileResult repair = quotas.repair("acme", "", LedgerTime.ofMillis(0), LedgerTime.NEVER,
          "carol", "monthly check");
      assertTrue(repair.succeeded(), repair.toString());
      RationException empty = assertThrows(RationException.class,
          () -> quotas.reconcile("acme", "", now, now));
      assertEquals(ErrorCode.INVALID_ARGUMENT, empty.code());
      assertTrue(empty.definite(), "refused before it was proposed");

      // A batch of reservations: one request, each judged alone, answered in order.
      List<dev.ration.client.quota.ReserveResult> reserved = quotas.tryReserveAll(List.of(
          dev.ration.client.quota.ReserveRequest.of("acme/a", "jobs", 15, Duration.ofMinutes(1)),
          dev.ration.client.quota.ReserveRequest.of("acme/b", "jobs", 10, Duration.ofMinutes(1)),
          new dev.ration.client.quota.ReserveRequest("acme/c", List.of(
              new dev.ration.client.quota.Item("jobs", 5)), 0, Duration.ofMinutes(1), "upload-7"),
          dev.ration.client.quota.ReserveRequest.of("acme/d", "disk", 1, Duration.ofMinutes(1))));
      assertEquals(4, reserved.size());
      assertTrue(reserved.get(0).succeeded(), reserved.get(0).toString());
      assertEquals(Outcome.LIMIT_EXHAUSTED, reserved.get(1).outcome(), "15 + 10 > 20");
      assertTrue(reserved.get(2).succeeded(), "15 + 5 fits");
      assertEquals(Outcome.LIMIT_UNKNOWN, reserved.get(3).outcome());
      assertEquals(reserved.get(2).reservationId(), quotas.tryReserveAll(List.of(
          new dev.ration.client.quota.ReserveRequest("acme/c", List.of(
              new dev.ration.client.quota.Item("jobs", 5)), 0, Duration.ofMinutes(1),
              "upload-7"))).get(0).reservationId(), "a key inside a batch: its first decision");
      assertThrows(IllegalArgumentException.class, () -> quotas.tryReserveAll(List.of()));

      // Audit: who changed what, when and why.
      List<AuditEntry> audit = quotas.readAudit(1, 100);
      assertEquals(List.of("alice/quota.set/plan", "bob/quota.set/upgrade", "carol/usage.reconcile/monthly check"),
          audit.stream().map(a -> a.actor() + "/" + a.action() + "/" + a.reason()).toList());
      assertTrue(audit.get(1).at().compareTo(audit.get(0).at()) >= 0, "in ledger-time order");
      assertEquals(List.of(), quotas.readAudit(audit.get(2).sequence() + 1, 100), "past the end");
      assertThrows(IllegalArgumentException.class, () -> quotas.readAudit(0, 10));
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }
}
