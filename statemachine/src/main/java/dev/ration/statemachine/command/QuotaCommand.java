package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.absent;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.longs16;
import static dev.ration.wire.shape.Fields.nonEmptyStr;
import static dev.ration.wire.shape.Fields.str;
import static dev.ration.wire.shape.Fields.struct;

import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.shape.Shape;
import java.util.List;

/**
 * The quota ledger's commands: catalog changes, check-and-reserve, reservation
 * settlement (one or a batch), budgets (grant, report and renew, return), usage ingestion, consumer acknowledgements, reconciliation repairs. Codes 40–59
 * of the log format are theirs; see {@link BatchCodec}. All come from clients and are
 * idempotent by their request key (the replica's shared idempotency).
 */
public sealed interface QuotaCommand extends Command {
  int FIRST_CODE = 40;
  int LAST_CODE = 59;

  /** Calls the {@code handler} method for this command. */
  <R> R accept(Handler<R> handler);

  @Override
  default Class<QuotaCommand> family() {
    return QuotaCommand.class;
  }

  /**
   * Create or change the catalog entry for (scope, resource): a new version, recorded with
   * {@code actor} and {@code reason} in the history and the audit log. {@code spec.version()} is
   * the version the caller last read: 0 means "whatever is there"; otherwise the change applies
   * only if the entry's current version equals it (else STALE_CONFIG with the current version).
   * The kind of an entry never changes.
   */
  record SetQuota(QuotaSpec spec) implements QuotaCommand, NamesActor, Audited {
    public static final int CODE = 40;

    /** The quota audit log records the actor a change names: the authenticated identity. */
    @Override
    public SetQuota withActor(String actor) {
      QuotaSpec q = spec;
      return new SetQuota(new QuotaSpec(q.scope(), q.resource(), q.kind(), q.window(), q.limit(),
          q.unit(), q.softLimit(), q.overage(), q.overageMax(), q.periodStartMillis(),
          q.version(), actor, q.changedAtMillis(), q.reason()));
    }

    @Override
    public AuditLine auditLine(Result result) {
      return result instanceof Result.Quota q && !(q.result() instanceof QuotaResult.QuotaRejected)
          ? new AuditLine("quota.set", spec.scope(), spec.resource(), "limit " + spec.limit())
          : null;
    }

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "QUOTA_SET";

    /** Its fields in the log, in this order after the command code: the proposal's encoding. */
    public static final Shape<SetQuota> SHAPE =
        Shape.of(SetQuota.class, struct("spec", SetQuota::spec, QuotaSpec.PROPOSAL));

    /** The version the caller last read (0: any). */
    public long expectedVersion() {
      return spec.version();
    }

    @Override
    public Touches touches() {
      return Touches.pathOf(spec.scope());
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.setQuota(this);
    }
  }

