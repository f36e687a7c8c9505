package dev.ration.statemachine.replica;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.lease.Changes;
import dev.ration.statemachine.lease.ExpiryKey;
import dev.ration.statemachine.lease.IdempotencyGeneration;
import dev.ration.statemachine.lease.IdempotencyRecord;
import dev.ration.statemachine.lease.LeaseLedger;
import dev.ration.statemachine.lease.LedgerStore;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.statemachine.ttl.TtlLedger;
import dev.ration.statemachine.quota.QuotaLedger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The replicated state of one node above its ledgers: what every ledger shares, and the one
 * dispatch of a log entry (DESIGN §2).
 *
 * <p>It keeps the applied (term, index), the ledger clock ({@code now = max(now, batch time)}),
 * the global version counter, idempotency (a request key's first answer is stored and returned
 * to every retry until it expires; records are kept in {@link IdempotencyGeneration}s, each
 * dropped whole by the first entry after all its records expired), the shared time-ordered
 * expiry index and {@link Tick}, which pops that index in (dueAt, kind, a, b, c) order and hands
 * each record to the ledger owning its kind (one expiry path for everything else with a
 * lifetime). Every
 * other command and query goes to the one {@link Ledger} that owns it: the lease ledger, the TTL
 * ledger, and later the quota ledger. All write into the entry's one {@link Changes}, which the
 * store persists with the applied index in one WriteBatch.
 *
 * <p>Thread: the single applying thread (the caller serialises apply, query and close).
 *
 * <p>Invariants: I3 (now never decreases) and I6 (every due time at or after now; every stored
 * idempotency record lies in a live generation that holds its expiry time and the generation
 * counts are exact; every stored index record belongs to a ledger)
 * here; each ledger checks its own. After any exception from apply this object must be
 * discarded (memory may be ahead of the store), which the store enforces.
 */
public final class Replica implements ApplyContext {
  /** Ratis numbers its first log entry 0, so nothing applied is −1. */
  public static final long NOTHING_APPLIED = -1;

  private final StateOptions options;
  private final LedgerStore store;
  private final FamilyStore families;
  private final LeaseLedger lease;
  private final TtlLedger ttl;
  private final QuotaLedger quota;
  /** Every ledger, in a fixed order (routing asks them in this order). */
  private final List<Ledger> ledgers;

  private long appliedTerm = 0;
  private long appliedIndex = NOTHING_APPLIED;
  private long nowMillis = 0;
  private long nextVersion = 1;
  /**
   * Stored idempotency records (expired ones too, until their generation is dropped) plus this
   * entry's; kept in meta, so Status need not count. Always the sum of the generations' counts.
   */
  private long idempotencyRecords = 0;
  /** The live idempotency generations by start; disjoint, so also in end order. */
  private final TreeMap<Long, IdempotencyGeneration> generations = new TreeMap<>();

  private Changes changes = new Changes();
  /** The last expiry-index key a Tick of the current entry popped: the next Tick goes on after it. */
  private ExpiryKey tickCursor = ExpiryKey.BEFORE_ALL;

  public Replica(StateOptions options, LedgerStore store, FamilyStore families) {
    this.options = options;
    this.store = store;
    this.families = families;
    this.lease = new LeaseLedger(options, this);
    this.ttl = new TtlLedger(options, this);
    this.quota = new QuotaLedger(options, this);
    this.ledgers = List.of(lease, ttl, quota);
  }

  public LeaseLedger lease() {
    return lease;
  }

  public TtlLedger ttl() {
    return ttl;
  }

  public QuotaLedger quota() {
    return quota;
  }

  public List<Ledger> ledgers() {
    return ledgers;
  }

  // ---------------------------------------------------------------- apply

  /**
   * Applies one log entry. Throws IllegalStateException if {@code index} is not above the
   * applied index (each index is applied once; a restart resumes from the applied index) or
   * the term goes backwards.
   */
  public List<Result> apply(long term, long index, Batch batch) {
    advance(term, index);
    tickCursor = ExpiryKey.BEFORE_ALL;
    long previousNow = nowMillis;
    nowMillis = Math.max(nowMillis, batch.timeMillis());
    if (nowMillis < previousNow) {
      throw new InvariantViolation("I3 ledger now decreased from " + previousNow + " to " + nowMillis);
    }
    dropExpiredGenerations();
    for (Ledger ledger : ledgers) {
      ledger.beginEntry(nowMillis);
    }
    List<Result> results = new ArrayList<>(batch.proposals().size());
    for (Proposal proposal : batch.proposals()) {
      results.add(applyProposal(proposal));
    }
    return results;
  }

  /** An entry without a batch (configuration, no-op): only the applied index moves. */
  public void applyEmpty(long term, long index) {
    advance(term, index);
  }

