package dev.ration.statemachine.quota;

import static dev.ration.statemachine.quota.QuotaHarness.concurrent;
import static dev.ration.statemachine.quota.QuotaHarness.reserve;
import static dev.ration.statemachine.quota.QuotaHarness.reserved;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.quota.UsageEvent;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction of the usage and audit logs in log time, through the real replica on RocksDB: a
 * record goes once its retention passed and every registered consumer acknowledged it, or once
 * its maximum retention passed; a consumer left behind gets a definite answer naming the gap.
 * The harness runs the full verify() (Q4, Q6 and Q8 included) after every entry.
 */
class QuotaRetentionTest {
  static final long HOUR = 3_600_000L;

  @TempDir Path dir;
  QuotaHarness h;
  long t0;

  @BeforeEach
  void open() {
    h = new QuotaHarness(dir);
    h.reopen(options());
    t0 = h.nowMillis;
  }

  @AfterEach
  void close() {
    h.close();
  }

  /** dedup and settled 1h, usage kept 2h (acknowledged) to 5h (at most), audit 3h. */
  static StateOptions options() {
    return StateOptions.defaults().withQuota(new QuotaOptions(HOUR, HOUR, 60_000, 7 * 24 * HOUR,
        16, 100_000).withUsageRetention(2 * HOUR, 5 * HOUR).withAuditRetention(3 * HOUR));
  }

  private List<Long> sequences(QuotaAnswer a) {
    return assertInstanceOf(QuotaAnswer.UsageBatch.class, a).events().stream()
        .map(UsageEvent::sequence).toList();
  }

  private void ingest(int n) {
    for (int i = 0; i < n; i++) {
      h.apply(new IngestUsage("e" + h.nowMillis + "-" + i, h.nowMillis, "acme/t1", "calls", 1 + i, "n", 0));
    }
  }

