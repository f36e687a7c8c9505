package dev.ration.client.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The coalescer against a scripted transport: which frames go out, when, with which request ids
 * and entries, and which answer each caller gets.
 */
class RenewalCoalescerTest {
  /** A frame the coalescer sent and the future the test completes. */
  record Sent(long requestId, Request request, CompletableFuture<Response> reply) {}

  /** A transport that records every call and answers only when the test says so. */
  static final class Scripted extends OneCallClient {
    final List<Sent> sent = new ArrayList<>();

    Scripted() {
      super(1000);
    }

    @Override
    public synchronized <T extends Response> CompletableFuture<T> call(long requestId, Request request,
        Class<T> replyType) {
      CompletableFuture<Response> f = new CompletableFuture<>();
      sent.add(new Sent(requestId, request, f));
      return f.thenApply(replyType::cast);
    }
  }

  private final Scripted transport = new Scripted();
  private final AtomicLong now = new AtomicLong(0);
  private final RenewalCoalescer coalescer = new RenewalCoalescer(transport, 1, Duration.ofSeconds(60), now::get);

  private static Request.RenewLease renewal(long leaseId, long version, long emergency) {
    return new Request.RenewLease(leaseId, version, 100, 10, 90, 0, emergency);
  }

  private static Response.LeaseReply granted(long leaseId, long version) {
    return new Response.LeaseReply(Outcome.SUCCESS, "", 0, version, null, leaseId);
  }

  private static Response.LeaseReply refused(Outcome outcome, long version) {
    return new Response.LeaseReply(outcome, "refused", 0, version, null, 0);
  }

  /** A lease renewal that goes out at once and stays unanswered: later ones wait behind it. */
  private Sent occupyLeases() {
    coalescer.call(1, renewal(99, 1, 0), Response.LeaseReply.class);
    return transport.sent.get(transport.sent.size() - 1);
  }

