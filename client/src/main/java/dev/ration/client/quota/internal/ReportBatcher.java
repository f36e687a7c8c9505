package dev.ration.client.quota.internal;

import dev.ration.client.quota.BudgetReport;
import dev.ration.client.quota.BudgetReportResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Not API: sends the budget reports of one client's holders (its quota limiters and its pools'
 * slot budgets) together, without a fixed wait, as Nagle's algorithm does for TCP: reports go out
 * at once when fewer than {@code maxInFlight} report frames of this client wait for their answer;
 * otherwise they wait, and every report submitted meanwhile goes in the next frame (at most
 * {@link #MAX_REPORTS} reports), sent when an answer frees the window. A lone caller never waits
 * for company; many share a frame per round trip. The ledger judges and answers each report
 * alone, so each caller gets its own answers, in its order.
 *
 * <p>A report carries its budget's report sequence, which the ledger counts once, so a holder's
 * resend of a report whose answer it did not get may go in any frame (unlike lease renewals,
 * which are idempotent by request id and must stay in their first frame).
 *
 * <p>Thread-safe; callers' futures are completed outside its lock.
 */
public final class ReportBatcher {
  /** The most reports one frame carries (the ledger's bound). */
  public static final int MAX_REPORTS = 1_000;

  private final Function<List<BudgetReport>, CompletableFuture<List<BudgetReportResult>>> send;
  private final int maxInFlight;
  private final Object lock = new Object();
  // Guarded by lock.
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private int inFlight;
  private long framesSent;
  private long reportsSent;

  private record Pending(List<BudgetReport> reports,
      CompletableFuture<List<BudgetReportResult>> answer) {}

  /**
   * @param send sends one frame of reports and answers one result per report, in order
   * @param maxInFlight frames sent and not yet answered before reports wait (at least 1)
   */
  public ReportBatcher(Function<List<BudgetReport>, CompletableFuture<List<BudgetReportResult>>> send,
      int maxInFlight) {
    this.send = Objects.requireNonNull(send, "send");
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight " + maxInFlight + " must be >= 1");
    }
    this.maxInFlight = maxInFlight;
  }

  /**
   * Sends {@code reports} in the next frame.
   *
   * @param reports one caller's reports (a batch larger than a frame goes in a frame of its own)
   * @return one answer per report, in order; fails as the frame's call failed
   */
  public CompletableFuture<List<BudgetReportResult>> submit(List<BudgetReport> reports) {
    Pending p = new Pending(List.copyOf(reports), new CompletableFuture<>());
    synchronized (lock) {
      waiting.add(p);
    }
    pump();
    return p.answer();
  }

  /**
   * Frames sent so far.
   *
   * @return the count
   */
  public long framesSent() {
    synchronized (lock) {
      return framesSent;
    }
  }

  /**
   * Reports sent so far, over all frames.
   *
   * @return the count
   */
  public long reportsSent() {
    synchronized (lock) {
      return reportsSent;
    }
  }

  /** Sends frames while the window has room and reports wait. */
  private void pump() {
    while (true) {
      List<Pending> frame = new ArrayList<>();
      List<BudgetReport> all = new ArrayList<>();
      synchronized (lock) {
        if (inFlight >= maxInFlight || waiting.isEmpty()) {
          return;
        }
        while (!waiting.isEmpty()
            && (frame.isEmpty() || all.size() + waiting.peek().reports().size() <= MAX_REPORTS)) {
          Pending next = waiting.poll();
          frame.add(next);
          all.addAll(next.reports());
        }
        inFlight++;
        framesSent++;
        reportsSent += all.size();
      }
      CompletableFuture<List<BudgetReportResult>> call;
      try {
        call = send.apply(all);
      } catch (RuntimeException e) {
        call = CompletableFuture.failedFuture(e);
      }
      call.whenComplete((results, failure) -> {
        synchronized (lock) {
          inFlight--;
        }
        try {
          answer(frame, all.size(), results, failure);
        } catch (RuntimeException e) {
          // A malformed answer: every caller of the frame not yet answered gets the failure.
          frame.forEach(p -> p.answer().completeExceptionally(e));
        } finally {
          pump();
        }
      });
    }
  }

  private static void answer(List<Pending> frame, int sent, List<BudgetReportResult> results,
      Throwable failure) {
    if (failure == null && (results == null || results.size() != sent)) {
      failure = new IllegalStateException("a report frame of " + sent + " got "
          + (results == null ? "no" : results.size()) + " answers");
    }
    int at = 0;
    for (Pending p : frame) {
      if (failure != null) {
        p.answer().completeExceptionally(failure);
      } else {
        p.answer().complete(List.copyOf(results.subList(at, at + p.reports().size())));
        at += p.reports().size();
      }
    }
  }
}
