package dev.ration.server.endpoint;

import dev.ration.protocol.Kind;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlResponse;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.SlotStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire reply to every replicated result and every read answer, by exhaustive dispatch: a
 * result's type picks its reply ({@link Result.Handler}, {@link QueryResult.Handler}: one method
 * each, so a new result or answer does not compile until it is mapped here), and a refusal
 * takes the reply shape of the request's kind (a switch over every {@link Kind}, without a
 * default, so a new kind does not compile until its refusal shape is chosen). A result that
 * cannot answer the request's kind is a bug between layers, answered INTERNAL naming both.
 * Stateless; any thread.
 */
final class Replies {
  /** The retry hint of MOVING: a move's freeze window is a few log round trips. */
  static final int MOVING_RETRY_MILLIS = 25;

  private Replies() {}

  /** The reply to a mutation {@code request} whose replicated result is {@code result}. */
  static Response toMutation(Request request, Result result) {
    Kind kind = request.kind();
    return result.accept(new Result.Handler<>() {
      @Override
      public Response limitSet(Result.LimitSet r) {
        return expect(kind, Kind.SET_LIMIT, r, () -> new Response.SetLimitReply(
            Outcome.SUCCESS, "", r.limit().version(), Translation.configured(r.limit())));
      }

      @Override
      public Response leaseGranted(Result.LeaseGranted r) {
        return expect(kind, Kind.ACQUIRE_LEASE, r, () -> new Response.LeaseReply(
            Outcome.SUCCESS, "", 0, r.lease().version(), r.lease(), r.startBalance()));
      }

      @Override
      public Response leaseRenewed(Result.LeaseRenewed r) {
        return expect(kind, Kind.RENEW_LEASE, r, () -> new Response.LeaseReply(
            Outcome.SUCCESS, "", 0, r.lease().version(), r.lease(), 0));
      }

      @Override
      public Response leaseReturned(Result.LeaseReturned r) {
        return expect(kind, Kind.RETURN_LEASE, r, () -> new Response.ReturnReply(
            Outcome.SUCCESS, "", r.leaseId(), r.credited(), r.alreadyGone()));
      }

      @Override
      public Response epochStarted(Result.EpochStarted r) {
        return unexpected(kind, r); // the leader's own command: no client asked for it
      }

      @Override
      public Response ticked(Result.Ticked r) {
        return unexpected(kind, r); // the leader's own command: no client asked for it
      }

      @Override
      public Response entryWritten(Result.EntryWritten w) {
        return new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", w.version(),
            w.version(), w.expiresAtMillis()));
      }

      @Override
      public Response entryDeleted(Result.EntryDeleted d) {
        return expect(kind, Kind.TTL_DELETE, d, () -> new Response.Ttl(new TtlResponse.DeleteReply(
            Outcome.SUCCESS, "", d.version(), d.version(), d.existed())));
      }

      @Override
      public Response namespaceSet(Result.NamespaceSet n) {
        return expect(kind, Kind.TTL_NAMESPACE_SET, n, () -> new Response.Ttl(
            new TtlResponse.NamespaceReply(Outcome.SUCCESS, "", n.namespace())));
      }

      @Override
      public Response leasesRenewed(Result.LeasesRenewed r) {
        return expect(kind, Kind.RENEW_LEASES, r, () -> {
          List<Response.LeaseReply> replies = new ArrayList<>(r.renewals().size());
          for (Result.Renewal n : r.renewals()) {
            replies.add(new Response.LeaseReply(n.outcome(), n.message(), n.retryAfterMillis(),
                n.currentVersion(), n.lease(), 0));
          }
          return new Response.RenewalsReply(Outcome.SUCCESS, "", replies);
        });
      }

      @Override
      public Response limitConcurrencySet(Result.LimitConcurrencySet s) {
        return expect(kind, Kind.SET_LIMIT_CONCURRENCY, s, () -> {
          Limit l = s.limit();
          return new Response.SlotLimitReply(Outcome.SUCCESS, "", l.version(),
              new SlotStatus(l.tenant(), l.resource(), s.concurrency(), l.version(), 0, 0,
                  s.concurrency(), 0, 0, 0));
        });
      }

      @Override
      public Response slotsGranted(Result.SlotsGranted g) {
        return expect(kind, Kind.ACQUIRE_SLOTS, g,
            () -> slotReply(Result.SlotRenewalAnswer.granted(g.lease())));
      }

      @Override
      public Response slotsRenewed(Result.SlotsRenewed r) {
        return expect(kind, Kind.RENEW_SLOTS, r, () -> {
          List<Response.SlotLeaseReply> replies = new ArrayList<>(r.renewals().size());
          for (Result.SlotRenewalAnswer a : r.renewals()) {
            replies.add(slotReply(a));
          }
          return new Response.SlotRenewalsReply(Outcome.SUCCESS, "", replies);
        });
      }

      @Override
      public Response rejected(Result.Rejected rej) {
        return refusal(request, rej);
      }

      @Override
      public Response securityChanged(Result.SecurityChanged c) {
        return new Response.SecurityChangeReply(Outcome.SUCCESS, c.message(), c.changed(),
            c.auditSequence());
      }

      @Override
      public Response denied(Result.Denied d) {
        // Outside the caller's grants, found by the replica: nothing changed.
        return ErrorReplies.error(ErrorCode.PERMISSION_DENIED, d.message(), "", 0);
      }

      @Override
      public Response misrouted(Result.Misrouted m) {
        // Refused before it was applied or recorded: definite, and a retry is decided afresh.
        return misroutedError(m.slot(), m.ownerGroup(), m.epoch(), m.moving());
      }

      @Override
      public Response slotStepped(Result.SlotStepped r) {
        return unexpected(kind, r); // the node's own placement step: no client asked for it
      }

      @Override
      public Response idsSlotted(Result.IdsSlotted r) {
        return unexpected(kind, r); // the leader's own command: no client asked for it
      }

      @Override
      public Response quota(Result.Quota q) {
        return request instanceof Request.Quota r
            ? new Response.Quota(QuotaTranslation.toResponse(r.request(), q.result()))
            : unexpected(kind, q);
      }
    });
  }

  /**
   * A refusal in the reply shape of the request's kind. Every kind is listed: a read, a
   * session request or a request the connection answers itself is never proposed, so a
   * refusal of one is a bug between layers.
   */
  static Response refusal(Request request, Result.Rejected rej) {
    Outcome outcome = Translation.wireOutcome(rej.outcome());
    String message = rej.message();
    Kind kind = request.kind();
    return switch (kind) {
      case SET_LIMIT -> new Response.SetLimitReply(outcome, message, rej.currentVersion(), null);
      case ACQUIRE_LEASE, RENEW_LEASE -> new Response.LeaseReply(
          outcome, message, rej.retryAfterMillis(), rej.currentVersion(), null, 0);
      case RETURN_LEASE -> new Response.ReturnReply(
          outcome, message, ((Request.ReturnLease) request).leaseId(), 0, false);
      case RENEW_LEASES -> new Response.RenewalsReply(outcome, message, List.of());
      case SET_LIMIT_CONCURRENCY ->
          new Response.SlotLimitReply(outcome, message, rej.currentVersion(), null);
      case ACQUIRE_SLOTS -> slotReply(Result.SlotRenewalAnswer.refused(rej));
      case RENEW_SLOTS -> new Response.SlotRenewalsReply(outcome, message, List.of());
      case TTL_PUT, TTL_CAS, TTL_REFRESH, TTL_UPDATE -> new Response.Ttl(
          new TtlResponse.WriteReply(outcome, message, rej.currentVersion(), 0, 0));
      case TTL_DELETE -> new Response.Ttl(
          new TtlResponse.DeleteReply(outcome, message, rej.currentVersion(), 0, false));
      case TTL_NAMESPACE_SET ->
          new Response.Ttl(new TtlResponse.NamespaceReply(outcome, message, null));
      case QUOTA_SET, RESERVE, RESERVE_KEYED, RESERVATION_COMPLETE, RESERVATION_CANCEL,
          USAGE_INGEST, USAGE_ACK, USAGE_RECONCILE, BUDGET_GRANT, BUDGET_REPORT, BUDGET_RETURN,
          RESERVE_BATCH ->
          new Response.Quota(
              QuotaTranslation.rejected(((Request.Quota) request).request(), outcome, message,
                  "", "", rej.retryAfterMillis(), rej.currentVersion()));
      case TOKEN_CREATE, TOKEN_REVOKE, ROLE_GRANT, ROLE_REVOKE ->
          new Response.SecurityChangeReply(outcome, message, false, 0);
      case HELLO, GET_LIMIT, LIST_LIMITS, LIST_LEASES, CLUSTER_STATUS, CANCEL, GET_SLOTS,
          TTL_GET, TTL_LIST, TTL_NAMESPACE_GET, TTL_WATCH, QUOTA_GET, QUOTA_LIST, QUOTA_HISTORY,
          RESERVATION_LIST, USAGE_READ, USAGE_AGGREGATE, AUDIT_READ, BUDGET_LIST, TOKEN_LIST, ROLE_LIST,
          SECURITY_AUDIT_READ, WHOAMI -> unexpected(kind, rej);
    };
  }

  /** The reply to a read of {@code kind} answered {@code answer}. */
  static Response toRead(Kind kind, QueryResult answer) {
    return answer.accept(new QueryResult.Handler<>() {
      @Override
      public Response limitAnswer(QueryResult.LimitAnswer a) {
        return expect(kind, Kind.GET_LIMIT, a, () -> a.limit()
            .<Response>map(s -> new Response.GetLimitReply(true, s))
            .orElseGet(() -> new Response.GetLimitReply(false, null)));
      }

      @Override
      public Response limitList(QueryResult.LimitList l) {
        return expect(kind, Kind.LIST_LIMITS, l, () -> new Response.LimitList(l.limits()));
      }

      @Override
      public Response leaseList(QueryResult.LeaseList l) {
        return expect(kind, Kind.LIST_LEASES, l, () -> new Response.LeaseList(l.leases()));
      }

      @Override
      public Response slotAnswer(QueryResult.SlotAnswer a) {
        return expect(kind, Kind.GET_SLOTS, a, () -> new Response.SlotsReply(
            a.status().isPresent(), a.status().orElse(null), a.leases()));
      }

      @Override
      public Response statusAnswer(QueryResult.StatusAnswer s) {
        return unexpected(kind, s); // CLUSTER_STATUS is answered from the node's own view
      }

      @Override
      public Response entryAnswer(QueryResult.EntryAnswer a) {
        return ttl(TtlTranslation.toResponse(a));
      }

      @Override
      public Response entryList(QueryResult.EntryList l) {
        return ttl(TtlTranslation.toResponse(l));
      }

      @Override
      public Response namespaceAnswer(QueryResult.NamespaceAnswer a) {
        return ttl(TtlTranslation.toResponse(a));
      }

      @Override
      public Response namespaceList(QueryResult.NamespaceList l) {
        return ttl(TtlTranslation.toResponse(l));
      }

      @Override
      public Response quota(QueryResult.Quota q) {
        if (q.answer() instanceof QuotaAnswer.UsageCompacted c) {
          // Records the read asked for are gone: a definite error, never a batch that skips them.
          return ErrorReplies.invalidArgument(c.message());
        }
        return new Response.Quota(QuotaTranslation.toResponse(q.answer()));
      }

      @Override
      public Response tokenList(QueryResult.TokenList t) {
        return new Response.TokenList(t.tokens());
      }

      @Override
      public Response grantList(QueryResult.GrantList g) {
        return new Response.GrantList(g.grants());
      }

      @Override
      public Response securityAudit(QueryResult.SecurityAudit a) {
        return new Response.SecurityAuditList(a.records());
      }

      @Override
      public Response slotTable(QueryResult.SlotTableAnswer a) {
        return unexpected(kind, a); // read by the node's metrics; no request kind asks for it
      }

      @Override
      public Response misrouted(QueryResult.Misrouted m) {
        return misroutedError(m.slot(), m.ownerGroup(), m.epoch(), m.moving());
      }
    });
  }

  /** MOVING (retry shortly) or WRONG_GROUP naming the owner this group last knew. */
  private static Response misroutedError(int slot, int ownerGroup, long epoch, boolean moving) {
    if (moving) {
      return ErrorReplies.error(ErrorCode.MOVING, "slot " + slot + " is moving (move epoch "
          + epoch + "); retry shortly", "", MOVING_RETRY_MILLIS);
    }
    return ErrorReplies.error(ErrorCode.WRONG_GROUP, "slot " + slot + " is not served by this group; "
        + (ownerGroup < 0 ? "no owner known here" : "group " + ownerGroup + " owns it")
        + " (move epoch " + epoch + ")", "", 0);
  }

  private static Response ttl(TtlResponse response) {
    return new Response.Ttl(response);
  }

  /** One slot lease answer (granted or refused) as its wire reply. */
  static Response.SlotLeaseReply slotReply(Result.SlotRenewalAnswer a) {
    return new Response.SlotLeaseReply(Translation.wireOutcome(a.outcome()), a.message(),
        a.retryAfterMillis(), a.currentVersion(), a.lease());
  }

  private static Response expect(Kind kind, Kind answers, Object result,
      java.util.function.Supplier<Response> reply) {
    return kind == answers ? reply.get() : unexpected(kind, result);
  }

  /** A result that does not answer the request's kind is a bug between layers. */
  static Response unexpected(Kind kind, Object result) {
    return new Response.Error(ErrorCode.INTERNAL,
        "internal: " + kind + " answered by " + result.getClass().getSimpleName(), "", 0);
  }
}
