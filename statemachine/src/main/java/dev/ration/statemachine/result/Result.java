package dev.ration.statemachine.result;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.str;
import static dev.ration.wire.shape.Fields.struct;

import dev.ration.wire.Outcome;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;
import dev.ration.wire.ttl.NamespaceView;
import java.util.List;

/**
 * The outcome of applying one proposal. Results are replicated data: a retried request gets the
 * stored result back byte for byte. Codes are explicit and append-only.
 */
public sealed interface Result {
  /** Calls the {@code handler} method for this result. */
  <R> R accept(Handler<R> handler);

  /**
   * One method per result, so whoever maps results (the endpoint's replies) handles every one:
   * a new result does not compile until it is mapped.
   */
  interface Handler<R> {
    R limitSet(LimitSet result);

    R leaseGranted(LeaseGranted result);

    R leaseRenewed(LeaseRenewed result);

    R leaseReturned(LeaseReturned result);

    R epochStarted(EpochStarted result);

    R ticked(Ticked result);

    R entryWritten(EntryWritten result);

    R entryDeleted(EntryDeleted result);

    R namespaceSet(NamespaceSet result);

    R leasesRenewed(LeasesRenewed result);

    R limitConcurrencySet(LimitConcurrencySet result);

    R slotsGranted(SlotsGranted result);

    R slotsRenewed(SlotsRenewed result);

    R rejected(Rejected result);

    R securityChanged(SecurityChanged result);

    R denied(Denied result);

    R misrouted(Misrouted result);

    R slotStepped(SlotStepped result);

    R idsSlotted(IdsSlotted result);

    R quota(Quota result);
  }

  int code();

