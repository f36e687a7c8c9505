package dev.ration.client.slots;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.internal.QuotaAccess;
import dev.ration.client.slots.internal.QuotaSlotLedger;
import dev.ration.client.slots.internal.SlotsAccess;
import dev.ration.client.transport.OneCallClient;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A pool's slot budget on a scope path ({@link QuotaSlotLedger}) whose first grant gets no answer:
 * the grant is resent as it was under its request id, so a grant the coordinator applied after
 * the holder gave up is answered to the resend (one budget, held) instead of staying counted
 * against the path's caps, held by nobody, until its lease ends.
 */
class QuotaSlotsResendTest {
  static final Waits WAIT = Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(5));

  /** Answers grants (budget 11, 3 slots, never-ending window), reports and returns. */
  static final class Scripted extends OneCallClient {
    final List<Long> grantIds = new CopyOnWriteArrayList<>();
    final List<QuotaRequest.GrantBudget> grants = new CopyOnWriteArrayList<>();
    final AtomicBoolean loseFirstGrant = new AtomicBoolean();
    volatile Runnable onLostReply = () -> {};

    Scripted() {
      super(0);
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(long requestId, Request request,
        Class<T> replyType) {
      QuotaRequest q = ((Request.Quota) request).request();
      QuotaResponse reply;
      if (q instanceof QuotaRequest.GrantBudget g) {
        grantIds.add(requestId);
        grants.add(g);
        if (loseFirstGrant.compareAndSet(true, false)) {
          onLostReply.run();
          return CompletableFuture.failedFuture(new IllegalStateException("deadline exceeded"));
        }
        reply = new QuotaResponse.BudgetGrantReply(Outcome.SUCCESS, "", g.scope(), g.resource(), 0,
            11, 3, 0, Long.MAX_VALUE, 1, 0, 0);
      } else if (q instanceof QuotaRequest.ReportBudgets r) {
        reply = new QuotaResponse.BudgetReportsReply(Outcome.SUCCESS, "", r.reports().stream()
            .map(b -> new QuotaResponse.BudgetReportInfo(Outcome.SUCCESS, "", b.budgetId(), 3,
                b.spent(), 0, Long.MAX_VALUE, false, false, 0)).toList());
      } else if (q instanceof QuotaRequest.ReturnBudget r) {
        reply = new QuotaResponse.BudgetReturnReply(Outcome.SUCCESS, "", r.budgetId(), r.spent(), 3);
      } else {
        return CompletableFuture.failedFuture(new IllegalStateException("unexpected " + q));
      }
      return CompletableFuture.completedFuture(replyType.cast(new Response.Quota(reply)));
    }
  }

  @Test
  void anUnansweredGrantIsResentUnderItsRequestId() throws Exception {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-07T12:00:00Z"));
    Instant first = now.get();
    Scripted t = new Scripted();
    t.loseFirstGrant.set(true);
    t.onLostReply = () -> now.set(first.plusMillis(500));
    QuotaClient quotas = QuotaAccess.client(t);
    try (LeasedSlots slots = SlotsAccess.start(new QuotaSlotLedger(quotas, "h", "acme/shop",
        "jobs", Duration.ofSeconds(4)), 5, LeasedSlotsTest.clockOf(now))) {
      WAIT.until("the budget", slots::permits, p -> p > 0);
      assertEquals(2, t.grantIds.size(), "one lost grant, one resend: " + t.grantIds);
      assertEquals(t.grantIds.get(0), t.grantIds.get(1), "the resend keeps the request id");
      assertEquals(t.grants.get(0), t.grants.get(1), "the resend is the same grant");
      assertTrue(!slots.validUntil().isAfter(first.plusSeconds(4)),
          "the budget's local life counts from the first attempt: " + slots.validUntil());
    }
  }

  @Test
  void anAnsweredGrantIsNotResentAndTheNextIsANewRequest() throws Exception {
    Scripted t = new Scripted();
    QuotaSlotLedger ledger = new QuotaSlotLedger(QuotaAccess.client(t), "h", "acme/shop", "jobs",
        Duration.ofSeconds(4));
    ledger.acquire(2).get();
    ledger.acquire(2).get();
    assertEquals(2, t.grantIds.size());
    assertNotEquals(t.grantIds.get(0), t.grantIds.get(1), "an answered grant's id is not reused");
    t.loseFirstGrant.set(true);
    assertTrue(ledger.acquire(5).handle((a, e) -> e != null).get(), "the lost one fails");
    ledger.acquire(7).get();
    assertEquals(t.grantIds.get(2), t.grantIds.get(3), "resent under its id");
    assertEquals(5, t.grants.get(3).amount(), "resent as it was, whatever the demand is now");
    t.loseFirstGrant.set(true);
    assertTrue(ledger.acquire(5).handle((a, e) -> e != null).get(), "the lost one fails");
    ledger.forgetUnanswered();
    ledger.acquire(5).get();
    assertNotEquals(t.grantIds.get(4), t.grantIds.get(5), "a forgotten grant is not resent");
  }
}
