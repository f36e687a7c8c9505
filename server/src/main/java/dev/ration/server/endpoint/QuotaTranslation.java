package dev.ration.server.endpoint;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Kind;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudgets;
import dev.ration.statemachine.command.QuotaCommand.ReserveBatch;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.wire.quota.Aggregate;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.statemachine.query.Reservation;
import dev.ration.statemachine.query.ReservationItem;
import dev.ration.statemachine.quota.Scope;
import dev.ration.wire.quota.UsageEvent;
import dev.ration.wire.Window;
import dev.ration.statemachine.result.QuotaResult;
import java.util.List;
import java.util.Optional;

/**
 * The quota part of {@link Translation}: wire quota requests to quota commands and queries,
 * and the quota ledger's answers back to wire replies. Courtesy checks only (codes, scope
 * syntax, bounds a reader can get wrong); the state machine re-validates what it applies.
 * Stateless and thread-safe.
 */
final class QuotaTranslation {
  /**
   * Most records one read returns (USAGE_READ, AUDIT_READ), whatever the request asks: a usage
   * record is about 100–200 bytes on the wire, so a full reply stays well under a 1 MiB frame.
   */
  static final int READ_MAX = 1_000;

  private QuotaTranslation() {}

  /**
   * The quota kinds' handlers. RESERVATION_COMPLETE, RESERVATION_CANCEL and USAGE_ACK have none: each request carries exactly its command's components, so the endpoint
   * copies one into the other and the quota ledger's checks answer a bad value.
   */
  static void register(Operations ops) {
    ops.on(Kind.QUOTA_SET, QuotaRequest.SetQuota.class, set -> {
          QuotaSpec r = set.spec();
          Optional<String> p = r.kind() == null || r.window() == null || r.overage() == null
              ? Optional.of("quotaKind, window and overage must be set")
              : Scope.problem(r.scope());
          return p.<Translation.Action>map(Translation.Invalid::new)
              .orElseGet(() -> new Translation.Mutation(new SetQuota(r)));
        })
        .on(Kind.QUOTA_GET, QuotaRequest.GetQuota.class,
            r -> read(new QuotaQuery.GetQuota(r.scope(), r.resource()), r.stale()))
        .on(Kind.QUOTA_LIST, QuotaRequest.ListQuotas.class,
            r -> read(new QuotaQuery.ListQuotas(r.scopePrefix()), r.stale()))
        .on(Kind.QUOTA_HISTORY, QuotaRequest.QuotaHistory.class,
            r -> read(new QuotaQuery.QuotaHistory(r.scope(), r.resource()), false))
        .on(Kind.RESERVE, QuotaRequest.Reserve.class, r -> reserve(r.scope(), r.items(),
            r.configVersion(), r.ttlMillis(), ""))
        .on(Kind.RESERVE_KEYED, QuotaRequest.ReserveKeyed.class, r -> r.idempotencyKey().isEmpty()
            ? new Translation.Invalid(
                "idempotencyKey is empty (use RESERVE for a reservation without one)")
            : reserve(r.scope(), r.items(), r.configVersion(), r.ttlMillis(), r.idempotencyKey()))
        // A client's event is deduplicated within its tenant, judged on the whole event.
        .on(Kind.USAGE_INGEST, QuotaRequest.IngestUsage.class, r -> new Translation.Mutation(
            new IngestUsage(r.eventId(), r.eventTimeMillis(), r.scope(), r.resource(),
                r.quantity(), r.unit(), r.reservationId())))
        .on(Kind.RESERVATION_LIST, QuotaRequest.ListReservations.class,
            r -> read(new QuotaQuery.ListReservations(r.scopePrefix()), false))
        .on(Kind.USAGE_READ, QuotaRequest.ReadUsage.class,
            r -> read(new QuotaQuery.ReadUsage(r.consumer(), r.fromSequence(),
                Math.max(0, Math.min(r.max(), READ_MAX))), false))
        .on(Kind.USAGE_AGGREGATE, QuotaRequest.AggregateUsage.class,
            r -> read(new QuotaQuery.AggregateUsage(r.scope(), r.resource(), r.fromMillis(),
                r.toMillis()), false))
        .on(Kind.USAGE_RECONCILE, QuotaRequest.Reconcile.class, QuotaTranslation::reconcile)
        .on(Kind.BUDGET_GRANT, QuotaRequest.GrantBudget.class, r -> Scope.problem(r.scope())
            .<Translation.Action>map(Translation.Invalid::new)
            .orElseGet(() -> new Translation.Mutation(new GrantBudget(r.holder(), r.scope(),
                r.resource(), r.amount(), r.leaseMillis()))))
        .on(Kind.BUDGET_REPORT, QuotaRequest.ReportBudgets.class, r ->
            r.reports().isEmpty() || r.reports().size() > ReportBudgets.MAX_REPORTS
                ? new Translation.Invalid(r.reports().size() + " reports; a frame carries 1.."
                    + ReportBudgets.MAX_REPORTS)
                : new Translation.Mutation(new ReportBudgets(r.reports().stream()
                    .map(b -> new ReportBudget(b.budgetId(), b.spent(), b.sequence(),
                        b.wantAmount(), b.leaseMillis()))
                    .toList())))
        .on(Kind.RESERVE_BATCH, QuotaRequest.ReserveBatch.class, r ->
            r.reserves().isEmpty() || r.reserves().size() > ReserveBatch.MAX_RESERVES
                ? new Translation.Invalid(r.reserves().size() + " reservations; a frame carries 1.."
                    + ReserveBatch.MAX_RESERVES)
                // Each reservation's arguments are the ledger's to judge, so a bad one fails
                // only itself.
                : new Translation.Mutation(new ReserveBatch(r.reserves().stream()
                    .map(e -> new Reserve(e.scope(), e.items().stream()
                        .map(i -> new Reserve.Item(i.resource(), i.amount())).toList(),
                        e.configVersion(), e.ttlMillis(), e.idempotencyKey()))
                    .toList())))
        .on(Kind.BUDGET_RETURN, QuotaRequest.ReturnBudget.class, r -> new Translation.Mutation(
            new ReturnBudget(r.budgetId(), r.spent(), r.sequence())))
        .on(Kind.BUDGET_LIST, QuotaRequest.ListBudgets.class,
            r -> read(new QuotaQuery.ListBudgets(r.scopePrefix()), false))
        .on(Kind.AUDIT_READ, QuotaRequest.ReadAudit.class,
            r -> read(new QuotaQuery.ReadAudit(r.fromSequence(),
                Math.max(0, Math.min(r.max(), READ_MAX))), false));
  }

