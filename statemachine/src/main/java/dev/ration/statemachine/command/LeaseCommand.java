package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.absent;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.str;
import static dev.ration.wire.shape.Fields.struct;

import dev.ration.statemachine.result.Result;
import dev.ration.wire.lease.LeaseBounds;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.shape.Shape;
import java.util.List;

/**
 * The lease ledger's commands: limits, leases and epochs. Codes 1-19 of the log format (Tick,
 * code 6, is the replica's); 8-15 are the concurrency-slot commands.
 */
public sealed interface LeaseCommand extends Command {

  /** Calls the {@code handler} method for this command. */
  <R> R accept(Handler<R> handler);

  @Override
  default Class<LeaseCommand> family() {
    return LeaseCommand.class;
  }

  /**
   * Create or change the global limit for ({@code limit.tenant()}, {@code limit.resource()}).
   * {@code limit.version()} is the version the caller last read, as in optimistic concurrency
   * control: 0 means "create or overwrite whatever is there"; otherwise the change applies only if
   * the current config version equals it (else STALE_CONFIG with the current version). The ledger
   * mints the new version; the stored limit never keeps the one proposed.
   */
  record SetLimit(Limit limit) implements LeaseCommand, Audited {
    public static final int CODE = 1;

    @Override
    public AuditLine auditLine(Result result) {
      return result instanceof Result.LimitSet r
          ? new AuditLine("limit.set", limit.tenant(), limit.resource(),
              "version " + r.limit().version() + " rate " + r.limit().ratePerSecond()
                  + "/s burst " + r.limit().burst())
          : null;
    }

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "SET_LIMIT";

    /** Its fields in the log, in this order after the command code: the limit's own encoding. */
    public static final Shape<SetLimit> SHAPE =
        Shape.of(SetLimit.class, struct("limit", SetLimit::limit, Limit.SHAPE));

    /** The version the caller last read (0: any). */
    public long expectedVersion() {
      return limit.version();
    }

    @Override
    public Touches touches() {
      return Touches.tenant(limit.tenant());
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.setLimit(this);
    }
  }

  /** Ask for a new lease on (tenant, resource) for {@code holder}, up to the demanded shares. */
  record AcquireLease(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst)
      implements LeaseCommand {
    public static final int CODE = 2;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "ACQUIRE_LEASE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<AcquireLease> SHAPE =
        Shape.of(
            AcquireLease.class,
            str("tenant", AcquireLease::tenant),
            str("resource", AcquireLease::resource),
            str("holder", AcquireLease::holder),
            i64("demandRatePerSecond", AcquireLease::demandRatePerSecond),
            i64("demandBurst", AcquireLease::demandBurst));

    @Override
    public Touches touches() {
      return Touches.tenant(tenant);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.acquire(this);
    }
  }

  /**
   * Renew lease {@code leaseId}, presenting the newest version the holder has applied. Presenting
   * the current version acknowledges it (ends a pending two-phase shrink). The demand report
   * drives allocation; {@code emergencyUsed} reports best-effort overshoot spent while disconnected.
   */
  record RenewLease(
      long leaseId,
      long presentedVersion,
      long demandRatePerSecond,
      long demandBurst,
      long admittedPerSecond,
      long rejectedPerSecond,
      long emergencyUsed)
      implements LeaseCommand {
    public static final int CODE = 3;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RENEW_LEASE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<RenewLease> SHAPE =
        Shape.of(
            RenewLease.class,
            i64("leaseId", RenewLease::leaseId),
            i64("presentedVersion", RenewLease::presentedVersion),
            i64("demandRatePerSecond", RenewLease::demandRatePerSecond),
            i64("demandBurst", RenewLease::demandBurst),
            i64("admittedPerSecond", RenewLease::admittedPerSecond),
            i64("rejectedPerSecond", RenewLease::rejectedPerSecond),
            i64("emergencyUsed", RenewLease::emergencyUsed));

    @Override
    public Touches touches() {
      return Touches.id(leaseId);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.renew(this);
    }
  }