  private void advance(long term, long index) {
    checkNext(term, index);
    appliedTerm = term;
    appliedIndex = index;
  }

  /**
   * Throws IllegalStateException, changing nothing, unless (term, index) may be applied next:
   * the index above the applied index and the term not below the applied term.
   */
  public void checkNext(long term, long index) {
    if (index <= appliedIndex) {
      throw new IllegalStateException(
          "apply of index " + index + " at or below applied index " + appliedIndex
              + ": each index is applied once, restart resumes after the applied index");
    }
    if (term < appliedTerm) {
      throw new IllegalStateException(
          "apply of term " + term + " below applied term " + appliedTerm + " at index " + index);
    }
  }

  /**
   * Drops, whole, every generation whose records have all expired: one range delete each, in
   * the first entry whose time passes its end. Nothing observable changes (expired records are
   * no longer answered); this bounds the disk at about a retention plus a generation of records.
   */
  private void dropExpiredGenerations() {
    while (!generations.isEmpty() && generations.firstEntry().getValue().expiredAt(nowMillis)) {
      IdempotencyGeneration dropped = generations.pollFirstEntry().getValue();
      idempotencyRecords -= dropped.count();
      changes.dropGeneration(dropped.start());
    }
  }

  private Result applyProposal(Proposal proposal) {
    RequestKey key = proposal.key();
    Optional<IdempotencyRecord> seen = Optional.empty();
    if (!key.isNone()) {
      seen = idempotencyRecord(key);
      if (seen.isPresent() && seen.get().answersAt(nowMillis)) {
        return ResultCodec.decode(seen.get().encodedResult());
      }
    }
    for (Ledger ledger : ledgers) {
      ledger.beginCommand();
    }
    Result result = dispatch(proposal.command());
    for (Ledger ledger : ledgers) {
      ledger.endCommand();
    }
    if (!key.isNone()) {
      long expiresAt = LeaseLedger.plus(nowMillis, options.idempotencyRetentionMillis());
      IdempotencyGeneration generation = generationFor(expiresAt);
      // An expired record of this key in the same generation (possible only after the retention
      // was lowered) is overwritten, not counted twice.
      boolean overwrite = seen.isPresent() && seen.get().generation() == generation.start();
      if (!overwrite) {
        generation = generation.plusOne();
        generations.put(generation.start(), generation);
        idempotencyRecords++;
      }
      changes.putIdempotency(key,
          new IdempotencyRecord(generation.start(), expiresAt, ResultCodec.encode(result)),
          generation);
    }
    return result;
  }

  /**
   * The generation a record expiring at {@code expiresAt} goes to: the live one holding that
   * time, else a new one on the retention grid, [k·retention, (k+1)·retention) around it, so
   * generation bounds depend only on expiry times and the retention, never on history (cut to
   * fit between live neighbours, which happens only after the retention was changed).
   */
  private IdempotencyGeneration generationFor(long expiresAt) {
    Map.Entry<Long, IdempotencyGeneration> floor = generations.floorEntry(expiresAt);
    if (floor != null && floor.getValue().holds(expiresAt)) {
      return floor.getValue();
    }
    IdempotencyGeneration cell =
        IdempotencyGeneration.onGrid(expiresAt, options.idempotencyRetentionMillis());
    long start = cell.start();
    long end = cell.end();
    if (floor != null) {
      start = Math.max(start, floor.getValue().end());
    }
    Long next = generations.higherKey(expiresAt);
    if (next != null) {
      end = Math.min(end, next);
    }
    if (end <= expiresAt || start > expiresAt) {
      throw new InvariantViolation("I6 no idempotency generation can hold expiry " + expiresAt
          + " (grid [" + start + ", " + end + "))");
    }
    return new IdempotencyGeneration(start, end, 0);
  }

  /** The one dispatch: Tick here, every other command to the ledger that owns it. */
  private Result dispatch(Command command) {
    if (command instanceof Tick c) {
      return tick(c);
    }
    for (Ledger ledger : ledgers) {
      if (ledger.owns(command)) {
        return ledger.apply(command);
      }
    }
    throw new IllegalStateException("no ledger owns command " + command);
  }

  private Result tick(Tick c) {
    if (c.maxItems() < 0) {
      return new Result.Rejected(Outcome.INVALID_ARGUMENT, "maxItems " + c.maxItems() + " < 0", 0, 0);
    }
    int freed = 0;
    // Every popped record counts against maxItems, stale ones too, so a Tick's work is bounded;
    // the order is (dueAt, kind, a, b, c) on every replica.
    for (ExpiryKey due : dueExpiries(c.maxItems())) {
      tickCursor = due;
      if (due.isLeaseKind() ? !lease.holdsExpiry(due) : changes.expiryRemovals.contains(due)) {
        // Withdrawn by an earlier record of this same Tick (a freed lease takes its pending
        // shrink's record with it): no longer in the index.
        continue;
      }
      if (!due.isLeaseKind()) {
        changes.deleteExpiry(due); // lease kinds are only in the lease ledger's memory
      }
      if (ownerOfKind(due.kind()).expire(due)) {
        freed++;
      }
    }
    return new Result.Ticked(freed);
  }