  private static Translation.Action reserve(String scope, List<QuotaRequest.Item> items,
      long configVersion, long ttlMillis, String idempotencyKey) {
    Optional<String> p = Scope.problem(scope);
    if (p.isPresent()) {
      return new Translation.Invalid(p.get());
    }
    return new Translation.Mutation(new Reserve(scope,
        items.stream().map(i -> new Reserve.Item(i.resource(), i.amount())).toList(),
        configVersion, ttlMillis, idempotencyKey));
  }

  private static Translation.Action reconcile(QuotaRequest.Reconcile r) {
    // The resource's length is the configured name bound, which the quota ledger checks.
    Optional<String> p = Scope.problem(r.scope());
    if (p.isEmpty() && r.fromMillis() >= r.toMillis()) {
      p = Optional.of("period [" + r.fromMillis() + ", " + r.toMillis() + ") is empty");
    }
    if (p.isPresent()) {
      return new Translation.Invalid(p.get());
    }
    if (r.repair()) {
      return new Translation.Mutation(new Reconcile(r.scope(), r.resource(), r.fromMillis(),
          r.toMillis(), r.actor(), r.reason()));
    }
    return read(new QuotaQuery.ReconcileReport(r.scope(), r.resource(), r.fromMillis(),
        r.toMillis()), false);
  }

  private static Translation.Action read(QuotaQuery query, boolean stale) {
    return new Translation.Read(new Query.Quota(query), stale);
  }

  // ---------------------------------------------------------------- mutation answers

