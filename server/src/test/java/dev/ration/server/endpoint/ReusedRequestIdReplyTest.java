package dev.ration.server.endpoint;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.lease.Limit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Kind;
import dev.ration.protocol.MessageCodec;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.statemachine.command.Fingerprint;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.Policy;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The replica refuses a request whose (client id, request id) already answered another request
 * with {@code Result.Rejected(INVALID_ARGUMENT)}. Every mutation kind must carry that refusal
 * to the caller as its own reply with outcome INVALID_ARGUMENT and the message intact (never an
 * INTERNAL error, never an undecodable reply), and the operation named in the message must be
 * the kind's wire name.
 */
class ReusedRequestIdReplyTest {
  /** One request of every mutation kind. */
  static final List<Request> MUTATIONS = List.of(
      new Request.SetLimit(new Limit("t", "r", 10, 5, Mode.HARD, 1_000, 100, 0, Policy.FREE_CAPACITY, 0)),
      new Request.AcquireLease("t", "r", "h", 1, 1),
      new Request.RenewLease(1, 1, 1, 1, 0, 0, 0),
      new Request.RenewLeases(List.of(new Request.RenewLease(1, 1, 1, 1, 0, 0, 0))),
      new Request.ReturnLease(1, 1, 0),
      new Request.SetLimitConcurrency(
          new Limit("t", "r", 10, 5, Mode.HARD, 1_000, 100, 0, Policy.FREE_CAPACITY, 0), 4),
      new Request.AcquireSlots("t", "r", "h", 2),
      new Request.RenewSlots(List.of(new Request.SlotRenewal(1, 1, 1, 0, -1))),
      new Request.Ttl(new TtlRequest.Put("ns", "k1", new byte[] {'v'}, 60_000)),
      new Request.Ttl(new TtlRequest.CompareAndSet("ns", "k1", 1, new byte[] {'v'}, 60_000)),
      new Request.Ttl(new TtlRequest.Refresh("ns", "k1", 60_000, 0)),
      new Request.Ttl(new TtlRequest.Update("ns", "k1", new byte[] {2}, 0)),
      new Request.Ttl(new TtlRequest.Delete("ns", "k1", 0)),
      new Request.Ttl(new TtlRequest.SetNamespace("ns", 10, 1_000, CapacityPolicy.REJECT)),
      new Request.Quota(new QuotaRequest.SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT,
          Window.NONE, 10, "jobs", 0, Overage.REJECT, 0, 0, 0, "alice", 0, "plan"))),
      new Request.Quota(new QuotaRequest.Reserve("acme", List.of(new QuotaRequest.Item("jobs", 1)),
          0, 60_000)),
      new Request.Quota(new QuotaRequest.ReserveKeyed("order-42", "acme",
          List.of(new QuotaRequest.Item("jobs", 1)), 0, 60_000)),
      new Request.Quota(new QuotaRequest.CompleteReservation(1, List.of(1L))),
      new Request.Quota(new QuotaRequest.CancelReservation(1)),
      new Request.Quota(new QuotaRequest.IngestUsage("e1", 1_000, "acme", "jobs", 1, "jobs", 0)),
      new Request.Quota(new QuotaRequest.AckUsage("billing", 1)),
      new Request.Quota(new QuotaRequest.Reconcile("acme", "jobs", 0, 3_600_000, true, "alice",
          "repair")),
      new Request.Quota(new QuotaRequest.GrantBudget("eu-1", "acme/shop", "calls", 10, 10_000)),
      new Request.Quota(new QuotaRequest.ReserveBatch(List.of(new QuotaRequest.ReserveKeyed("",
          "acme/shop", List.of(new QuotaRequest.Item("jobs", 1)), 0, 60_000)))),
      new Request.Quota(new QuotaRequest.ReportBudgets(
          List.of(new QuotaRequest.BudgetReport(1, 1, 1, 10, 10_000)))),
      new Request.Quota(new QuotaRequest.ReturnBudget(1, 1, 2)),
      new Request.CreateToken(5, "svc", new byte[16], new byte[32], 0),
      new Request.RevokeToken(5),
      new Request.GrantRole("svc", "service", "acme"),
      new Request.RevokeRole("svc", "service", "acme"));

  private final Translation translation = new Translation(128);

  /** Goal: the samples above are exactly the mutation kinds (a new one must be added here). */
  @Test
  void everyMutationKindIsCovered() {
    Set<Kind> mutations = Arrays.stream(Kind.values()).filter(Kind::mutation)
        .collect(Collectors.toCollection(TreeSet::new));
    Set<Kind> covered = MUTATIONS.stream().map(Request::kind)
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(mutations, covered);
  }

  /** Goal: the state machine names each command by the wire name of the kind it serves. */
  @Test
  void refusalsNameTheKindAsTheWireDoes() {
    for (Request request : MUTATIONS) {
      Translation.Mutation m = assertInstanceOf(Translation.Mutation.class,
          translation.toAction(request), request.toString());
      assertEquals(request.kind().name(), Fingerprint.operationOf(m.command().code()));
    }
  }

  /**
   * Goal: the refusal reaches the caller as the kind's own reply, outcome INVALID_ARGUMENT and
   * the message intact, and it survives the wire codec both ways.
   */
  @Test
  void everyMutationKindRepliesInvalidArgument() {
    String message = "request id 7 of client 0123456789abcdef0123456789abcdef was first used for"
        + " TTL_PUT with other arguments; use a new request id";
    Result.Rejected refusal = new Result.Rejected(Outcome.INVALID_ARGUMENT, message, 0, 0);
    for (Request request : MUTATIONS) {
      Response reply = translation.toResponse(request, refusal);
      assertTrue(!(reply instanceof Response.Error), request.kind() + " gave " + reply);
      Response decoded = MessageCodec.decodeResponse(request.kind(),
          MessageCodec.encodeResponse(reply));
      assertEquals(java.util.Optional.of(Outcome.INVALID_ARGUMENT), decoded.domainOutcome(),
          request.kind() + " gave " + decoded);
      assertTrue(decoded.toString().contains(message), request.kind() + " gave " + decoded);
    }
  }
}