  private static void answer(Sent occupier) {
    occupier.reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "", List.of(granted(99, 2))));
  }

  @Test
  void aLoneRenewalGoesOutAtOnce() throws Exception {
    CompletableFuture<Response.LeaseReply> a = coalescer.call(5, renewal(1, 5, 0), Response.LeaseReply.class);
    assertEquals(1, transport.sent.size(), "no wait for company");
    assertEquals(new Request.RenewLeases(List.of(renewal(1, 5, 0))), transport.sent.get(0).request());
    transport.sent.get(0).reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "", List.of(granted(1, 6))));
    assertEquals(granted(1, 6), a.get());
    // With nothing in flight again, the next one goes out at once too.
    coalescer.call(6, renewal(1, 6, 0), Response.LeaseReply.class);
    assertEquals(2, transport.sent.size());
  }

  @Test
  void renewalsArrivingWhileAFrameIsOutstandingShareTheNextFrameAndEachGetsItsOwnAnswer() throws Exception {
    Sent occupier = occupyLeases();
    CompletableFuture<Response.LeaseReply> a = coalescer.call(11, renewal(1, 5, 0), Response.LeaseReply.class);
    CompletableFuture<Response.LeaseReply> b = coalescer.call(12, renewal(2, 7, 3), Response.LeaseReply.class);
    CompletableFuture<Response.LeaseReply> c = coalescer.call(13, renewal(3, 9, 0), Response.LeaseReply.class);
    assertEquals(1, transport.sent.size(), "they wait while a frame is outstanding");
    answer(occupier);

    assertEquals(2, transport.sent.size(), "one frame for three renewals, sent when the answer came");
    Sent frame = transport.sent.get(1);
    assertEquals(new Request.RenewLeases(List.of(renewal(1, 5, 0), renewal(2, 7, 3), renewal(3, 9, 0))),
        frame.request());
    assertFalse(List.of(11L, 12L, 13L).contains(frame.requestId()), "the frame has a request id of its own");

    // The ledger judges each on its own: the second lease is stale, the others renew.
    frame.reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "",
        List.of(granted(1, 6), refused(Outcome.LEASE_EXPIRED, 7), granted(3, 10))));
    assertEquals(granted(1, 6), a.get());
    assertEquals(refused(Outcome.LEASE_EXPIRED, 7), b.get(), "only the stale lease fails");
    assertEquals(granted(3, 10), c.get());
    assertEquals(0, coalescer.held().get("leases"), "answered renewals are forgotten");
  }

  @Test
  void aResendAfterALostAnswerResendsTheSameFrameAndAnswersEveryCallerOnce() throws Exception {
    Sent occupier = occupyLeases();
    CompletableFuture<Response.LeaseReply> a = coalescer.call(21, renewal(1, 5, 4), Response.LeaseReply.class);
    CompletableFuture<Response.LeaseReply> b = coalescer.call(22, renewal(2, 7, 0), Response.LeaseReply.class);
    answer(occupier);
    Sent first = transport.sent.get(1);
    first.reply().completeExceptionally(new IllegalStateException("connection closed before the reply"));
    assertThrows(ExecutionException.class, a::get);
    assertThrows(ExecutionException.class, b::get);

    // The first holder resends its renewal (same id, same fields): the whole frame goes again.
    CompletableFuture<Response.LeaseReply> a2 = coalescer.call(21, renewal(1, 5, 4), Response.LeaseReply.class);
    assertEquals(3, transport.sent.size());
    Sent resend = transport.sent.get(2);
    assertEquals(first.requestId(), resend.requestId(), "the resend reuses the frame's request id");
    assertEquals(first.request(), resend.request(), "and its exact contents");
    // A later renewal of a third lease does not join the resent frame: it waits for the next.
    CompletableFuture<Response.LeaseReply> c = coalescer.call(23, renewal(3, 1, 0), Response.LeaseReply.class);
    assertEquals(3, transport.sent.size(), "the resend is outstanding");

    resend.reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "",
        List.of(granted(1, 6), granted(2, 8))));
    assertEquals(granted(1, 6), a2.get());
    assertEquals(4, transport.sent.size());
    assertEquals(new Request.RenewLeases(List.of(renewal(3, 1, 0))), transport.sent.get(3).request(),
        "the newcomer goes in a frame of its own");
    assertNotEquals(first.requestId(), transport.sent.get(3).requestId());
    // The second holder resends later: it is answered from the frame's answer, nothing is sent.
    CompletableFuture<Response.LeaseReply> b2 = coalescer.call(22, renewal(2, 7, 0), Response.LeaseReply.class);
    assertEquals(granted(2, 8), b2.get());
    assertEquals(4, transport.sent.size(), "no further frame");
    transport.sent.get(3).reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "", List.of(granted(3, 2))));
    assertEquals(granted(3, 2), c.get());
    assertEquals(0, coalescer.held().get("leases"));
    assertEquals(4, coalescer.framesSent(), "occupier, first send, resend, the newcomer's frame");
    assertEquals(6, coalescer.renewalsSent(), "1 + 2 + 2 + 1");
  }

  @Test
  void aResendWhileTheFrameIsInFlightWaitsForItInsteadOfSendingAgain() throws Exception {
    CompletableFuture<Response.LeaseReply> a = coalescer.call(31, renewal(1, 5, 0), Response.LeaseReply.class);
    CompletableFuture<Response.LeaseReply> again = coalescer.call(31, renewal(1, 5, 0), Response.LeaseReply.class);
    assertEquals(1, transport.sent.size());
    transport.sent.get(0).reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "", List.of(granted(1, 6))));
    assertEquals(granted(1, 6), a.get());
    assertEquals(granted(1, 6), again.get());
    assertEquals(1, transport.sent.size());
  }

  @Test
  void aReusedRequestIdWithOtherFieldsIsRefused() {
    coalescer.call(41, renewal(1, 5, 0), Response.LeaseReply.class);
    CompletableFuture<Response.LeaseReply> other = coalescer.call(41, renewal(1, 5, 9), Response.LeaseReply.class);
    ExecutionException e = assertThrows(ExecutionException.class, other::get);
    assertTrue(e.getCause() instanceof IllegalArgumentException, String.valueOf(e.getCause()));
  }

  @Test
  void aRefusedFrameRefusesEachRenewalWithItsOutcome() throws Exception {
    Sent occupier = occupyLeases();
    CompletableFuture<Response.LeaseReply> a = coalescer.call(51, renewal(1, 5, 0), Response.LeaseReply.class);
    CompletableFuture<Response.LeaseReply> b = coalescer.call(52, renewal(2, 5, 0), Response.LeaseReply.class);
    answer(occupier);
    transport.sent.get(1).reply().complete(new Response.RenewalsReply(Outcome.INVALID_ARGUMENT, "bad frame", List.of()));
    assertEquals(Outcome.INVALID_ARGUMENT, a.get().outcome());
    assertEquals(Outcome.INVALID_ARGUMENT, b.get().outcome());
    assertEquals("bad frame", b.get().message());
  }

  @Test
  void aFullFrameGoesOutWithoutWaitingAndTheRestWaitsForAnAnswer() throws Exception {
    Sent occupier = occupyLeases();
    int n = Request.RenewLeases.MAX_RENEWALS + 3;
    List<CompletableFuture<Response.LeaseReply>> calls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      calls.add(coalescer.call(10_000 + i, renewal(i + 1, 1, 0), Response.LeaseReply.class));
    }
    assertEquals(2, transport.sent.size(), "the occupier and a full frame");
    Sent full = transport.sent.get(1);
    assertEquals(Request.RenewLeases.MAX_RENEWALS, ((Request.RenewLeases) full.request()).renewals().size());
    answer(occupier);
    assertEquals(2, transport.sent.size(), "the full frame is still outstanding");
    List<Response.LeaseReply> answers = new ArrayList<>();
    for (Request.RenewLease r : ((Request.RenewLeases) full.request()).renewals()) {
      answers.add(granted(r.leaseId(), 2));
    }
    full.reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "", answers));
    assertEquals(3, transport.sent.size());
    Sent rest = transport.sent.get(2);
    assertEquals(3, ((Request.RenewLeases) rest.request()).renewals().size());
    rest.reply().complete(new Response.RenewalsReply(Outcome.SUCCESS, "",
        List.of(granted(n - 2, 2), granted(n - 1, 2), granted(n, 2))));
    for (int i = 0; i < n; i++) {
      assertEquals(granted(i + 1, 2), calls.get(i).get());
    }
  }

  @Test
  void slotRenewalsAreCoalescedIntoOneRenewSlotsFrame() throws Exception {
    Request.SlotRenewal s0 = new Request.SlotRenewal(9, 1, 1, 0, 1);
    Request.SlotRenewal s1 = new Request.SlotRenewal(1, 3, 2, 0, 2);
    Request.SlotRenewal s2 = new Request.SlotRenewal(2, 4, 5, 1, 5);
    coalescer.call(60, new Request.RenewSlots(List.of(s0)), Response.SlotRenewalsReply.class);
    // A lease renewal is another family: it does not wait behind the slot frame.
    coalescer.call(59, renewal(1, 1, 0), Response.LeaseReply.class);
    assertEquals(2, transport.sent.size());
    CompletableFuture<Response.SlotRenewalsReply> a = coalescer.call(61,
        new Request.RenewSlots(List.of(s1)), Response.SlotRenewalsReply.class);
    CompletableFuture<Response.SlotRenewalsReply> b = coalescer.call(62,
        new Request.RenewSlots(List.of(s2)), Response.SlotRenewalsReply.class);
    assertEquals(2, transport.sent.size());
    Response.SlotLeaseReply zero = new Response.SlotLeaseReply(Outcome.SUCCESS, "", 0, 2, null);
    transport.sent.get(0).reply().complete(new Response.SlotRenewalsReply(Outcome.SUCCESS, "", List.of(zero)));
    assertEquals(3, transport.sent.size());
    assertEquals(new Request.RenewSlots(List.of(s1, s2)), transport.sent.get(2).request());
    Response.SlotLeaseReply one = new Response.SlotLeaseReply(Outcome.SUCCESS, "", 0, 4, null);
    Response.SlotLeaseReply two = new Response.SlotLeaseReply(Outcome.VERSION_MISMATCH, "newer", 0, 4, null);
    transport.sent.get(2).reply().complete(new Response.SlotRenewalsReply(Outcome.SUCCESS, "", List.of(one, two)));
    assertEquals(List.of(one), a.get().replies());
    assertEquals(List.of(two), b.get().replies());
  }

  @Test
  void otherCallsPassThroughAndRenewalsWaitingTooLongAreForgotten() throws Exception {
    Request.ReturnLease ret = new Request.ReturnLease(1, 2, 0);
    coalescer.call(71, ret, Response.ReturnReply.class);
    assertEquals(1, transport.sent.size());
    assertSame(ret, transport.sent.get(0).request());

    // A renewal whose frame failed and whose holder never resends is dropped after the retention.
    CompletableFuture<Response.LeaseReply> a = coalescer.call(72, renewal(1, 5, 0), Response.LeaseReply.class);
    transport.sent.get(1).reply().completeExceptionally(new IllegalStateException("lost"));
    assertThrows(ExecutionException.class, a::get);
    assertEquals(1, coalescer.held().get("leases"));
    now.addAndGet(Duration.ofSeconds(61).toNanos());
    coalescer.call(73, renewal(2, 5, 0), Response.LeaseReply.class);
    assertEquals(1, coalescer.held().get("leases"), "only the new renewal is held");
  }

  @Test
  void aWindowOfZeroFramesIsRefused() {
    assertThrows(IllegalArgumentException.class,
        () -> new RenewalCoalescer(transport, 0, Duration.ofSeconds(60), now::get));
  }
}
