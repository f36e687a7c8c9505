package dev.ration.client.quota.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.quota.BudgetReport;
import dev.ration.client.quota.BudgetReportResult;
import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The report batcher over a hand-answered sender: when frames go, what they hold, who gets what. */
class ReportBatcherTest {
  private final List<List<BudgetReport>> frames = new ArrayList<>();
  private final List<CompletableFuture<List<BudgetReportResult>>> calls = new ArrayList<>();
  private final ReportBatcher batcher = new ReportBatcher(reports -> {
    frames.add(reports);
    CompletableFuture<List<BudgetReportResult>> f = new CompletableFuture<>();
    calls.add(f);
    return f;
  }, 2);

  private static List<BudgetReport> reports(long... ids) {
    return LongStream.of(ids).mapToObj(id -> new BudgetReport(id, 0, 1, 1, Duration.ofSeconds(1)))
        .toList();
  }

  /** The ledger's answer: one result per report, its budget id as the granted amount. */
  private void answer(int frame) {
    calls.get(frame).complete(frames.get(frame).stream().map(r -> new BudgetReportResult(
        Outcome.SUCCESS, "", r.budgetId(), r.budgetId(), 0, LedgerTime.ofMillis(1),
        LedgerTime.ofMillis(1), false, false, LedgerTime.ofMillis(0))).toList());
  }

  /** Goal: a lone caller's reports go at once, in a frame of their own. */
  @Test
  void aLoneCallerNeverWaits() {
    CompletableFuture<List<BudgetReportResult>> a = batcher.submit(reports(1, 2));
    assertEquals(List.of(reports(1, 2)), frames);
    answer(0);
    assertEquals(List.of(1L, 2L), a.join().stream().map(BudgetReportResult::granted).toList());
  }

  /**
   * Goal: with the window full, reports wait and go together in the next frame when an answer
   * comes; each caller gets its own answers in its order.
   */
  @Test
  void waitingReportsShareTheNextFrame() {
    batcher.submit(reports(1));
    batcher.submit(reports(2));
    CompletableFuture<List<BudgetReportResult>> c = batcher.submit(reports(3, 4));
    CompletableFuture<List<BudgetReportResult>> d = batcher.submit(reports(5));
    assertEquals(2, frames.size(), "two frames in flight; the rest wait");
    answer(0);
    assertEquals(3, frames.size());
    assertEquals(reports(3, 4, 5), frames.get(2), "both waiting callers in one frame");
    assertFalse(c.isDone());
    answer(2);
    assertEquals(List.of(3L, 4L), c.join().stream().map(BudgetReportResult::granted).toList());
    assertEquals(List.of(5L), d.join().stream().map(BudgetReportResult::granted).toList());
    assertEquals(3, batcher.framesSent());
    assertEquals(5, batcher.reportsSent());
  }

  /** Goal: a frame that fails fails its callers only; the next frame still goes. */
  @Test
  void aFailedFrameFailsOnlyItsCallers() {
    CompletableFuture<List<BudgetReportResult>> a = batcher.submit(reports(1));
    CompletableFuture<List<BudgetReportResult>> b = batcher.submit(reports(2));
    CompletableFuture<List<BudgetReportResult>> c = batcher.submit(reports(3));
    calls.get(0).completeExceptionally(new IllegalStateException("no answer"));
    assertTrue(a.isCompletedExceptionally());
    assertEquals(3, frames.size(), "the freed window sends the waiting report");
    answer(1);
    answer(2);
    assertEquals(2L, b.join().get(0).granted());
    assertEquals(3L, c.join().get(0).granted());
  }

  /** Goal: a frame holds at most 1,000 reports; a caller's reports are never split. */
  @Test
  void framesHoldAtMostAThousandReports() {
    batcher.submit(reports(1));
    batcher.submit(reports(2));
    List<CompletableFuture<List<BudgetReportResult>>> waiting = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      waiting.add(batcher.submit(reports(LongStream.range(0, 600).toArray())));
    }
    answer(0);
    answer(1);
    assertEquals(4, frames.size());
    assertEquals(600, frames.get(2).size());
    assertEquals(600, frames.get(3).size(), "600 + 600 would pass the bound: two frames");
    answer(2);
    answer(3);
    assertEquals(5, frames.size());
    answer(4);
    waiting.forEach(w -> assertEquals(600, w.join().size()));
  }

  /** Goal: an answer with the wrong number of results fails its callers rather than mix them up. */
  @Test
  void aShortAnswerFailsItsCallers() {
    CompletableFuture<List<BudgetReportResult>> a = batcher.submit(reports(1, 2));
    calls.get(0).complete(List.of());
    assertTrue(a.isCompletedExceptionally());
  }
}
