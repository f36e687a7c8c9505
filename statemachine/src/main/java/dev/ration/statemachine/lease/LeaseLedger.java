package dev.ration.statemachine.lease;

import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;

import dev.ration.wire.Policy;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.replica.Millis;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.ByteWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The lease ledger: limits, leases and the lease kinds of the shared expiry index, in memory
 * (docs/LIMITER.md). One {@link Ledger} of the {@link dev.ration.statemachine.replica.Replica}, which
 * keeps the applied index, the clock, the global version counter, idempotency and Tick, and
 * routes the lease commands (SetLimit, AcquireLease, RenewLease, ReturnLease, NewEpoch) and the
 * lease kinds of the expiry index (LEASE_END, PENDING_END) here.
 *
 * <p>Role: a pure function of (state, command). Time is only the entry's time, mirrored into
 * {@link #nowMillis} at the start of each entry; versions come from the replica's global
 * counter; lease ids from {@link #nextLeaseId}. Each command records what it changed in the
 * entry's {@link Changes}; the store persists exactly that, with the applied index, in one
 * WriteBatch.
 *
 * <p>Allocation (docs/LIMITER.md): each lease keeps the demand its holder last reported; on acquire
 * and renew the limit's {@link Policy} proposes the requester's share from the live holders'
 * demands ({@link Allocation}), and the ledger clips it to what is available — the lease's own
 * counted share plus free capacity — so a shrink is two-phase and growth comes only from
 * capacity that is free now.
 *
 * <p>Thread: the single applying thread (the caller serialises apply, query and close).
 *
 * <p>Invariants (docs/INVARIANTS.md): I1, I2, I8 are checked incrementally after every
 * command on what it touched; {@link #verify()} recomputes I1, I2, I5–I8 for leases. A
 * violation throws {@link InvariantViolation}; after any exception from apply this object must
 * be discarded (its memory may be ahead of the store), which the store enforces.
 */
public final class LeaseLedger implements Ledger {
  /** Ratis numbers its first log entry 0, so nothing applied is −1. */
  public static final long NOTHING_APPLIED = dev.ration.statemachine.replica.Replica.NOTHING_APPLIED;

  public static final long MIN_LEASE_DURATION_MILLIS = 100;
  public static final long MAX_LEASE_DURATION_MILLIS = 3_600_000;

  private final StateOptions options;
  private final TreeMap<LimitKey, LimitLedger> limits = new TreeMap<>();
  private final HashMap<Long, Lease> leases = new HashMap<>();
  /** The replica: clock, version counter, the entry's changes, the shared expiry index. */
  private final ApplyContext context;
  /** The lease kinds of the expiry index, held only in memory (see {@link LeaseExpiryIndex}). */
  private final LeaseExpiryIndex expiry = new LeaseExpiryIndex();

  /** The replica's now, mirrored at the start of each entry (see {@link #beginEntry}). */
  private long nowMillis = 0;
  private long epoch = 0;
  private long epochStartMillis = 0;
  private long nextLeaseId = 1;

  /**
   * Limits and leases the current entry changed (or removed): written to their column families
   * at the end of the entry, in the entry's one WriteBatch.
   */
  private final Set<LimitKey> changedLimits = new HashSet<>();
  private final Set<Long> changedLeases = new HashSet<>();

  /** Limits and leases the current command touched, for the incremental invariant check. */
  private final List<LimitLedger> touchedLimits = new ArrayList<>();
  private final List<Lease> touchedLeases = new ArrayList<>();

  public LeaseLedger(StateOptions options, ApplyContext context) {
    this.options = options;
    this.context = context;
  }

  // ---------------------------------------------------------------- Ledger

  @Override
  public String name() {
    return "lease";
  }

  @Override
  public Class<LeaseCommand> commands() {
    return LeaseCommand.class;
  }

  @Override
  public void beginEntry(long nowMillis) {
    this.nowMillis = nowMillis;
  }

  @Override
  public void beginCommand() {
    touchedLimits.clear();
    touchedLeases.clear();
  }

  @Override
  public void endCommand() {
    checkTouched();
  }

  /** Writes every limit and lease the entry changed (or a delete for one that is gone). */
  @Override
  public void endEntry() {
    for (LimitKey key : changedLimits) {
      LimitLedger limit = limits.get(key);
      if (limit != null) {
        context.changes().putRecord(LeaseFormat.LIMITS, LeaseFormat.limitKey(key),
            LeaseFormat.limitValue(limit));
      } else {
        context.changes().deleteRecord(LeaseFormat.LIMITS, LeaseFormat.limitKey(key));
      }
    }
    for (long id : changedLeases) {
      Lease lease = leases.get(id);
      if (lease != null) {
        context.changes().putRecord(LeaseFormat.LEASES, LeaseFormat.leaseKey(id),
            LeaseFormat.leaseValue(lease));
      } else {
        context.changes().deleteRecord(LeaseFormat.LEASES, LeaseFormat.leaseKey(id));
      }
    }
    changedLimits.clear();
    changedLeases.clear();
  }

  /**
   * Loads every limit, then every lease (with the lease kinds of the expiry index), from the
   * two families; meta (epoch, next lease id) was restored before.
   */
  @Override
  public void load() {
    context.store().scan(LeaseFormat.LIMITS, new byte[0], (key, value) -> {
      LeaseFormat.StoredLimit l = LeaseFormat.readLimit(value);
      restoreLimit(l.limit(), l.pool(), l.rateCeiling(), l.burstCeiling(), l.emergencyReported(),
          l.concurrency(), l.slotCeiling());
      return true;
    });
    context.store().scan(LeaseFormat.LEASES, new byte[0], (key, value) -> {
      restoreLease(LeaseFormat.readLease(key, value));
      return true;
    });
  }

  /** The dispatch over the lease commands: {@link LeaseCommand.Handler} makes it exhaustive. */
  @Override
  public Result apply(Command command) {
    return ((LeaseCommand) command).accept(handler);
  }

  private final LeaseCommand.Handler<Result> handler = new LeaseCommand.Handler<>() {
    @Override
    public Result setLimit(SetLimit command) {
      return LeaseLedger.this.setLimit(command);
    }

    @Override
    public Result acquire(AcquireLease command) {
      return LeaseLedger.this.acquire(command);
    }

    @Override
    public Result renew(RenewLease command) {
      return LeaseLedger.this.renew(command);
    }

    @Override
    public Result renewAll(RenewLeases command) {
      return LeaseLedger.this.renewAll(command);
    }

    @Override
    public Result returnLease(ReturnLease command) {
      return LeaseLedger.this.returnLease(command);
    }

    @Override
    public Result newEpoch(NewEpoch command) {
      return LeaseLedger.this.newEpoch(command);
    }

    @Override
    public Result setLimitConcurrency(SetLimitConcurrency command) {
      if (command.concurrency() < 0) {
        return invalid("concurrency " + command.concurrency() + " < 0");
      }
      return LeaseLedger.this.setLimit(command.limit(), command.concurrency());
    }

    @Override
    public Result acquireSlots(AcquireSlots command) {
      return LeaseLedger.this.acquireSlots(command);
    }

    @Override
    public Result renewSlots(RenewSlots command) {
      return LeaseLedger.this.renewSlots(command);
    }
  };

  /** The tenant of lease {@code id} while the ledger holds it (counted, until freed); none after. */
  @Override
  public Optional<String> tenantOfId(long id, boolean orSettled) {
    Lease lease = leases.get(id);
    return lease == null ? Optional.empty() : Optional.of(lease.tenant());
  }

  @Override
  public boolean ownsExpiryKind(int kind) {
    return isLeaseKind(kind);
  }

  /** The lease kinds of the expiry index follow from the leases and are kept only in memory. */
  @Override
  public boolean keepsExpiriesInMemory() {
    return true;
  }

  /** Whether expiry records of {@code kind} are the lease ledger's (never stored since format 3). */
  public static boolean isLeaseKind(int kind) {
    return kind == ExpiryKey.LEASE_END || kind == ExpiryKey.PENDING_END;
  }

  // ---------------------------------------------------------------- commands

  private Result setLimit(SetLimit command) {
    return setLimit(command.limit(), -1);
  }

  /** SetLimit, and with {@code concurrency} ≥ 0 also the limit's concurrency cap (−1: kept). */
  private Result setLimit(Limit c, long concurrency) {
    Optional<Result> bad = firstInvalid(
        badName("tenant", c.tenant()),
        badName("resource", c.resource()),
        negative("ratePerSecond", c.ratePerSecond()),
        negative("burst", c.burst()),
        c.leaseDurationMillis() < MIN_LEASE_DURATION_MILLIS
                || c.leaseDurationMillis() > MAX_LEASE_DURATION_MILLIS
            ? "leaseDurationMillis " + c.leaseDurationMillis() + " outside ["
                + MIN_LEASE_DURATION_MILLIS + ", " + MAX_LEASE_DURATION_MILLIS + "]"
            : null,
        c.graceMillis() < 0 || c.graceMillis() > c.leaseDurationMillis()
            ? "graceMillis " + c.graceMillis() + " outside [0, leaseDurationMillis "
                + c.leaseDurationMillis() + "]"
            : null,
        negative("emergency", c.emergency()),
        negative("expectedVersion", c.version()),
        c.mode() == null ? "mode is missing" : null,
        c.policy() == null ? "policy is missing" : null);
    if (bad.isPresent()) {
      return bad.get();
    }
    LimitKey key = new LimitKey(c.tenant(), c.resource());
    LimitLedger ledger = limits.get(key);
    long current = ledger == null ? 0 : ledger.limit().version();
    if (c.version() != 0 && c.version() != current) {
      return new Result.Rejected(Outcome.STALE_CONFIG,
          "expected config version " + c.version() + " but current is " + current
              + " for " + c.tenant() + "/" + c.resource(), 0, current);
    }
    if (ledger == null && limits.size() >= options.maxLimits()) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          "ledger holds " + limits.size() + " limits, maxLimits " + options.maxLimits(), 0, 0);
    }
    Limit limit = c.withVersion(context.mintVersion());
    if (ledger == null) {
      ledger = LimitLedger.fresh(limit);
      limits.put(key, ledger);
    } else {
      ledger.reconfigure(limit);
    }
    touch(ledger);
    if (concurrency >= 0) {
      ledger.setConcurrency(concurrency);
      return new Result.LimitConcurrencySet(limit, concurrency);
    }
    return new Result.LimitSet(limit);
  }

  private Result acquire(AcquireLease c) {
    Optional<Result> bad = firstInvalid(
        badName("tenant", c.tenant()),
        badName("resource", c.resource()),
        badName("holder", c.holder()),
        negative("demandRatePerSecond", c.demandRatePerSecond()),
        negative("demandBurst", c.demandBurst()));
    if (bad.isPresent()) {
      return bad.get();
    }
    LimitLedger ledger = limits.get(new LimitKey(c.tenant(), c.resource()));
    if (ledger == null) {
      return new Result.Rejected(Outcome.LIMIT_UNKNOWN,
          "no limit for tenant " + c.tenant() + " resource " + c.resource(), 0, 0);
    }
    Limit limit = ledger.limit();
    if (ledger.leaseCount() >= options.maxLeasesPerLimit()) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          "limit " + c.tenant() + "/" + c.resource() + " holds " + ledger.leaseCount()
              + " leases, maxLeasesPerLimit " + options.maxLeasesPerLimit(),
          retryAfterMillis(ledger), 0);
    }
    Shares demand = new Shares(c.demandRatePerSecond(), c.demandBurst());
    Shares free = ledger.free();
    long leaseId = nextLeaseId;
    Shares target = allocate(ledger, leaseId, demand, Shares.ZERO, free);
    // A demand-driven policy grants a lease even when no capacity is free yet, as long as the
    // holder's fair target is positive: the lease puts its demand on record, so the others
    // shrink towards their targets at their next renewals, and this one grows at its own.
    boolean waitForShare = limit.policy() != Policy.FREE_CAPACITY
        && !target(ledger, leaseId, demand, Shares.ZERO, free).isZero();
    if (!demand.isZero() && target.isZero() && !waitForShare) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          "no free capacity on " + c.tenant() + "/" + c.resource() + ": counted rate "
              + ledger.countedRate() + " of " + limit.ratePerSecond() + ", counted burst "
              + ledger.countedBurst() + " + pool " + ledger.pool() + " of " + limit.burst(),
          retryAfterMillis(ledger), 0);
    }
    nextLeaseId++;
    long version = context.mintVersion();
    long startBalance = Math.min(ledger.pool(), target.burst());
    ledger.takeFromPool(startBalance);
    long expiresAt = plus(nowMillis, limit.leaseDurationMillis());
    long countedUntil = plus(expiresAt, limit.graceMillis());
    Lease lease = new Lease(leaseId, c.tenant(), c.resource(), c.holder(), epoch, version,
        target.ratePerSecond(), target.burst(), nowMillis, expiresAt, countedUntil, 0, 0, 0,
        demand.ratePerSecond(), demand.burst());
    putLease(null, lease, ledger);
    return new Result.LeaseGranted(view(lease, ledger), startBalance);
  }

  /** Each renewal as if proposed alone, in order; the batch itself fails only when malformed. */
  private Result renewAll(RenewLeases c) {
    int n = c.renewals().size();
    if (n < 1 || n > RenewLeases.MAX_RENEWALS) {
      return new Result.Rejected(Outcome.INVALID_ARGUMENT,
          n + " renewals in one batch, allowed 1 to " + RenewLeases.MAX_RENEWALS, 0, 0);
    }
    List<Result.Renewal> answers = new ArrayList<>(n);
    for (RenewLease renewal : c.renewals()) {
      answers.add(Result.Renewal.of(renew(renewal)));
    }
    return new Result.LeasesRenewed(answers);
  }

  private Result renew(RenewLease c) {
    Optional<Result> bad = firstInvalid(
        negative("demandRatePerSecond", c.demandRatePerSecond()),
        negative("demandBurst", c.demandBurst()),
        negative("admittedPerSecond", c.admittedPerSecond()),
        negative("rejectedPerSecond", c.rejectedPerSecond()),
        negative("emergencyUsed", c.emergencyUsed()));
    if (bad.isPresent()) {
      return bad.get();
    }
    long leaseId = c.leaseId();
    Result.Rejected refused = refuseRenewal(leaseId, c.presentedVersion());
    if (refused != null) {
      return refused;
    }
    Lease lease = leases.get(leaseId);
    LimitLedger ledger = ledgerOf(lease);
    Limit limit = ledger.limit();
    boolean acknowledged = c.presentedVersion() == lease.version();
    long pendingRate = acknowledged ? 0 : lease.pendingRate();
    long pendingBurst = acknowledged ? 0 : lease.pendingBurst();
    long pendingSlots = acknowledged ? 0 : lease.pendingSlots();
    long pendingUntil = acknowledged ? 0 : lease.pendingUntilMillis();

    Shares free = ledger.free();
    Shares available = new Shares(
        plus(lease.countedRate(), free.ratePerSecond()), plus(lease.countedBurst(), free.burst()));
    Shares current = new Shares(lease.rateShare(), lease.burstShare());
    Shares target = allocate(ledger, leaseId,
        new Shares(c.demandRatePerSecond(), c.demandBurst()), current, available);

    if (target.ratePerSecond() < lease.rateShare() || target.burst() < lease.burstShare()) {
      // Two-phase shrink: the holder may still be spending the current version's shares until
      // it acknowledges the smaller version, so keep counting them until then or until the
      // current version could no longer be in use (its countedUntil, which includes grace and
      // any NewEpoch extension).
      boolean hadPending = pendingRate != 0 || pendingBurst != 0 || pendingSlots != 0;
      pendingRate = Math.max(pendingRate, lease.rateShare());
      pendingBurst = Math.max(pendingBurst, lease.burstShare());
      pendingUntil = hadPending
          ? Math.max(pendingUntil, lease.countedUntilMillis())
          : lease.countedUntilMillis();
    }
    long expiresAt = plus(nowMillis, limit.leaseDurationMillis());
    long countedUntil = Math.max(lease.countedUntilMillis(), plus(expiresAt, limit.graceMillis()));
    Lease renewed = new Lease(leaseId, lease.tenant(), lease.resource(), lease.holder(), epoch,
        context.mintVersion(), target.ratePerSecond(), target.burst(), nowMillis, expiresAt, countedUntil,
        pendingRate, pendingBurst, pendingUntil, c.demandRatePerSecond(), c.demandBurst(),
        lease.slotShare(), pendingSlots, lease.demandSlots());
    putLease(lease, renewed, ledger);
    ledger.reportEmergency(c.emergencyUsed());
    return new Result.LeaseRenewed(view(renewed, ledger));
  }

  /** Why a renewal of {@code leaseId} presenting {@code presented} is refused; null if not. */
  private Result.Rejected refuseRenewal(long leaseId, long presented) {
    if (leaseId <= 0 || leaseId >= nextLeaseId) {
      return new Result.Rejected(Outcome.LEASE_UNKNOWN,
          "lease " + leaseId + " was never granted (next lease id " + nextLeaseId + ")", 0, 0);
    }
    Lease lease = leases.get(leaseId);
    if (lease == null) {
      return new Result.Rejected(Outcome.LEASE_EXPIRED,
          "lease " + leaseId + " is gone (returned or expired and freed)", 0, 0);
    }
    if (nowMillis >= lease.expiresAtMillis()) {
      return new Result.Rejected(Outcome.LEASE_EXPIRED,
          "lease " + leaseId + " expired at " + lease.expiresAtMillis() + ", now " + nowMillis
              + "; acquire a new lease", 0, lease.version());
    }
    if (presented > lease.version()) {
      return new Result.Rejected(Outcome.VERSION_MISMATCH,
          "lease " + leaseId + " presented version " + presented
              + " is newer than current version " + lease.version(), 0, lease.version());
    }
    return null;
  }

  // ---------------------------------------------------------------- concurrency slots

  private Result acquireSlots(AcquireSlots c) {
    Optional<Result> bad = firstInvalid(
        badName("tenant", c.tenant()),
        badName("resource", c.resource()),
        badName("holder", c.holder()),
        negative("demandSlots", c.demandSlots()));
    if (bad.isPresent()) {
      return bad.get();
    }
    LimitLedger ledger = limits.get(new LimitKey(c.tenant(), c.resource()));
    if (ledger == null) {
      return new Result.Rejected(Outcome.LIMIT_UNKNOWN,
          "no limit for tenant " + c.tenant() + " resource " + c.resource(), 0, 0);
    }
    Limit limit = ledger.limit();
    if (ledger.leaseCount() >= options.maxLeasesPerLimit()) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          "limit " + c.tenant() + "/" + c.resource() + " holds " + ledger.leaseCount()
              + " leases, maxLeasesPerLimit " + options.maxLeasesPerLimit(),
          retryAfterMillis(ledger), 0);
    }
    long leaseId = nextLeaseId;
    long target = slotTarget(ledger, leaseId, c.demandSlots());
    long granted = Math.min(target, ledger.freeSlots());
    // As for rate: under a demand-driven policy a holder with a positive target gets a lease
    // even with nothing free, so its demand is on record and the others shrink towards theirs.
    boolean waitForShare = limit.policy() != Policy.FREE_CAPACITY && target > 0;
    if (c.demandSlots() > 0 && granted == 0 && !waitForShare) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          ledger.concurrency() == 0
              ? "limit " + c.tenant() + "/" + c.resource() + " has no concurrency cap"
              : "no free slots on " + c.tenant() + "/" + c.resource() + ": counted slots "
                  + ledger.countedSlots() + " of " + ledger.concurrency(),
          retryAfterMillis(ledger), 0);
    }
    nextLeaseId++;
    long version = context.mintVersion();
    long expiresAt = plus(nowMillis, limit.leaseDurationMillis());
    long countedUntil = plus(expiresAt, limit.graceMillis());
    Lease lease = new Lease(leaseId, c.tenant(), c.resource(), c.holder(), epoch, version,
        0, 0, nowMillis, expiresAt, countedUntil, 0, 0, 0, 0, 0, granted, 0, c.demandSlots());
    putLease(null, lease, ledger);
    return new Result.SlotsGranted(slotView(lease, ledger));
  }

  /** Each slot renewal as if proposed alone, in order. */
  private Result renewSlots(RenewSlots c) {
    int n = c.renewals().size();
    if (n < 1 || n > RenewSlots.MAX_RENEWALS) {
      return new Result.Rejected(Outcome.INVALID_ARGUMENT,
          n + " slot renewals in one batch, allowed 1 to " + RenewSlots.MAX_RENEWALS, 0, 0);
    }
    List<Result.SlotRenewalAnswer> answers = new ArrayList<>(n);
    for (SlotRenewal renewal : c.renewals()) {
      Result r = renewSlot(renewal);
      answers.add(r instanceof Result.Rejected no
          ? Result.SlotRenewalAnswer.refused(no)
          : Result.SlotRenewalAnswer.granted(((Result.SlotsGranted) r).lease()));
    }
    return new Result.SlotsRenewed(answers);
  }

  /**
   * One slot renewal: the same rules as a rate renewal (presented version, two-phase shrink,
   * growth only from free slots), with the holder's promise ({@code release}) taken at its word:
   * slots above it are not counted any more, in any version, because the holder runs no more
   * jobs than that from the moment it sent the renewal. Rate and burst shares are kept.
   */
  private Result renewSlot(SlotRenewal c) {
    Optional<Result> bad = firstInvalid(
        negative("running", c.running()),
        negative("queued", c.queued()),
        c.release() < SlotRenewal.NO_RELEASE ? "release " + c.release() + " < -1" : null);
    if (bad.isPresent()) {
      return bad.get();
    }
    Result.Rejected refused = refuseRenewal(c.leaseId(), c.presentedVersion());
    if (refused != null) {
      return refused;
    }
    Lease lease = leases.get(c.leaseId());
    LimitLedger ledger = ledgerOf(lease);
    Limit limit = ledger.limit();
    boolean acknowledged = c.presentedVersion() == lease.version();
    long pendingRate = acknowledged ? 0 : lease.pendingRate();
    long pendingBurst = acknowledged ? 0 : lease.pendingBurst();
    long pendingSlots = acknowledged ? 0 : lease.pendingSlots();
    long pendingUntil = acknowledged ? 0 : lease.pendingUntilMillis();
    // What the holder may be running under this lease until it has the answer.
    long inUse = lease.slotShare();
    if (c.release() >= 0) {
      inUse = Math.min(c.release(), lease.countedSlots());
      pendingSlots = 0;
    }
    long demand = plus(c.running(), c.queued());
    long available = plus(lease.countedSlots(), ledger.freeSlots());
    long target = Math.min(slotTarget(ledger, lease.leaseId(), demand), available);
    if (target < inUse) {
      // Two-phase shrink, as for rate: the slots in use stay counted until acknowledged or
      // until this version could no longer be in use.
      boolean hadPending = pendingRate != 0 || pendingBurst != 0 || pendingSlots != 0;
      pendingSlots = Math.max(pendingSlots, inUse);
      pendingUntil = hadPending
          ? Math.max(pendingUntil, lease.countedUntilMillis())
          : lease.countedUntilMillis();
    }
    if (pendingRate == 0 && pendingBurst == 0 && pendingSlots == 0) {
      pendingUntil = 0;
    }
    long expiresAt = plus(nowMillis, limit.leaseDurationMillis());
    long countedUntil = Math.max(lease.countedUntilMillis(), plus(expiresAt, limit.graceMillis()));
    Lease renewed = new Lease(lease.leaseId(), lease.tenant(), lease.resource(), lease.holder(),
        epoch, context.mintVersion(), lease.rateShare(), lease.burstShare(), nowMillis,
        expiresAt, countedUntil, pendingRate, pendingBurst, pendingUntil,
        lease.demandRatePerSecond(), lease.demandBurst(), target, pendingSlots, demand);
    putLease(lease, renewed, ledger);
    return new Result.SlotsGranted(slotView(renewed, ledger));
  }

  /**
   * The requester's slot target under the limit's policy, before the clip to free slots: its
   * demand under free-capacity, else its part of the split of C over the live slot holders
   * (leases not expired that hold or ask for slots, in id order) with the requester's new
   * demand. A rate-only lease is no slot holder, so a static split counts only slot holders.
   */
  private long slotTarget(LimitLedger ledger, long leaseId, long demand) {
    long cap = ledger.concurrency();
    if (ledger.limit().policy() == Policy.FREE_CAPACITY) {
      return demand;
    }
    List<Long> demands = new ArrayList<>();
    int self = -1;
    for (long id : ledger.leaseIds()) {
      if (id == leaseId) {
        self = demands.size();
        demands.add(demand);
        continue;
      }
      Lease other = leases.get(id);
      if (nowMillis < other.expiresAtMillis()
          && (other.demandSlots() > 0 || other.slotShare() > 0)) {
        demands.add(other.demandSlots());
      }
    }
    if (self < 0) {
      self = demands.size();
      demands.add(demand);
    }
    long[] d = new long[demands.size()];
    for (int i = 0; i < d.length; i++) {
      d[i] = demands.get(i);
    }
    long target = Allocation.targets(ledger.limit().policy(), cap, d)[self];
    if (target < 0 || target > Math.max(cap, 0)) {
      throw new InvariantViolation("I12 policy " + ledger.limit().policy() + " proposed "
          + target + " slots outside [0, " + cap + "] on " + ledger.limit().tenant() + "/"
          + ledger.limit().resource());
    }
    return target;
  }

  private SlotLease slotView(Lease lease, LimitLedger ledger) {
    return new SlotLease(lease.leaseId(), lease.tenant(), lease.resource(), lease.holder(),
        lease.epoch(), lease.version(), lease.slotShare(), lease.countedSlots(),
        lease.grantedAtMillis(), lease.expiresAtMillis(), lease.countedUntilMillis(),
        ledger.limit().leaseDurationMillis());
  }

  private static boolean hasSlots(Lease lease) {
    return lease.countedSlots() > 0 || lease.demandSlots() > 0;
  }

  /** The slot ledger of a limit, demand summed over holders live at max(now, readNowMillis). */
  private SlotStatus slotStatus(LimitLedger ledger, long readNowMillis) {
    long at = Math.max(nowMillis, readNowMillis);
    long demand = 0;
    int holders = 0;
    int pending = 0;
    for (long id : ledger.leaseIds()) {
      Lease lease = leases.get(id);
      if (!hasSlots(lease)) {
        continue;
      }
      holders++;
      if (lease.pendingSlots() > lease.slotShare()) {
        pending++;
      }
      if (at < lease.expiresAtMillis()) {
        demand = plus(demand, lease.demandSlots());
      }
    }
    Limit limit = ledger.limit();
    return new SlotStatus(limit.tenant(), limit.resource(), ledger.concurrency(), limit.version(),
        ledger.countedSlots(), ledger.grantedSlots(), ledger.slotCeiling(), demand, holders,
        pending);
  }

  private Result returnLease(ReturnLease c) {
    if (c.unusedBalance() < 0) {
      return invalid("unusedBalance " + c.unusedBalance() + " < 0");
    }
    long leaseId = c.leaseId();
    if (leaseId <= 0 || leaseId >= nextLeaseId) {
      return new Result.Rejected(Outcome.LEASE_UNKNOWN,
          "lease " + leaseId + " was never granted (next lease id " + nextLeaseId + ")", 0, 0);
    }
    Lease lease = leases.get(leaseId);
    if (lease == null) {
      return new Result.LeaseReturned(leaseId, 0, true);
    }
    if (c.fenced() && c.presentedVersion() != lease.version()) {
      // Only the holder of the current version knows it stopped spending: a delayed duplicate,
      // a restarted holder's old return or a guess must not free a share still in use (I1).
      return new Result.Rejected(Outcome.VERSION_MISMATCH,
          "lease " + leaseId + " return presented version " + c.presentedVersion()
              + ", current version " + lease.version() + "; the lease stays until its holder"
              + " returns its current version or it expires", 0, lease.version());
    }
    LimitLedger ledger = ledgerOf(lease);
    removeLease(lease, ledger);
    if (nowMillis >= lease.expiresAtMillis()) {
      // Expired but still counted: the holder says it stopped, so free it now; its balance
      // ran out with the lease, so nothing is credited.
      return new Result.LeaseReturned(leaseId, 0, true);
    }
    // The holder invalidated its bucket before returning: the whole lease, every version, goes.
    // Credit only what fits under B next to the counted
    // burst, so pool + Σ counted burst never exceeds the burst ceiling (I1).
    long credit = Math.min(c.unusedBalance(), Math.min(lease.burstShare(), ledger.poolRoom()));
    ledger.addToPool(credit);
    return new Result.LeaseReturned(leaseId, credit, false);
  }

  private Result newEpoch(NewEpoch c) {
    if (c.leaderId() == null || utf8Length(c.leaderId()) > options.maxNameBytes()) {
      return invalid("leaderId missing, invalid or longer than " + options.maxNameBytes() + " bytes");
    }
    epoch++;
    epochStartMillis = nowMillis;
    // Every lease live before this entry keeps counting until epochStart + leaseDuration +
    // grace: the coordinator cannot know how long the old leader's grants are in flight.
    // Iterate in id order so the work is the same on every replica.
    for (Long id : new TreeSet<>(leases.keySet())) {
      Lease lease = leases.get(id);
      LimitLedger ledger = ledgerOf(lease);
      long extended = plus(plus(nowMillis, ledger.limit().leaseDurationMillis()),
          ledger.limit().graceMillis());
      long countedUntil = Math.max(lease.countedUntilMillis(), extended);
      long pendingUntil = lease.hasPending()
          ? Math.max(lease.pendingUntilMillis(), extended)
          : lease.pendingUntilMillis();
      if (countedUntil != lease.countedUntilMillis() || pendingUntil != lease.pendingUntilMillis()) {
        putLease(lease, lease.withTimes(countedUntil, pendingUntil), ledger);
      }
    }
    return new Result.EpochStarted(epoch, epochStartMillis);
  }

  /** Tick popped a lease-kind record: free the lease or its pending shrink if still current. */
  @Override
  public boolean expire(ExpiryKey due) {
    if (!expiry.remove(due)) {
      throw new InvariantViolation("I6 popped lease-kind record " + due
          + " is not in the in-memory lease index");
    }
    if (due.kind() == ExpiryKey.LEASE_END) {
      Lease lease = leases.get(due.a());
      if (lease != null && lease.countedUntilMillis() == due.dueAtMillis()) {
        removeLease(lease, ledgerOf(lease));
        return true;
      }
    } else if (due.kind() == ExpiryKey.PENDING_END) {
      Lease lease = leases.get(due.a());
      if (lease != null && lease.hasPending() && lease.pendingUntilMillis() == due.dueAtMillis()) {
        putLease(lease, lease.withoutPending(), ledgerOf(lease));
        return true;
      }
    } else {
      throw new InvariantViolation("I6 expiry record of unknown kind " + due);
    }
    return false;
  }

  // ---------------------------------------------------------------- helpers

  private Shares allocate(LimitLedger ledger, long leaseId, Shares demand, Shares current,
      Shares available) {
    Shares target = Allocation.forPolicy(ledger.limit().policy()).allocate(
        request(ledger, leaseId, demand, current, available));
    if (target.ratePerSecond() < 0 || target.burst() < 0
        || target.ratePerSecond() > available.ratePerSecond() || target.burst() > available.burst()) {
      throw new InvariantViolation("I1 policy " + ledger.limit().policy() + " proposed " + target
          + " outside [0, " + available + "] for demand " + demand + " on "
          + ledger.limit().tenant() + "/" + ledger.limit().resource());
    }
    return target;
  }

  /** The requester's target before the clip to available capacity. */
  private Shares target(LimitLedger ledger, long leaseId, Shares demand, Shares current,
      Shares available) {
    return Allocation.forPolicy(ledger.limit().policy())
        .target(request(ledger, leaseId, demand, current, available));
  }

  /**
   * The policy's input: the live holders of the limit in lease-id order with their last
   * reported demand, the requester ({@code leaseId}, renewing or about to be minted) with its
   * new one. A lease past its expiresAt cannot be renewed, so it is no longer a holder: its
   * share stays counted until freed, but its demand no longer claims a part of the split.
   */
  private AllocationRequest request(LimitLedger ledger, long leaseId, Shares demand,
      Shares current, Shares available) {
    if (ledger.limit().policy() == Policy.FREE_CAPACITY) {
      return new AllocationRequest(ledger.limit(), demand, current, available, ledger.leaseCount());
    }
    List<AllocationRequest.Holder> holders = new ArrayList<>(ledger.leaseCount() + 1);
    int self = -1;
    for (long id : ledger.leaseIds()) {
      if (id == leaseId) {
        self = holders.size();
        holders.add(new AllocationRequest.Holder(id, demand));
        continue;
      }
      Lease other = leases.get(id);
      if (nowMillis < other.expiresAtMillis()) {
        holders.add(new AllocationRequest.Holder(id, other.demand()));
      }
    }
    if (self < 0) {
      // An acquire: the id about to be minted is above every existing one.
      self = holders.size();
      holders.add(new AllocationRequest.Holder(leaseId, demand));
    }
    return new AllocationRequest(ledger.limit(), demand, current, available, ledger.leaseCount(),
        holders, self);
  }

  /** Time until the earliest counted share of this limit is due to be freed; ≥ 1. */
  private long retryAfterMillis(LimitLedger ledger) {
    if (ledger.leaseCount() == 0) {
      return ledger.limit().leaseDurationMillis();
    }
    return Math.max(1, minus(ledger.earliestFreeTime(), nowMillis));
  }

  private LimitLedger ledgerOf(Lease lease) {
    LimitLedger ledger = limits.get(lease.limitKey());
    if (ledger == null) {
      throw new InvariantViolation("I5 lease " + lease.leaseId() + " has no limit "
          + lease.tenant() + "/" + lease.resource());
    }
    return ledger;
  }

  private void putLease(Lease old, Lease lease, LimitLedger ledger) {
    if (old != null) {
      ledger.subtract(old);
    }
    ledger.add(lease);
    leases.put(lease.leaseId(), lease);
    changedLeases.add(lease.leaseId());
    touch(ledger);
    touchedLeases.add(lease);
    expiry.sync(old, lease, nowMillis);
  }

  private void removeLease(Lease lease, LimitLedger ledger) {
    ledger.subtract(lease);
    leases.remove(lease.leaseId());
    changedLeases.add(lease.leaseId());
    touch(ledger);
    expiry.sync(lease, null, nowMillis);
  }

  private void touch(LimitLedger ledger) {
    touchedLimits.add(ledger);
    changedLimits.add(new LimitKey(ledger.limit().tenant(), ledger.limit().resource()));
  }

  @Override
  public List<ExpiryKey> dueInMemory(ExpiryKey after, long dueUpToMillis, int maxItems) {
    return expiry.due(after, dueUpToMillis, maxItems);
  }

  @Override
  public boolean holdsInMemory(ExpiryKey key) {
    return expiry.holds(key);
  }

  @Override
  public long firstDueInMemoryMillis() {
    return expiry.firstDueMillis();
  }

  /** The incremental check after every command: I1 and I8 on touched limits, I2 on leases. */
  private void checkTouched() {
    for (LimitLedger ledger : touchedLimits) {
      ledger.settleAndCheck(nowMillis);
    }
    for (Lease lease : touchedLeases) {
      LeaseVerifier.checkLease(lease);
    }
  }

  private LeaseView view(Lease lease, LimitLedger ledger) {
    Limit limit = ledger.limit();
    return new LeaseView(lease.leaseId(), lease.tenant(), lease.resource(), lease.holder(),
        lease.epoch(), lease.version(), lease.rateShare(), lease.burstShare(),
        lease.countedRate(), lease.countedBurst(), lease.grantedAtMillis(),
        lease.expiresAtMillis(), lease.countedUntilMillis(), limit.mode(), limit.emergency(),
        limit.leaseDurationMillis());
  }

  private static Result.Rejected invalid(String message) {
    return new Result.Rejected(Outcome.INVALID_ARGUMENT, message, 0, 0);
  }

  private static Optional<Result> firstInvalid(String... problems) {
    for (String problem : problems) {
      if (problem != null) {
        return Optional.of(invalid(problem));
      }
    }
    return Optional.empty();
  }

  private static String negative(String field, long value) {
    return value < 0 ? field + " " + value + " < 0" : null;
  }

  private String badName(String field, String value) {
    if (value == null) {
      return field + " is missing";
    }
    int length = utf8Length(value);
    if (length < 0) {
      return field + " is not valid UTF-16";
    }
    if (length < 1 || length > options.maxNameBytes()) {
      return field + " has " + length + " UTF-8 bytes, allowed 1.." + options.maxNameBytes();
    }
    return null;
  }

  /** UTF-8 length, or −1 for a string that cannot be encoded (an unpaired surrogate). */
  private static int utf8Length(String value) {
    try {
      return ByteWriter.utf8(value).length;
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }

  public static long plus(long a, long b) {
    return Millis.plus(a, b);
  }

  public static long minus(long a, long b) {
    return Millis.minus(a, b);
  }

  // ---------------------------------------------------------------- reads

  @Override
  public Optional<QueryResult> query(Query query, long readNowMillis) {
    if (query instanceof Query.Status) {
      // The node's status is the lease ledger's figures around the replica's own.
      return Optional.of(new QueryResult.StatusAnswer(context.appliedTerm(),
          context.appliedIndex(), context.nowMillis(), epoch, epochStartMillis, limits.size(),
          leases.size(), context.idempotencyRecords()));
    }
    if (query instanceof Query.GetLimit q) {
      LimitLedger ledger = limits.get(new LimitKey(q.tenant(), q.resource()));
      return Optional.of(
          new QueryResult.LimitAnswer(Optional.ofNullable(ledger).map(l -> status(l, readNowMillis))));
    } else if (query instanceof Query.ListLimits) {
      List<LimitStatus> all = new ArrayList<>(limits.size());
      for (LimitLedger ledger : limits.values()) {
        all.add(status(ledger, readNowMillis));
      }
      return Optional.of(new QueryResult.LimitList(all));
    } else if (query instanceof Query.GetSlots q) {
      LimitLedger ledger = limits.get(new LimitKey(q.tenant(), q.resource()));
      List<SlotLease> views = new ArrayList<>();
      if (ledger != null) {
        for (long id : ledger.leaseIds()) {
          Lease lease = leases.get(id);
          if (hasSlots(lease)) {
            views.add(slotView(lease, ledger));
          }
        }
      }
      return Optional.of(new QueryResult.SlotAnswer(
          Optional.ofNullable(ledger).map(l -> slotStatus(l, readNowMillis)), views));
    } else if (query instanceof Query.ListLeases q) {
      // Every lease the ledger still counts is listed, expired or not, so an operator sees
      // counted vs granted; expiresAt and countedUntil tell a reader which are past
      // max(now, readNowMillis).
      List<LeaseView> views = new ArrayList<>();
      if (q.tenant().isEmpty() && q.resource().isEmpty()) {
        for (Long id : new TreeSet<>(leases.keySet())) {
          Lease lease = leases.get(id);
          views.add(view(lease, ledgerOf(lease)));
        }
      } else {
        LimitLedger ledger = limits.get(new LimitKey(q.tenant(), q.resource()));
        if (ledger != null) {
          for (long id : ledger.leaseIds()) {
            views.add(view(leases.get(id), ledger));
          }
        }
      }
      return Optional.of(new QueryResult.LeaseList(views));
    }
    return Optional.empty();
  }

  /**
   * The limit's status with the demand of its live holders (leases not expired at
   * max(now, readNowMillis)), summed saturating.
   */
  private LimitStatus status(LimitLedger ledger, long readNowMillis) {
    long at = Math.max(nowMillis, readNowMillis);
    long rate = 0;
    long burst = 0;
    for (long id : ledger.leaseIds()) {
      Lease lease = leases.get(id);
      if (at < lease.expiresAtMillis()) {
        rate = plus(rate, lease.demandRatePerSecond());
        burst = plus(burst, lease.demandBurst());
      }
    }
    return ledger.status().withDemand(rate, burst);
  }

  public int limitCount() {
    return limits.size();
  }

  public int leaseCount() {
    return leases.size();
  }

  public long epoch() {
    return epoch;
  }

  public long epochStartMillis() {
    return epochStartMillis;
  }

  public long nextLeaseId() {
    return nextLeaseId;
  }

  public Optional<LimitLedger> limit(LimitKey key) {
    return Optional.ofNullable(limits.get(key));
  }

  public Optional<Lease> lease(long leaseId) {
    return Optional.ofNullable(leases.get(leaseId));
  }

  /** Loading from the store: the lease part of the meta record. */
  public void restoreMeta(long epoch, long epochStart, long nextLeaseId) {
    this.epoch = epoch;
    this.epochStartMillis = epochStart;
    this.nextLeaseId = nextLeaseId;
  }

  /** Loading from the store: a limit with its stored ledger fields (leases come after). */
  public void restoreLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
      long emergencyReported) {
    restoreLimit(limit, pool, rateCeiling, burstCeiling, emergencyReported, 0, 0);
  }

  /** Loading from the store: a limit with its concurrency cap and slot ceiling. */
  public void restoreLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
      long emergencyReported, long concurrency, long slotCeiling) {
    limits.put(new LimitKey(limit.tenant(), limit.resource()),
        new LimitLedger(limit, pool, rateCeiling, burstCeiling, emergencyReported, concurrency,
            slotCeiling));
  }

  /** Loading from the store: a lease and its index keys; its limit must be restored first. */
  public void restoreLease(Lease lease) {
    ledgerOf(lease).add(lease);
    leases.put(lease.leaseId(), lease);
    expiry.restore(ExpiryKey.leaseEnd(lease.countedUntilMillis(), lease.leaseId()));
    if (lease.hasPending()) {
      expiry.restore(ExpiryKey.pendingEnd(lease.pendingUntilMillis(), lease.leaseId()));
    }
  }

  /** Limits in key order (for the store's full rewrite and for verify). */
  public Iterable<LimitLedger> limits() {
    return limits.values();
  }

  // ---------------------------------------------------------------- verify

  /** Recomputes every lease invariant from scratch; throws InvariantViolation naming values. */
  @Override
  public void verify() {
    LeaseVerifier.verify(limits, leases.values(), expiry, nextLeaseId, context.nextVersion());
  }

  /** I6: lease kinds live only in memory, so the store holds none. */
  @Override
  public void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {
    walk.accept(key -> {
      throw new InvariantViolation("I6 the store holds lease-kind expiry record " + key
          + "; lease kinds are kept only in memory");
    });
  }
}