  static QuotaResponse toResponse(QuotaRequest request, QuotaResult result) {
    if (result instanceof QuotaResult.QuotaRejected no) {
      return rejected(request, Translation.wireOutcome(no.outcome()), no.message(),
          no.levelScope(), no.resource(), no.retryAfterMillis(), no.currentVersion());
    }
    if (result instanceof QuotaResult.QuotaSet s) {
      return new QuotaResponse.QuotaSetReply(Outcome.SUCCESS, "", s.spec().version(),
          Optional.of(quotaInfo(new QuotaAnswer.QuotaRow(s.spec(),
              dev.ration.statemachine.query.LevelUsage.empty(s.spec().scope(), s.spec().resource())))));
    }
    if (result instanceof QuotaResult.Reserved r) {
      return new QuotaResponse.ReserveReply(Outcome.SUCCESS, "", "", "", 0, r.configVersion(),
          r.reservationId(), r.expiresAtMillis(), r.configVersion(), r.items().stream()
              .map(i -> new QuotaResponse.ReservedItem(i.resource(), i.amount(), i.overage(), i.unit()))
              .toList());
    }
    if (result instanceof QuotaResult.ReservationSettled s) {
      return new QuotaResponse.SettleReply(Outcome.SUCCESS, "", s.reservationId(), s.how(),
          s.quantities(), s.eventSequences(), s.alreadySettled());
    }
    if (result instanceof QuotaResult.UsageIngested i) {
      return new QuotaResponse.IngestReply(Outcome.SUCCESS, "", i.sequence(), i.duplicate());
    }
    if (result instanceof QuotaResult.UsageAcked a) {
      return new QuotaResponse.AckReply(Outcome.SUCCESS, "", a.cursor());
    }
    if (result instanceof QuotaResult.Reconciled r) {
      return new QuotaResponse.ReconcileReply(Outcome.SUCCESS, "",
          r.drifts());
    }
    if (result instanceof QuotaResult.BudgetGranted g) {
      return new QuotaResponse.BudgetGrantReply(Outcome.SUCCESS, "", "", "", 0, g.budgetId(),
          g.granted(), g.expiresAtMillis(), g.windowEndMillis(), g.configVersion(), g.atMillis(),
          g.overdraft());
    }
    if (result instanceof QuotaResult.ReservedBatch batch) {
      return new QuotaResponse.ReserveBatchReply(Outcome.SUCCESS, "", batch.answers().stream()
          .map(a -> a.reserved() != null
              ? (QuotaResponse.ReserveReply) toResponse(request, a.reserved())
              : new QuotaResponse.ReserveReply(Translation.wireOutcome(a.refused().outcome()),
                  a.refused().message(), a.refused().levelScope(), a.refused().resource(),
                  a.refused().retryAfterMillis(), a.refused().currentVersion(), 0, 0, 0,
                  List.of()))
          .toList());
    }
    if (result instanceof QuotaResult.BudgetsReported all) {
      return new QuotaResponse.BudgetReportsReply(Outcome.SUCCESS, "", all.reports().stream()
          .map(QuotaTranslation::reportInfo).toList());
    }
    if (result instanceof QuotaResult.BudgetReturned r) {
      return new QuotaResponse.BudgetReturnReply(Outcome.SUCCESS, "", r.budgetId(), r.spent(),
          r.released());
    }
    throw new IllegalStateException("quota result " + result + " does not answer " + request.kind());
  }

  /** A refusal in the reply shape of the request's kind. */
  static QuotaResponse rejected(QuotaRequest request, Outcome outcome, String message,
      String levelScope, String resource, long retryAfterMillis, long currentVersion) {
    return switch (request.kind()) {
      case QUOTA_SET -> new QuotaResponse.QuotaSetReply(outcome, message, currentVersion, Optional.empty());
      case RESERVE, RESERVE_KEYED -> new QuotaResponse.ReserveReply(outcome, message, levelScope, resource,
          retryAfterMillis, currentVersion, 0, 0, 0, List.of());
      case RESERVATION_COMPLETE, RESERVATION_CANCEL -> new QuotaResponse.SettleReply(outcome,
          message, request instanceof QuotaRequest.CompleteReservation c ? c.reservationId()
              : ((QuotaRequest.CancelReservation) request).reservationId(),
          null, List.of(), List.of(), false);
      case USAGE_INGEST -> new QuotaResponse.IngestReply(outcome, message, 0, false);
      case USAGE_ACK -> new QuotaResponse.AckReply(outcome, message, 0);
      case USAGE_RECONCILE -> new QuotaResponse.ReconcileReply(outcome, message, List.of());
      case BUDGET_GRANT -> new QuotaResponse.BudgetGrantReply(outcome, message, levelScope,
          resource, retryAfterMillis, 0, 0, 0, 0, currentVersion, 0, 0);
      case BUDGET_REPORT -> new QuotaResponse.BudgetReportsReply(outcome, message, List.of());
      case RESERVE_BATCH -> new QuotaResponse.ReserveBatchReply(outcome, message, List.of());
      case BUDGET_RETURN -> new QuotaResponse.BudgetReturnReply(outcome, message,
          ((QuotaRequest.ReturnBudget) request).budgetId(), 0, 0);
      default -> throw new IllegalStateException("no refusal shape for " + request.kind());
    };
  }