  private Ledger ownerOfKind(int kind) {
    for (Ledger ledger : ledgers) {
      if (ledger.ownsExpiryKind(kind)) {
        return ledger;
      }
    }
    throw new InvariantViolation("I6 expiry record of unknown kind " + kind);
  }

  /**
   * The next at most {@code maxItems} expiry-index keys due at or before now, after the ones
   * this entry's Ticks already popped: the lease ledger's in-memory keys merged with the store's
   * committed keys (every other kind) and this entry's own new stored keys. (Those are due later
   * than now except when a due time saturates at Long.MAX_VALUE, or a TTL of zero; they are
   * merged so no corner depends on it.)
   */
  private List<ExpiryKey> dueExpiries(int maxItems) {
    if (maxItems == 0) {
      return List.of();
    }
    // This entry's withdrawals are still in the store: read past as many as there are.
    int read = (int) Math.min(Integer.MAX_VALUE, (long) maxItems + changes.expiryRemovals.size());
    TreeSet<ExpiryKey> due = new TreeSet<>(store.expiries(tickCursor, nowMillis, read));
    due.addAll(lease.dueExpiries(tickCursor, nowMillis, maxItems));
    for (ExpiryKey key : changes.expiryPuts) {
      if (key.dueAtMillis() <= nowMillis && key.compareTo(tickCursor) > 0) {
        due.add(key);
      }
    }
    due.removeAll(changes.expiryDeletes);
    due.removeAll(changes.expiryRemovals);
    List<ExpiryKey> first = new ArrayList<>(Math.min(maxItems, due.size()));
    for (ExpiryKey key : due) {
      if (first.size() == maxItems) {
        break;
      }
      first.add(key);
    }
    return first;
  }

  /**
   * The newest record of {@code key}, answering or expired: this entry's pending writes first,
   * then the live generations newest first (one point read each, bloom-filtered; usually two).
   * Generations are disjoint in expiry time, so the first record found is the newest; if it has
   * expired, so have all older ones.
   */
  private Optional<IdempotencyRecord> idempotencyRecord(RequestKey key) {
    IdempotencyRecord pending = changes.idempotencyPuts.get(key);
    if (pending != null) {
      return Optional.of(pending);
    }
    for (IdempotencyGeneration generation : generations.descendingMap().values()) {
      Optional<IdempotencyRecord> stored = store.idempotencyRecord(generation.start(), key);
      if (stored.isPresent()) {
        return stored;
      }
    }
    return Optional.empty();
  }

  // ---------------------------------------------------------------- ApplyContext

  @Override
  public long nowMillis() {
    return nowMillis;
  }

  @Override
  public long mintVersion() {
    return nextVersion++;
  }

  @Override
  public long nextVersion() {
    return nextVersion;
  }

  @Override
  public Changes changes() {
    return changes;
  }

  /**
   * Every due time set is at or after now (now plus a non-negative duration, saturating), so
   * the stored index is a queue that Tick pops from the front; the store relies on it to skip
   * the deleted front (RocksLedgerStore's floor).
   */
  @Override
  public void putExpiry(ExpiryKey key) {
    if (key.dueAtMillis() < nowMillis) {
      throw new InvariantViolation("I6 expiry record " + key + " due before now " + nowMillis);
    }
    changes.putExpiry(key);
  }

  @Override
  public void removeExpiry(ExpiryKey key) {
    changes.removeExpiry(key);
  }

  @Override
  public Optional<byte[]> read(String family, byte[] key) {
    Optional<Optional<byte[]>> pending = changes.pendingRecord(family, key);
    if (pending.isPresent()) {
      return pending.get();
    }
    return families.get(family, key);
  }

  @Override
  public boolean hasExpiry(ExpiryKey key) {
    return store.hasExpiry(key);
  }

  @Override
  public FamilyStore store() {
    return families;
  }

  // ---------------------------------------------------------------- reads

  public QueryResult query(Query query, long readNowMillis) {
    if (query instanceof Query.Status) {
      return new QueryResult.StatusAnswer(appliedTerm, appliedIndex, nowMillis, lease.epoch(),
          lease.epochStartMillis(), lease.limitCount(), lease.leaseCount(), idempotencyRecords);
    }
    for (Ledger ledger : ledgers) {
      Optional<QueryResult> answer = ledger.query(query, readNowMillis);
      if (answer.isPresent()) {
        return answer.get();
      }
    }
    throw new IllegalStateException("no ledger answers query " + query);
  }

