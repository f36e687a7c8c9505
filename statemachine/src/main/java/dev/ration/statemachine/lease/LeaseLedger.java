package dev.ration.statemachine.lease;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.replica.Millis;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.lease.Limit;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The lease ledger: limits, leases and the lease kinds of the shared expiry index, in memory
 * (docs/LIMITER.md). One {@link Ledger} of the {@link dev.ration.statemachine.replica.Replica},
 * which keeps the applied index, the clock, the global version counter, idempotency and Tick,
 * and routes the lease commands and the lease kinds of the expiry index (LEASE_END,
 * PENDING_END) here.
 *
 * <p>Role: the façade and dispatch. The state is in the {@link LeaseBook}; the work is done in
 * rooms named for what they do — {@link LimitSetting} (SetLimit, SetLimitConcurrency),
 * {@link Leasing} (acquire, renew and return, one path for rate leases and slot leases, told
 * apart by {@link RateShares} and {@link SlotShares}), {@link LeaseExpiry} (Tick's lease
 * records and NewEpoch) and {@link LeaseReads} (queries). The whole is a pure function of
 * (state, command): time is only the entry's time, mirrored at the start of each entry;
 * versions come from the replica's global counter, lease ids from the book's. Each command
 * records what it changed; {@link #endEntry} hands exactly that to the store, with the applied
 * index, in one WriteBatch.
 *
 * <p>Thread: the single applying thread (the caller serialises apply, query and close).
 *
 * <p>Invariants (docs/INVARIANTS.md): I1, I2, I8, I12 are checked incrementally after every
 * command on what it touched; {@link #verify()} recomputes I1, I2, I5–I8 for leases. A
 * violation throws {@link InvariantViolation}; after any exception from apply this object must
 * be discarded (its memory may be ahead of the store), which the store enforces.
 */
public final class LeaseLedger implements Ledger {
  /** Ratis numbers its first log entry 0, so nothing applied is −1. */
  public static final long NOTHING_APPLIED = dev.ration.statemachine.replica.Replica.NOTHING_APPLIED;

  public static final long MIN_LEASE_DURATION_MILLIS = 100;
  public static final long MAX_LEASE_DURATION_MILLIS = 3_600_000;

  /** The replica: clock, version counter, the entry's changes, the shared expiry index. */
  private final ApplyContext context;
  private final LeaseBook book;
  private final LimitSetting limitSetting;
  private final Leasing leasing;
  private final LeaseExpiry expiry;
  private final LeaseReads reads;

  public LeaseLedger(StateOptions options, ApplyContext context) {
    this.context = context;
    this.book = new LeaseBook(context);
    Arguments arguments = new Arguments(options);
    this.limitSetting = new LimitSetting(options, context, book, arguments);
    this.leasing = new Leasing(options, context, book, arguments);
    this.expiry = new LeaseExpiry(book, arguments);
    this.reads = new LeaseReads(context, book);
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
    book.beginEntry(nowMillis);
  }

  @Override
  public void beginCommand() {
    book.beginCommand();
  }

  @Override
  public void endCommand() {
    book.checkTouched();
  }

  /** Writes every limit and lease the entry changed (or a delete for one that is gone). */
  @Override
  public void endEntry() {
    book.writeChanges();
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
      return limitSetting.set(command.limit(), -1);
    }

    @Override
    public Result setLimitConcurrency(SetLimitConcurrency command) {
      return limitSetting.setConcurrency(command);
    }

    @Override
    public Result acquire(AcquireLease c) {
      return leasing.acquire(c.tenant(), c.resource(), c.holder(), RateShares.acquiring(c));
    }

    @Override
    public Result acquireSlots(AcquireSlots c) {
      return leasing.acquire(c.tenant(), c.resource(), c.holder(), SlotShares.acquiring(c));
    }

    @Override
    public Result renew(RenewLease c) {
      return renewRate(c);
    }

    @Override
    public Result renewAll(RenewLeases c) {
      return leasing.renewEach(c.renewals(), RenewLeases.MAX_RENEWALS, "renewals",
          renewal -> Result.Renewal.of(renewRate(renewal)), Result.LeasesRenewed::new);
    }

    @Override
    public Result renewSlots(RenewSlots c) {
      return leasing.renewEach(c.renewals(), RenewSlots.MAX_RENEWALS, "slot renewals",
          renewal -> slotAnswer(renewSlot(renewal)), Result.SlotsRenewed::new);
    }

    @Override
    public Result returnLease(ReturnLease command) {
      return leasing.returnLease(command);
    }

    @Override
    public Result newEpoch(NewEpoch command) {
      return expiry.newEpoch(command);
    }
  };

  private Result renewRate(RenewLease c) {
    return leasing.renew(c.leaseId(), c.presentedVersion(), RateShares.renewing(c));
  }

  private Result renewSlot(SlotRenewal c) {
    return leasing.renew(c.leaseId(), c.presentedVersion(), SlotShares.renewing(c));
  }

  private static Result.SlotRenewalAnswer slotAnswer(Result r) {
    return r instanceof Result.Rejected no
        ? Result.SlotRenewalAnswer.refused(no)
        : Result.SlotRenewalAnswer.granted(((Result.SlotsGranted) r).lease());
  }

  /** The tenant of lease {@code id} while the ledger holds it (counted, until freed); none after. */
  @Override
  public Optional<String> tenantOfId(long id, boolean orSettled) {
    Lease lease = book.lease(id);
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

  /** Tick popped a lease-kind record: free the lease or its pending shrink if still current. */
  @Override
  public boolean expire(ExpiryKey due) {
    return expiry.expire(due);
  }

  @Override
  public List<ExpiryKey> dueInMemory(ExpiryKey after, long dueUpToMillis, int maxItems) {
    return book.expiry().due(after, dueUpToMillis, maxItems);
  }

  @Override
  public boolean holdsInMemory(ExpiryKey key) {
    return book.expiry().holds(key);
  }

  @Override
  public long firstDueInMemoryMillis() {
    return book.expiry().firstDueMillis();
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
    return reads.query(query, readNowMillis);
  }

  public int limitCount() {
    return book.limits().size();
  }

  public int leaseCount() {
    return book.leases().size();
  }

  public long epoch() {
    return book.epoch();
  }

  public long epochStartMillis() {
    return book.epochStartMillis();
  }

  /** The counter part of the next lease id. */
  public long nextLeaseId() {
    return book.nextLeaseId();
  }

  /** The lease id counter as stored (it also says whether ids carry slots). */
  public long storedLeaseCounter() {
    return book.storedLeaseCounter();
  }

  @Override
  public void mintSlottedIds() {
    book.mintSlottedIds();
  }

  public Optional<LimitLedger> limit(LimitKey key) {
    return Optional.ofNullable(book.limit(key));
  }

  public Optional<Lease> lease(long leaseId) {
    return Optional.ofNullable(book.lease(leaseId));
  }

  /** Limits in key order (for the store's full rewrite and for verify). */
  public Iterable<LimitLedger> limits() {
    return book.limits().values();
  }

  // ---------------------------------------------------------------- loading

  /** Loading from the store: the lease part of the meta record. */
  public void restoreMeta(long epoch, long epochStart, long nextLeaseId) {
    book.restoreMeta(epoch, epochStart, nextLeaseId);
  }

  /** Loading from the store: a limit with its stored ledger fields (leases come after). */
  public void restoreLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
      long emergencyReported) {
    restoreLimit(limit, pool, rateCeiling, burstCeiling, emergencyReported, 0, 0);
  }

  /** Loading from the store: a limit with its concurrency cap and slot ceiling. */
  public void restoreLimit(Limit limit, long pool, long rateCeiling, long burstCeiling,
      long emergencyReported, long concurrency, long slotCeiling) {
    book.restoreLimit(limit, pool, rateCeiling, burstCeiling, emergencyReported, concurrency,
        slotCeiling);
  }

  /** Loading from the store: a lease and its index keys; its limit must be restored first. */
  public void restoreLease(Lease lease) {
    book.restoreLease(lease);
  }

  // ---------------------------------------------------------------- verify

  /** Recomputes every lease invariant from scratch; throws InvariantViolation naming values. */
  @Override
  public void verify() {
    LeaseVerifier.verify(book.limits(), book.leases().values(), book.expiry(),
        book.nextLeaseId(), context.nextVersion());
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