  /**
   * checkAndReserve: reserve every item, all or nothing, at every level of {@code scope} that has
   * a catalog entry for the item's resource. {@code configVersion} is the catalog version the
   * caller last saw for these entries (0 = do not check); if it is not the current one the answer
   * is STALE_CONFIG with the current version. The request key of the proposal is the request id:
   * a retry gets the first decision back. The reservation expires {@code ttlMillis} after it is
   * made (ledger time).
   *
   * <p>{@code idempotencyKey} (empty = none) is the application's key for this reservation,
   * scoped to {@code scope}: a Reserve with a key that already made a reservation gets that
   * reservation's decision again, for the reservation's lifetime plus the settled retention,
   * from any client and long after the transport key expired. A keyed Reserve is logged under
   * {@link #KEYED_CODE}, so entries written before keys existed keep their encoding.
   */
  record Reserve(String scope, List<Item> items, long configVersion, long ttlMillis,
      String idempotencyKey) implements QuotaCommand {
    public static final int CODE = 41;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RESERVE";
    /** A Reserve with an idempotency key: the fields of {@link #CODE}, then str idempotencyKey. */
    public static final int KEYED_CODE = 47;

    /** The protocol operation a keyed reserve serves. */
    public static final String KEYED_OPERATION = "RESERVE_KEYED";

    /**
     * Its fields in the log, in this order after the command code: the items come last there,
     * after the version and the time to live, though they are the second component.
     */
    public static final Shape<Reserve> SHAPE =
        Shape.reordered(
            Reserve.class,
            str("scope", Reserve::scope),
            i64("configVersion", Reserve::configVersion),
            i64("ttlMillis", Reserve::ttlMillis),
            list16("items", Reserve::items, Item.SHAPE),
            absent("idempotencyKey", ""));

    /** A Reserve inside a {@link ReserveBatch}: the fields of {@link #SHAPE}, then its key ("" = none). */
    public static final Shape<Reserve> BATCHED_SHAPE =
        Shape.reordered(
            Reserve.class,
            str("scope", Reserve::scope),
            i64("configVersion", Reserve::configVersion),
            i64("ttlMillis", Reserve::ttlMillis),
            list16("items", Reserve::items, Item.SHAPE),
            str("idempotencyKey", Reserve::idempotencyKey));

    /** The fields of a keyed Reserve ({@link #KEYED_CODE}): those of {@link #SHAPE}, then the key. */
    public static final Shape<Reserve> KEYED_SHAPE =
        Shape.reordered(
            Reserve.class,
            str("scope", Reserve::scope),
            i64("configVersion", Reserve::configVersion),
            i64("ttlMillis", Reserve::ttlMillis),
            list16("items", Reserve::items, Item.SHAPE),
            nonEmptyStr("idempotencyKey", Reserve::idempotencyKey));

    public Reserve {
      items = List.copyOf(items);
      if (idempotencyKey == null) {
        throw new IllegalArgumentException("idempotencyKey is null (use \"\" for none)");
      }
    }

    /** A Reserve without an application idempotency key. */
    public Reserve(String scope, List<Item> items, long configVersion, long ttlMillis) {
      this(scope, items, configVersion, ttlMillis, "");
    }

    public boolean keyed() {
      return !idempotencyKey.isEmpty();
    }

    public record Item(String resource, long amount) {
      /** Its fields in the log. */
      public static final Shape<Item> SHAPE =
          Shape.of(
              Item.class,
              str("resource", Item::resource),
              i64("amount", Item::amount));
    }

    @Override
    public Touches touches() {
      return Touches.pathOf(scope);
    }

    @Override
    public int code() {
      return keyed() ? KEYED_CODE : CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.reserve(this);
    }
  }

  /**
   * Settle a reservation with the actual usage, one quantity per item in the reservation's order
   * (each at most the reserved amount). Emits one usage event per item. Completing a settled
   * reservation answers with its first settlement and emits nothing.
   */
  record CompleteReservation(long reservationId, List<Long> actuals) implements QuotaCommand {
    public static final int CODE = 42;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RESERVATION_COMPLETE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<CompleteReservation> SHAPE =
        Shape.of(
            CompleteReservation.class,
            i64("reservationId", CompleteReservation::reservationId),
            longs16("actuals", CompleteReservation::actuals));

    public CompleteReservation {
      actuals = List.copyOf(actuals);
    }

    @Override
    public Touches touches() {
      return Touches.id(reservationId);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.complete(this);
    }
  }

  /**
   * Settle a reservation as unused: quantity 0, one usage event per item. Cancelling a settled
   * reservation answers with its first settlement and emits nothing.
   */
  record CancelReservation(long reservationId) implements QuotaCommand {
    public static final int CODE = 43;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RESERVATION_CANCEL";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<CancelReservation> SHAPE =
        Shape.of(
            CancelReservation.class,
            i64("reservationId", CancelReservation::reservationId));

    @Override
    public Touches touches() {
      return Touches.id(reservationId);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.cancel(this);
    }
  }