  public long appliedTerm() {
    return appliedTerm;
  }

  public long appliedIndex() {
    return appliedIndex;
  }

  public long idempotencyRecords() {
    return idempotencyRecords;
  }

  /** Between entries: the earliest due time in the expiry index (stale records included). */
  public long nextDueMillis() {
    List<ExpiryKey> first = store.expiries(ExpiryKey.BEFORE_ALL, Long.MAX_VALUE, 1);
    long stored = first.isEmpty() ? Long.MAX_VALUE : first.get(0).dueAtMillis();
    return Math.min(stored, lease.firstDueMillis());
  }

  /** What changed since the last call; the store persists it with the applied index. */
  public Changes takeChanges() {
    Changes taken = changes;
    changes = new Changes();
    tickCursor = ExpiryKey.BEFORE_ALL;
    return taken;
  }

  /** Loading from the store: the shared part of the meta record (ledgers restore theirs). */
  public void restoreMeta(long term, long index, long now, long nextVersion, long idempotencyRecords) {
    this.appliedTerm = term;
    this.appliedIndex = index;
    this.nowMillis = now;
    this.nextVersion = nextVersion;
    this.idempotencyRecords = idempotencyRecords;
    generations.clear();
    for (IdempotencyGeneration generation : store.idempotencyGenerations()) {
      generations.put(generation.start(), generation);
    }
  }

  /** At open, after meta and the lease ledger's records: every other ledger loads itself. */
  public void load() {
    for (Ledger ledger : ledgers) {
      ledger.beginEntry(nowMillis);
      ledger.load();
    }
  }

  // ---------------------------------------------------------------- verify

  /**
   * The snapshot-time check: every ledger's in-memory invariants (conservation included), none
   * of the storage scans of {@link #verify()}, which would stall apply while the snapshot holds
   * the lock.
   */
  public void verifyAtSnapshot() {
    if (nextVersion < 1) {
      throw new InvariantViolation("I7 counter nextVersion " + nextVersion);
    }
    for (Ledger ledger : ledgers) {
      ledger.verifyAtSnapshot();
    }
  }

  /**
   * I6 for idempotency: the stored generations are the live ones (disjoint, none expired as of
   * now), every stored record lies in a live generation that holds its expiry time, each
   * generation's count is the number of records stored in it, and the counter is their sum.
   */
  private void verifyIdempotency() {
    List<IdempotencyGeneration> stored = store.idempotencyGenerations();
    if (!stored.equals(new ArrayList<>(generations.values()))) {
      throw new InvariantViolation("I6 idempotency generations in memory " + generations.values()
          + " but stored " + stored);
    }
    long sum = 0;
    long previousEnd = Long.MIN_VALUE;
    for (IdempotencyGeneration g : generations.values()) {
      if (g.start() < previousEnd || g.expiredAt(nowMillis)) {
        throw new InvariantViolation("I6 idempotency generation " + g + " overlaps the previous"
            + " one (end " + previousEnd + ") or has expired at " + nowMillis);
      }
      previousEnd = g.end();
      sum += g.count();
    }
    if (sum != idempotencyRecords) {
      throw new InvariantViolation("I6 idempotency record counter " + idempotencyRecords
          + " but the generations count " + sum);
    }
    Map<Long, Long> counted = new HashMap<>();
    store.forEachIdempotencyRecord((key, record) -> {
      IdempotencyGeneration g = generations.get(record.generation());
      if (g == null || !g.holds(record.expiresAtMillis())) {
        throw new InvariantViolation("I6 idempotency record " + key + " expiresAt "
            + record.expiresAtMillis() + " is stored in generation " + record.generation()
            + ", which is " + (g == null ? "not live" : g + ", not holding it"));
      }
      counted.merge(record.generation(), 1L, Long::sum);
    });
    for (IdempotencyGeneration g : generations.values()) {
      long n = counted.getOrDefault(g.start(), 0L);
      if (n != g.count()) {
        throw new InvariantViolation("I6 idempotency generation " + g + " stores " + n
            + " records");
      }
    }
  }

  /** Recomputes every invariant of every ledger and of the shared index (expensive). */
  public void verify() {
    if (nextVersion < 1) {
      throw new InvariantViolation("I7 counter nextVersion " + nextVersion);
    }
    for (Ledger ledger : ledgers) {
      ledger.verify();
    }
    verifyIdempotency();
    store.forEachExpiry(key -> ownerOfKind(key.kind())); // lease kinds: the lease ledger refuses them below
    for (Ledger ledger : ledgers) {
      ledger.verifyStoredExpiries(action -> store.forEachExpiry(key -> {
        if (ledger.ownsExpiryKind(key.kind())) {
          action.accept(key);
        }
      }));
    }
  }
}