  /**
   * Renewals of several leases, applied in order as if each were proposed alone: each is judged
   * on its own (a stale version or an expired lease fails only that renewal) and answered in
   * {@code Result.LeasesRenewed}, in the same order. One request key covers the whole batch, so a
   * resent batch gets every answer of the first. At most {@link #MAX_RENEWALS} renewals (a format
   * bound, the same as the protocol's).
   */
  record RenewLeases(List<RenewLease> renewals) implements LeaseCommand {
    public static final int CODE = 7;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RENEW_LEASES";

    /** Most renewals in one batch: the protocol and the log share the bound. */
    public static final int MAX_RENEWALS = LeaseBounds.MAX_RENEWALS_PER_BATCH;

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<RenewLeases> SHAPE =
        Shape.of(RenewLeases.class, list16("renewals", RenewLeases::renewals, RenewLease.SHAPE));

    public RenewLeases {
      renewals = List.copyOf(renewals);
    }

    @Override
    public Touches touches() {
      return Touches.ids(renewals.stream().map(RenewLease::leaseId).toList());
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.renewAll(this);
    }
  }

  /**
   * Hand a lease back. The holder has already invalidated its bucket; {@code unusedBalance} tokens
   * may be credited to the limit's bounded pool. Returning twice or returning an expired lease is
   * a no-op with the same answer.
   *
   * <p>Two codes, one meaning each. {@link #FENCED_CODE} (11), which the endpoint writes, frees
   * the lease only when {@code presentedVersion} is its current version, so a delayed duplicate,
   * a restarted holder's old return or another process's guess cannot free a share its holder is
   * still spending (VERSION_MISMATCH, the lease stays). {@link #CODE} (4) is how earlier releases
   * wrote it and keeps their meaning when their entries are replayed: any version frees it.
   */
  record ReturnLease(long leaseId, long presentedVersion, long unusedBalance, boolean fenced)
      implements LeaseCommand {
    public static final int CODE = 4;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RETURN_LEASE";

    /** The code of a return fenced by the presented version: the fields of {@link #CODE}. */
    public static final int FENCED_CODE = 11;

    /** The protocol operation a fenced return serves. */
    public static final String FENCED_OPERATION = "RETURN_LEASE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<ReturnLease> SHAPE =
        Shape.reordered(
            ReturnLease.class,
            i64("leaseId", ReturnLease::leaseId),
            i64("presentedVersion", ReturnLease::presentedVersion),
            i64("unusedBalance", ReturnLease::unusedBalance),
            absent("fenced", false));

    /** The fields of a fenced return ({@link #FENCED_CODE}): the same as {@link #SHAPE}'s. */
    public static final Shape<ReturnLease> FENCED_SHAPE =
        Shape.reordered(
            ReturnLease.class,
            i64("leaseId", ReturnLease::leaseId),
            i64("presentedVersion", ReturnLease::presentedVersion),
            i64("unusedBalance", ReturnLease::unusedBalance),
            absent("fenced", true));

    /** A return fenced by {@code presentedVersion}: the one the endpoint proposes. */
    public ReturnLease(long leaseId, long presentedVersion, long unusedBalance) {
      this(leaseId, presentedVersion, unusedBalance, true);
    }

    @Override
    public Touches touches() {
      return Touches.id(leaseId);
    }

    @Override
    public int code() {
      return fenced ? FENCED_CODE : CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.returnLease(this);
    }
  }

  /**
   * Committed first by every new leader. Leases live before it keep counting until at least
   * {@code epochStart + leaseDuration + grace}; the epoch number rises by one.
   * {@code leaderId} is recorded for audit only.
   */
  record NewEpoch(String leaderId) implements LeaseCommand {
    public static final int CODE = 5;

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<NewEpoch> SHAPE =
        Shape.of(
            NewEpoch.class,
            str("leaderId", NewEpoch::leaderId));

    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.newEpoch(this);
    }