  @Test
  void acknowledgedRecordsGoAfterTheRetentionAndAStalledConsumerIsToldWhatItLost() {
    h.apply(concurrent("acme", "calls", 1_000));
    ingest(5);
    h.apply(new AckUsage("billing", 2));

    h.nowMillis = t0 + 2 * HOUR - 1;
    h.tick();
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), sequences(h.query(new QuotaQuery.ReadUsage("", 1, 100))),
        "nothing goes before the retention, acknowledged or not");

    h.nowMillis = t0 + 2 * HOUR;
    h.tick();
    QuotaAnswer.UsageCompacted gone = assertInstanceOf(QuotaAnswer.UsageCompacted.class,
        h.query(new QuotaQuery.ReadUsage("", 1, 100)));
    assertEquals(3, gone.firstSequence(), "only what billing acknowledged went: 1 and 2");
    assertTrue(gone.message().contains("1..2"), gone.message());
    assertEquals(List.of(3L, 4L, 5L), sequences(h.query(new QuotaQuery.ReadUsage("billing", 0, 100))));
    assertEquals(t0 + 3 * HOUR, h.state().nextDueMillis(),
        "next: the audit record of the quota (3h); the unacknowledged records wait for 5h");

    h.nowMillis = t0 + 3 * HOUR;
    h.tick();
    assertEquals(List.of(), assertInstanceOf(QuotaAnswer.AuditList.class,
        h.query(new QuotaQuery.ReadAudit(0, 100))).records(), "the audit record's retention passed");
    assertEquals(t0 + 5 * HOUR, h.state().nextDueMillis());

    h.nowMillis = t0 + 5 * HOUR;
    h.tick();
    QuotaAnswer.UsageCompacted stalled = assertInstanceOf(QuotaAnswer.UsageCompacted.class,
        h.query(new QuotaQuery.ReadUsage("billing", 0, 100)));
    assertEquals(2, stalled.cursor());
    assertEquals(6, stalled.firstSequence());
    assertTrue(stalled.message().contains("consumer billing stalled")
        && stalled.message().contains("3..5") && stalled.message().contains("Acknowledge sequence 5"),
        stalled.message());
    assertEquals(Long.MAX_VALUE, h.state().nextDueMillis(), "both logs are empty");
    QuotaAnswer.QuotaStatusAnswer status = assertInstanceOf(QuotaAnswer.QuotaStatusAnswer.class,
        h.query(new QuotaQuery.QuotaStatus()));
    assertEquals(6, status.firstSequence(), "the status (and its metric) shows where the log starts");
    assertEquals(5, status.lastSequence());

    h.reopen(options()); // what was compacted stays compacted after a restart
    assertInstanceOf(QuotaAnswer.UsageCompacted.class, h.query(new QuotaQuery.ReadUsage("billing", 0, 100)));
    assertEquals(5, ((QuotaResult.UsageAcked) h.apply(new AckUsage("billing", 5))).cursor(),
        "acknowledging the gap is the explicit way on");
    assertEquals(List.of(), sequences(h.query(new QuotaQuery.ReadUsage("billing", 0, 100))));
    assertEquals(5, ((QuotaResult.UsageAcked) h.apply(new AckUsage("late", 0))).cursor(),
        "a consumer registering now starts at the first kept record");
    ingest(1);
    assertEquals(List.of(6L), sequences(h.query(new QuotaQuery.ReadUsage("billing", 0, 100))));
    assertEquals(List.of(6L), sequences(h.query(new QuotaQuery.ReadUsage("new-reader", 0, 100))),
        "a consumer that never acknowledged reads from the first kept record");
  }

  @Test
  void withoutConsumersRecordsGoAtTheRetentionWithTheirReservationIndex() {
    h.apply(concurrent("acme", "jobs", 10));
    long id = reserved(h.apply(reserve("acme/t1", "jobs", 2))).reservationId();
    h.apply(new CompleteReservation(id, List.of(2L)));
    ingest(3);
    long last = assertInstanceOf(QuotaAnswer.UsageBatch.class,
        h.query(new QuotaQuery.ReadUsage("", 1, 100))).lastSequence();
    assertTrue(last >= 4, "a settlement event and three ingested ones");
    QuotaAnswer.AggregateList before = assertInstanceOf(QuotaAnswer.AggregateList.class,
        h.query(new QuotaQuery.AggregateUsage("acme", "", 0, Long.MAX_VALUE)));

    h.nowMillis = t0 + 2 * HOUR;
    h.tick(); // verify() after it: no index entry or event-id record names a removed record
    QuotaAnswer.UsageCompacted gone = assertInstanceOf(QuotaAnswer.UsageCompacted.class,
        h.query(new QuotaQuery.ReadUsage("", 1, 100)));
    assertEquals(last + 1, gone.firstSequence());
    assertEquals(before, h.query(new QuotaQuery.AggregateUsage("acme", "", 0, Long.MAX_VALUE)),
        "aggregates keep the usage of compacted records");
  }

  @Test
  void aTickCompactsAtMostItsBudgetAndTheRestFollows() {
    h.apply(concurrent("acme", "calls", 1_000_000));
    ingest(30);
    h.nowMillis = t0 + HOUR;
    h.tick(); // the event ids' dedup retention ends first: these expiry records are popped now
    h.nowMillis = t0 + 2 * HOUR;
    h.state().apply(1, h.state().appliedIndex() + 1, dev.ration.statemachine.command.Batch.of(
        h.nowMillis, List.of(new dev.ration.statemachine.command.Proposal(
            dev.ration.statemachine.command.RequestKey.NONE,
            new dev.ration.statemachine.command.Tick(10)))));
    h.reopen(options());
    QuotaAnswer.UsageCompacted partial = assertInstanceOf(QuotaAnswer.UsageCompacted.class,
        h.query(new QuotaQuery.ReadUsage("", 1, 100)));
    assertEquals(11, partial.firstSequence(), "a budget of ten items removes ten records");
    assertTrue(h.state().nextDueMillis() <= h.nowMillis, "the rest is due at once");
    h.tick();
    assertEquals(31, assertInstanceOf(QuotaAnswer.UsageCompacted.class,
        h.query(new QuotaQuery.ReadUsage("", 1, 100))).firstSequence());
  }

  /** An ingested event id is remembered for the dedup retention, then forgotten by Tick. */
  @Test
  void anEventIdIsForgottenWhenItsDedupRetentionEnds() {
    long eventTime = h.nowMillis;
    QuotaResult.UsageIngested first = assertInstanceOf(QuotaResult.UsageIngested.class,
        h.apply(new IngestUsage("svc-1", eventTime, "acme", "calls", 1, "n", 0)));
    h.nowMillis = t0 + HOUR - 1;
    h.tick();
    QuotaResult.UsageIngested again = assertInstanceOf(QuotaResult.UsageIngested.class,
        h.apply(new IngestUsage("svc-1", eventTime, "acme", "calls", 1, "n", 0)));
    assertTrue(again.duplicate(), "within the retention: the first sequence answers");
    assertEquals(first.sequence(), again.sequence());
    h.nowMillis = t0 + HOUR;
    assertTrue(h.tick() >= 1, "the id's expiry record is due and frees it");
    QuotaResult.UsageIngested later = assertInstanceOf(QuotaResult.UsageIngested.class,
        h.apply(new IngestUsage("svc-1", h.nowMillis, "acme", "calls", 1, "n", 0)));
    assertTrue(!later.duplicate() && later.sequence() == first.sequence() + 1,
        "forgotten: the same id is a new event now " + later);
  }

  @Test
  void aUsageRetentionShorterThanTheDedupRetentionIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new QuotaOptions(2 * HOUR, HOUR, 0,
        HOUR, 1, 1_000).withUsageRetention(HOUR, 5 * HOUR));
    assertThrows(IllegalArgumentException.class, () -> new QuotaOptions(HOUR, HOUR, 0,
        HOUR, 1, 1_000).withUsageRetention(2 * HOUR, HOUR));
  }
}