  /**
   * A service's own usage event (e.g. storage used), appended to the usage log unless an event
   * with the same id was seen within the retention window. Aggregated by {@code eventTimeMillis}.
   * A negative quantity is allowed only for allocation resources (it releases allocation).
   * {@code reservationId} (0 = none) ties the event to a reservation for reconciliation.
   *
   * <p>Two codes, one meaning each. {@link #TENANT_CODE} (48), which the endpoint writes, keeps
   * event ids per tenant (the first segment of {@code scope}): another tenant's id neither drops
   * nor reveals this tenant's event, and the same id with other content is refused rather than
   * answered as a duplicate. {@link #CODE} (44) is how earlier releases wrote it and keeps their
   * meaning when their entries are replayed: one id space for every tenant, judged on the id.
   */
  record IngestUsage(
      String eventId,
      long eventTimeMillis,
      String scope,
      String resource,
      long quantity,
      String unit,
      long reservationId,
      boolean perTenant)
      implements QuotaCommand {
    public static final int CODE = 44;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "USAGE_INGEST";

    /** The code of an ingest deduplicated per tenant: the fields of {@link #CODE}. */
    public static final int TENANT_CODE = 48;

    /** The protocol operation an ingest deduplicated per tenant serves. */
    public static final String TENANT_OPERATION = "USAGE_INGEST";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<IngestUsage> SHAPE = shape(false);

    /** The fields of an ingest deduplicated per tenant ({@link #TENANT_CODE}). */
    public static final Shape<IngestUsage> TENANT_SHAPE = shape(true);

    private static Shape<IngestUsage> shape(boolean perTenant) {
      return Shape.reordered(
          IngestUsage.class,
          str("eventId", IngestUsage::eventId),
          i64("eventTimeMillis", IngestUsage::eventTimeMillis),
          str("scope", IngestUsage::scope),
          str("resource", IngestUsage::resource),
          i64("quantity", IngestUsage::quantity),
          str("unit", IngestUsage::unit),
          i64("reservationId", IngestUsage::reservationId),
          absent("perTenant", perTenant));
    }

    /** An event deduplicated per tenant: the one the endpoint proposes. */
    public IngestUsage(String eventId, long eventTimeMillis, String scope, String resource,
        long quantity, String unit, long reservationId) {
      this(eventId, eventTimeMillis, scope, resource, quantity, unit, reservationId, true);
    }

    @Override
    public Touches touches() {
      return reservationId == 0 ? Touches.pathOf(scope) : Touches.pathOf(scope).and(Touches.id(reservationId));
    }

    @Override
    public int code() {
      return perTenant ? TENANT_CODE : CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.ingest(this);
    }
  }