  // ---------------------------------------------------------------- read answers

  static QuotaResponse toResponse(QuotaAnswer answer) {
    if (answer instanceof QuotaAnswer.QuotaFound f) {
      return new QuotaResponse.QuotaFound(f.quota().map(QuotaTranslation::quotaInfo));
    } else if (answer instanceof QuotaAnswer.QuotaList l) {
      return new QuotaResponse.QuotaList(l.quotas().stream().map(QuotaTranslation::quotaInfo).toList());
    } else if (answer instanceof QuotaAnswer.History h) {
      return new QuotaResponse.QuotaList(h.versions().stream()
          .map(s -> quotaInfo(new QuotaAnswer.QuotaRow(s,
              dev.ration.statemachine.query.LevelUsage.empty(s.scope(), s.resource()))))
          .toList());
    } else if (answer instanceof QuotaAnswer.ReservationList l) {
      return new QuotaResponse.ReservationList(l.reservations().stream()
          .map(QuotaTranslation::reservationInfo).toList());
    } else if (answer instanceof QuotaAnswer.UsageBatch b) {
      return new QuotaResponse.UsageBatch(b.events(),
          b.cursor(), b.lastSequence());
    } else if (answer instanceof QuotaAnswer.AggregateList a) {
      return new QuotaResponse.AggregateReply(a.buckets(), a.total());
    } else if (answer instanceof QuotaAnswer.ReconcileAnswer r) {
      return new QuotaResponse.ReconcileReply(Outcome.SUCCESS, "",
          r.drifts());
    } else if (answer instanceof QuotaAnswer.AuditList a) {
      return new QuotaResponse.AuditList(a.records());
    } else if (answer instanceof QuotaAnswer.BudgetList l) {
      return new QuotaResponse.BudgetList(l.budgets().stream()
          .map(b -> new QuotaResponse.BudgetInfo(b.budgetId(), b.holder(), b.scope(),
              b.resource(), b.granted(), b.spent(), b.reportSequence(), b.grantedAtMillis(),
              b.expiresAtMillis(), b.windowEndMillis(), b.keepUntilMillis(), b.lapsed()))
          .toList());
    }
    throw new IllegalStateException("quota answer " + answer + " has no wire reply");
  }

  static QuotaResponse.QuotaInfo quotaInfo(QuotaAnswer.QuotaRow row) {
    var s = row.spec();
    var u = row.usage();
    return new QuotaResponse.QuotaInfo(s, u.windowStartMillis(), u.windowUsed(), u.held(),
        u.allocated(), u.alerted());
  }

  static QuotaResponse.ReservationInfo reservationInfo(Reservation r) {
    return new QuotaResponse.ReservationInfo(r.reservationId(), r.scope(), r.configVersion(),
        r.createdAtMillis(), r.expiresAtMillis(), r.items().stream()
            .map((ReservationItem i) -> new QuotaResponse.ReservedItem(i.resource(), i.amount(),
                i.overage(), i.unit()))
            .toList());
  }

  private static QuotaResponse.BudgetReportInfo reportInfo(QuotaResult.BudgetReport r) {
    QuotaResult.BudgetReported b = r.budget();
    if (b == null) {
      return new QuotaResponse.BudgetReportInfo(Translation.wireOutcome(r.outcome()), r.message(),
          0, 0, 0, 0, 0, false, false, 0);
    }
    return new QuotaResponse.BudgetReportInfo(Outcome.SUCCESS, "", b.budgetId(), b.granted(),
        b.spent(), b.expiresAtMillis(), b.windowEndMillis(), b.ended(), b.resent(), b.atMillis());
  }
}