    @Override
    public boolean fromClient() {
      return false;
    }
  }

  /**
   * {@link SetLimit} with a concurrency cap C: create or change the limit and set C in one
   * command (0 removes the cap; existing slot shares then shrink on renewal). A plain SetLimit
   * keeps the cap a limit has. {@code limit.version()} is the expected version, as for SetLimit.
   */
  record SetLimitConcurrency(Limit limit, long concurrency) implements LeaseCommand {
    public static final int CODE = 8;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "SET_LIMIT_CONCURRENCY";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<SetLimitConcurrency> SHAPE =
        Shape.of(
            SetLimitConcurrency.class,
            struct("limit", SetLimitConcurrency::limit, Limit.SHAPE),
            i64("concurrency", SetLimitConcurrency::concurrency));

    @Override
    public Touches touches() {
      return Touches.tenant(limit.tenant());
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.setLimitConcurrency(this);
    }
  }

  /**
   * Ask for a new lease on (tenant, resource) for {@code holder} holding concurrency slots, up
   * to {@code demandSlots} (the holder's running + queued jobs). Its rate and burst shares are 0.
   */
  record AcquireSlots(String tenant, String resource, String holder, long demandSlots)
      implements LeaseCommand {
    public static final int CODE = 9;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "ACQUIRE_SLOTS";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<AcquireSlots> SHAPE =
        Shape.of(
            AcquireSlots.class,
            str("tenant", AcquireSlots::tenant),
            str("resource", AcquireSlots::resource),
            str("holder", AcquireSlots::holder),
            i64("demandSlots", AcquireSlots::demandSlots));

    @Override
    public Touches touches() {
      return Touches.tenant(tenant);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.acquireSlots(this);
    }
  }

  /**
   * One slot renewal inside {@link RenewSlots}: the holder's demand is {@code running + queued}.
   * {@code release} ≥ 0 is the holder's promise that from the moment it sent this renewal until
   * it has the answer it runs at most {@code release} jobs under the lease (−1: no promise); the
   * ledger then stops counting every slot above it at once, without waiting for an
   * acknowledgement, so a holder whose demand collapsed hands its slots over in one renewal.
   */
  record SlotRenewal(long leaseId, long presentedVersion, long running, long queued,
      long release) {
    public static final Shape<SlotRenewal> SHAPE =
        Shape.of(
            SlotRenewal.class,
            i64("leaseId", SlotRenewal::leaseId),
            i64("presentedVersion", SlotRenewal::presentedVersion),
            i64("running", SlotRenewal::running),
            i64("queued", SlotRenewal::queued),
            i64("release", SlotRenewal::release));

    /** No promise: the ledger counts what the lease holds until acknowledged. */
    public static final long NO_RELEASE = -1;
  }

  /**
   * Slot renewals of several leases, each applied exactly as RenewLease applies a rate renewal
   * (presented version, two-phase shrink, growth from free slots only) and answered on its own,
   * in order, in {@code Result.SlotsRenewed}. Rate and burst shares of the leases are kept.
   */
  record RenewSlots(List<SlotRenewal> renewals) implements LeaseCommand {
    public static final int CODE = 10;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "RENEW_SLOTS";

    /** Most renewals in one batch: the protocol and the log share the bound. */
    public static final int MAX_RENEWALS = LeaseBounds.MAX_RENEWALS_PER_BATCH;

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<RenewSlots> SHAPE =
        Shape.of(RenewSlots.class, list16("renewals", RenewSlots::renewals, SlotRenewal.SHAPE));

    public RenewSlots {
      renewals = List.copyOf(renewals);
    }

    @Override
    public Touches touches() {
      return Touches.ids(renewals.stream().map(SlotRenewal::leaseId).toList());
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(LeaseCommand.Handler<R> handler) {
      return handler.renewSlots(this);
    }
  }

  /** One method per lease command: whoever applies them must handle every one. */
  interface Handler<R> {
    R setLimit(SetLimit command);

    R acquire(AcquireLease command);

    R renew(RenewLease command);

    R renewAll(RenewLeases command);

    R returnLease(ReturnLease command);

    R newEpoch(NewEpoch command);

    R setLimitConcurrency(SetLimitConcurrency command);

    R acquireSlots(AcquireSlots command);

    R renewSlots(RenewSlots command);
  }
}