  /**
   * A consumer acknowledges the usage log up to and including {@code sequence}. The replicated
   * cursor only moves forward; reads resume after it (at-least-once delivery).
   */
  record AckUsage(String consumer, long sequence) implements QuotaCommand {
    public static final int CODE = 45;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "USAGE_ACK";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<AckUsage> SHAPE =
        Shape.of(
            AckUsage.class,
            str("consumer", AckUsage::consumer),
            i64("sequence", AckUsage::sequence));

    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.ack(this);
    }
  }

  /**
   * Compare reservations, usage events and aggregates of (scope, resource) for settlements in
   * [fromMillis, toMillis), and repair each reservation drift with one compensating usage event
   * (never an edit). Empty {@code resource} means every resource of the scope. Audited.
   */
  record Reconcile(
      String scope, String resource, long fromMillis, long toMillis, String actor, String reason)
      implements QuotaCommand, NamesActor {
    public static final int CODE = 46;

    @Override
    public Reconcile withActor(String actor) {
      return new Reconcile(scope, resource, fromMillis, toMillis, actor, reason);
    }

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "USAGE_RECONCILE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<Reconcile> SHAPE =
        Shape.of(
            Reconcile.class,
            str("scope", Reconcile::scope),
            str("resource", Reconcile::resource),
            i64("fromMillis", Reconcile::fromMillis),
            i64("toMillis", Reconcile::toMillis),
            str("actor", Reconcile::actor),
            str("reason", Reconcile::reason));

    @Override
    public Touches touches() {
      return Touches.pathOf(scope);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.reconcile(this);
    }
  }

  /**
   * Lease {@code holder} a budget of up to {@code amount} of the windowed quotas (RATE,
   * CUMULATIVE) of {@code resource} at every level of {@code scope} that has an entry: the
   * amount granted is what every level can still admit in its current window, at most
   * {@code amount}, counted at all of them at once (all or nothing per level set). The budget
   * is held for {@code leaseMillis} (ledger time), never past the earliest end of its windows.
   */
  record GrantBudget(String holder, String scope, String resource, long amount, long leaseMillis)
      implements QuotaCommand {
    public static final int CODE = 49;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "BUDGET_GRANT";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<GrantBudget> SHAPE =
        Shape.of(
            GrantBudget.class,
            str("holder", GrantBudget::holder),
            str("scope", GrantBudget::scope),
            str("resource", GrantBudget::resource),
            i64("amount", GrantBudget::amount),
            i64("leaseMillis", GrantBudget::leaseMillis));

    @Override
    public Touches touches() {
      return Touches.pathOf(scope);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.grantBudget(this);
    }
  }

  /**
   * A budget's holder reports its cumulative {@code spent} under report {@code sequence} (a
   * sequence not above the last one counted is a resent report and counts nothing), and, while
   * the budget still admits, renews it for {@code leaseMillis} and asks for {@code wantAmount}
   * in all (grown from what every level has free, or shrunk, never below what was spent).
   */
  record ReportBudget(long budgetId, long spent, long sequence, long wantAmount, long leaseMillis)
      implements QuotaCommand {
    public static final int CODE = 50;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "BUDGET_REPORT";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<ReportBudget> SHAPE =
        Shape.of(
            ReportBudget.class,
            i64("budgetId", ReportBudget::budgetId),
            i64("spent", ReportBudget::spent),
            i64("sequence", ReportBudget::sequence),
            i64("wantAmount", ReportBudget::wantAmount),
            i64("leaseMillis", ReportBudget::leaseMillis));

    @Override
    public Touches touches() {
      return Touches.id(budgetId);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.reportBudget(this);
    }
  }

  /**
   * The holder stops spending from a budget and reports its final cumulative {@code spent}:
   * the unspent part is given back at every level whose window is still the one it was charged
   * in, and the budget is gone.
   */
  record ReturnBudget(long budgetId, long spent, long sequence) implements QuotaCommand {
    public static final int CODE = 51;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "BUDGET_RETURN";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<ReturnBudget> SHAPE =
        Shape.of(
            ReturnBudget.class,
            i64("budgetId", ReturnBudget::budgetId),
            i64("spent", ReturnBudget::spent),
            i64("sequence", ReturnBudget::sequence));

    @Override
    public Touches touches() {
      return Touches.id(budgetId);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.returnBudget(this);
    }
  }

  /**
   * Reports of several budgets, applied in order as if each were proposed alone: each is judged
   * on its own (an unknown budget or a bad report fails only that one) and answered in
   * {@code QuotaResult.BudgetsReported}, in the same order. One request key covers the batch,
   * so a resent batch gets every answer of the first. At most {@link #MAX_REPORTS}.
   */
  record ReportBudgets(List<ReportBudget> reports) implements QuotaCommand {
    public static final int CODE = 52;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "BUDGET_REPORT";

    /** Most reports in one batch: the protocol and the log share the bound. */
    public static final int MAX_REPORTS = 1_000;

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<ReportBudgets> SHAPE =
        Shape.of(ReportBudgets.class, list16("reports", ReportBudgets::reports, ReportBudget.SHAPE));

    public ReportBudgets {
      reports = List.copyOf(reports);
    }

    @Override
    public Touches touches() {
      return Touches.ids(reports.stream().map(ReportBudget::budgetId).toList());
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.reportBudgets(this);
    }
  }

  /**
   * Reservations of one client, applied in order as if each were proposed alone: each is judged
   * on its own (a refusal or a bad argument fails only that one) and answered in {@code
   * QuotaResult.ReservedBatch}, in the same order. One request key covers the batch, so a resent
   * batch gets every answer of the first; an idempotency key on a reservation works as on a
   * keyed Reserve. At most {@link #MAX_RESERVES}: the batched path of many small reservations
   * (storage allocations) that would each cost an entry.
   */
  record ReserveBatch(List<Reserve> reserves) implements QuotaCommand {
    public static final int CODE = 53;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RESERVE_BATCH";

    /** Most reservations in one batch: the protocol and the log share the bound. */
    public static final int MAX_RESERVES = 1_000;

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<ReserveBatch> SHAPE =
        Shape.of(ReserveBatch.class, list16("reserves", ReserveBatch::reserves, Reserve.BATCHED_SHAPE));

    public ReserveBatch {
      reserves = List.copyOf(reserves);
    }

    @Override
    public Touches touches() {
      Touches all = Touches.ids(List.of());
      for (Reserve r : reserves) {
        all = all.and(Touches.pathOf(r.scope()));
      }
      return all;
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(QuotaCommand.Handler<R> handler) {
      return handler.reserveBatch(this);
    }
  }

  /** One method per quota command: whoever applies them must handle every one. */
  interface Handler<R> {
    R setQuota(SetQuota command);

    R reserve(Reserve command);

    R complete(CompleteReservation command);

    R cancel(CancelReservation command);

    R ingest(IngestUsage command);

    R ack(AckUsage command);

    R reconcile(Reconcile command);

    R grantBudget(GrantBudget command);

    R reportBudget(ReportBudget command);

    R returnBudget(ReturnBudget command);

    R reportBudgets(ReportBudgets command);

    R reserveBatch(ReserveBatch command);
  }
}