  record LimitSet(Limit limit) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.limitSet(this);
    }

    public static final int CODE = 1;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<LimitSet> SHAPE =
        Shape.of(
            LimitSet.class,
            struct("limit", LimitSet::limit, Limit.SHAPE));

    public int code() {
      return CODE;
    }
  }

  /** A new lease; {@code startBalance} tokens come from the returned-token pool (often 0). */
  record LeaseGranted(LeaseView lease, long startBalance) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.leaseGranted(this);
    }

    public static final int CODE = 2;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<LeaseGranted> SHAPE =
        Shape.of(
            LeaseGranted.class,
            struct("lease", LeaseGranted::lease, LeaseView.SHAPE),
            i64("startBalance", LeaseGranted::startBalance));

    public int code() {
      return CODE;
    }
  }

  record LeaseRenewed(LeaseView lease) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.leaseRenewed(this);
    }

    public static final int CODE = 3;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<LeaseRenewed> SHAPE =
        Shape.of(
            LeaseRenewed.class,
            struct("lease", LeaseRenewed::lease, LeaseView.SHAPE));

    public int code() {
      return CODE;
    }
  }

  /** {@code credited} tokens went to the pool; {@code alreadyGone}: returned or expired before. */
  record LeaseReturned(long leaseId, long credited, boolean alreadyGone) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.leaseReturned(this);
    }

    public static final int CODE = 4;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<LeaseReturned> SHAPE =
        Shape.of(
            LeaseReturned.class,
            i64("leaseId", LeaseReturned::leaseId),
            i64("credited", LeaseReturned::credited),
            bool("alreadyGone", LeaseReturned::alreadyGone));

    public int code() {
      return CODE;
    }
  }

  record EpochStarted(long epoch, long epochStartMillis) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.epochStarted(this);
    }

    public static final int CODE = 5;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<EpochStarted> SHAPE =
        Shape.of(
            EpochStarted.class,
            i64("epoch", EpochStarted::epoch),
            i64("epochStartMillis", EpochStarted::epochStartMillis));

    public int code() {
      return CODE;
    }
  }

  record Ticked(int freed) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.ticked(this);
    }

    public static final int CODE = 6;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<Ticked> SHAPE =
        Shape.of(
            Ticked.class,
            i32("freed", Ticked::freed));

    public int code() {
      return CODE;
    }
  }

  // The TTL ledger's results have codes 20–29.
  /** A put, compare-and-set or refresh took effect: the entry's version and expiry now. */
  record EntryWritten(String namespace, String key, long version, long expiresAtMillis)
      implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.entryWritten(this);
    }

    public static final int CODE = 20;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<EntryWritten> SHAPE =
        Shape.of(
            EntryWritten.class,
            str("namespace", EntryWritten::namespace),
            str("key", EntryWritten::key),
            i64("version", EntryWritten::version),
            i64("expiresAtMillis", EntryWritten::expiresAtMillis));

    public int code() {
      return CODE;
    }
  }

  /** A delete: {@code existed} false when no live entry was there (version then 0). */
  record EntryDeleted(String namespace, String key, long version, boolean existed)
      implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.entryDeleted(this);
    }

    public static final int CODE = 21;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<EntryDeleted> SHAPE =
        Shape.of(
            EntryDeleted.class,
            str("namespace", EntryDeleted::namespace),
            str("key", EntryDeleted::key),
            i64("version", EntryDeleted::version),
            bool("existed", EntryDeleted::existed));

    public int code() {
      return CODE;
    }
  }

  record NamespaceSet(NamespaceView namespace) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.namespaceSet(this);
    }

    public static final int CODE = 22;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<NamespaceSet> SHAPE =
        Shape.of(
            NamespaceSet.class,
            struct("namespace", NamespaceSet::namespace, NamespaceView.SHAPE));

    public int code() {
      return CODE;
    }
  }

  /** The answers to {@code RenewLeases}, one per renewal, in its order. */
  record LeasesRenewed(List<Renewal> renewals) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.leasesRenewed(this);
    }

    public static final int CODE = 8;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<LeasesRenewed> SHAPE =
        Shape.of(LeasesRenewed.class, list16("renewals", LeasesRenewed::renewals, Renewal.SHAPE));

    public LeasesRenewed {
      renewals = List.copyOf(renewals);
    }

    public int code() {
      return CODE;
    }
  }

  /**
   * One renewal's answer inside {@link LeasesRenewed}: SUCCESS with the renewed {@code lease},
   * or a rejection's outcome, message, retry-after and current version with no lease.
   */
  record Renewal(Outcome outcome, String message, long retryAfterMillis, long currentVersion,
      LeaseView lease) {
    public static final Shape<Renewal> SHAPE =
        Shape.of(
            Renewal.class,
            Fields.code("outcome", Renewal::outcome, Outcome::fromCode, Outcome::code),
            str("message", Renewal::message),
            i64("retryAfterMillis", Renewal::retryAfterMillis),
            i64("currentVersion", Renewal::currentVersion),
            Fields.optional("lease", Renewal::lease, LeaseView.SHAPE));

    public Renewal {
      if ((outcome == Outcome.SUCCESS) != (lease != null)) {
        throw new IllegalArgumentException(
            "a renewal carries its lease exactly when it succeeded: " + outcome);
      }
    }

    /** The answer a single renewal's {@code result} gives inside a batch. */
    public static Renewal of(Result result) {
      if (result instanceof LeaseRenewed r) {
        return new Renewal(Outcome.SUCCESS, "", 0, r.lease().version(), r.lease());
      }
      if (result instanceof Rejected no) {
        return new Renewal(no.outcome(), no.message(), no.retryAfterMillis(), no.currentVersion(),
            null);
      }
      throw new IllegalArgumentException("a renewal answered by " + result);
    }
  }

  // Concurrency-slot results: codes 9-15.
  /** A limit set with its concurrency cap: the limit as stored and C. */
  record LimitConcurrencySet(Limit limit, long concurrency) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.limitConcurrencySet(this);
    }

    public static final int CODE = 9;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<LimitConcurrencySet> SHAPE =
        Shape.of(
            LimitConcurrencySet.class,
            struct("limit", LimitConcurrencySet::limit, Limit.SHAPE),
            i64("concurrency", LimitConcurrencySet::concurrency));

    public int code() {
      return CODE;
    }
  }

  /** A new lease holding concurrency slots. */
  record SlotsGranted(SlotLease lease) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.slotsGranted(this);
    }

    public static final int CODE = 10;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<SlotsGranted> SHAPE =
        Shape.of(SlotsGranted.class, struct("lease", SlotsGranted::lease, SlotLease.SHAPE));

    public int code() {
      return CODE;
    }
  }

  /** The answers to {@code RenewSlots}, one per renewal, in its order. */
  record SlotsRenewed(List<SlotRenewalAnswer> renewals) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.slotsRenewed(this);
    }

    public static final int CODE = 11;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<SlotsRenewed> SHAPE =
        Shape.of(SlotsRenewed.class,
            list16("renewals", SlotsRenewed::renewals, SlotRenewalAnswer.SHAPE));

    public SlotsRenewed {
      renewals = List.copyOf(renewals);
    }

    public int code() {
      return CODE;
    }
  }

  /**
   * One slot renewal's answer inside {@link SlotsRenewed}: SUCCESS with the renewed
   * {@code lease}, or a rejection's outcome, message, retry-after and current version.
   */
  record SlotRenewalAnswer(Outcome outcome, String message, long retryAfterMillis,
      long currentVersion, SlotLease lease) {
    public static final Shape<SlotRenewalAnswer> SHAPE =
        Shape.of(
            SlotRenewalAnswer.class,
            Fields.code("outcome", SlotRenewalAnswer::outcome, Outcome::fromCode, Outcome::code),
            str("message", SlotRenewalAnswer::message),
            i64("retryAfterMillis", SlotRenewalAnswer::retryAfterMillis),
            i64("currentVersion", SlotRenewalAnswer::currentVersion),
            Fields.optional("lease", SlotRenewalAnswer::lease, SlotLease.SHAPE));

    public SlotRenewalAnswer {
      if ((outcome == Outcome.SUCCESS) != (lease != null)) {
        throw new IllegalArgumentException(
            "a slot renewal carries its lease exactly when it succeeded: " + outcome);
      }
    }

    public static SlotRenewalAnswer granted(SlotLease lease) {
      return new SlotRenewalAnswer(Outcome.SUCCESS, "", 0, lease.version(), lease);
    }

    public static SlotRenewalAnswer refused(Rejected no) {
      return new SlotRenewalAnswer(no.outcome(), no.message(), no.retryAfterMillis(),
          no.currentVersion(), null);
    }
  }

  /**
   * A rejection. {@code retryAfterMillis} is 0 when no time is known; {@code currentVersion}
   * carries the current config or lease version where the outcome is about versions, else 0.
   */
  record Rejected(Outcome outcome, String message, long retryAfterMillis, long currentVersion)
      implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.rejected(this);
    }

    public static final int CODE = 7;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<Rejected> SHAPE =
        Shape.of(
            Rejected.class,
            Fields.code("outcome", Rejected::outcome, Rejected::outcomeOf, Outcome::code),
            str("message", Rejected::message),
            i64("retryAfterMillis", Rejected::retryAfterMillis),
            i64("currentVersion", Rejected::currentVersion));

    public Rejected {
      if (outcome == Outcome.SUCCESS) {
        throw new IllegalArgumentException("a rejection cannot carry SUCCESS: " + message);
      }
    }

    /** A stored rejection's outcome: any but SUCCESS, which no rejection carries. */
    private static Outcome outcomeOf(int code) {
      Outcome outcome = Outcome.fromCode(code);
      if (outcome == Outcome.SUCCESS) {
        throw new IllegalArgumentException("unknown rejection outcome code " + code);
      }
      return outcome;
    }

    public int code() {
      return CODE;
    }
  }

  /**
   * A token or grant changed (or already was as asked: {@code changed} false), recorded in the
   * security audit log under {@code auditSequence} (0 when nothing changed).
   */
  record SecurityChanged(String message, boolean changed, long auditSequence) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.securityChanged(this);
    }

    public static final int CODE = 60;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<SecurityChanged> SHAPE =
        Shape.of(
            SecurityChanged.class,
            str("message", SecurityChanged::message),
            bool("changed", SecurityChanged::changed),
            i64("auditSequence", SecurityChanged::auditSequence));

    public int code() {
      return CODE;
    }
  }

  /**
   * A command refused because it touches a tenant its caller holds no grant on; the endpoint
   * answers it as the error PERMISSION_DENIED (definite: nothing changed).
   */
  record Denied(String message) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.denied(this);
    }

    public static final int CODE = 61;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<Denied> SHAPE =
        Shape.of(Denied.class, str("message", Denied::message));

    public int code() {
      return CODE;
    }
  }

  /**
   * A client command for a slot this group does not serve now, refused at apply time from the
   * group's own slot table: nothing was applied and nothing recorded under the request's key,
   * so a retry (at the owner, or here once a move settles) is decided afresh. {@code moving}: the
   * slot is being moved into or out of this group (retry shortly); otherwise {@code ownerGroup}
   * is the group this one last knew to own it (-1: none known) at move epoch {@code epoch}.
   */
  record Misrouted(int slot, int ownerGroup, long epoch, boolean moving) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.misrouted(this);
    }

    public static final int CODE = 62;

    /** Its stored fields, in this order after the result code (never stored in the ledger:
     *  the shape lets a result be encoded uniformly). */
    public static final Shape<Misrouted> SHAPE =
        Shape.of(
            Misrouted.class,
            i32("slot", Misrouted::slot),
            i32("ownerGroup", Misrouted::ownerGroup),
            i64("epoch", Misrouted::epoch),
            bool("moving", Misrouted::moving));

    public int code() {
      return CODE;
    }
  }

  /**
   * A placement step took effect (or had already): {@code slot}'s state in this group is now
   * phase {@code phaseCode} ({@code placement.SlotState.Phase}) at move epoch {@code epoch}, with
   * {@code ownerHint} the group this one knows to hold it.
   */
  record SlotStepped(int slot, int phaseCode, long epoch, int ownerHint) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.slotStepped(this);
    }

    public static final int CODE = 63;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<SlotStepped> SHAPE =
        Shape.of(
            SlotStepped.class,
            i32("slot", SlotStepped::slot),
            i32("phaseCode", SlotStepped::phaseCode),
            i64("epoch", SlotStepped::epoch),
            i32("ownerHint", SlotStepped::ownerHint));

    public int code() {
      return CODE;
    }
  }

  /** The ledgers mint ids that carry their tenant's slot from this entry on. */
  record IdsSlotted() implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.idsSlotted(this);
    }

    public static final int CODE = 64;

    /** Its stored fields after the result code: none. */
    public static final Shape<IdsSlotted> SHAPE = Shape.of(IdsSlotted.class);

    public int code() {
      return CODE;
    }
  }

  /**
   * A quota ledger result; its code is the wrapped result's (40–59), and its stored fields are
   * the wrapped result's shape.
   */
  record Quota(QuotaResult result) implements Result {
    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.quota(this);
    }

    public int code() {
      return result.code();
    }
  }
}
