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
import dev.ration.statemachine.lease.IdempotencyRecord;
import dev.ration.statemachine.lease.LeaseLedger;
import dev.ration.statemachine.lease.LedgerStore;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.statemachine.ttl.TtlLedger;
import dev.ration.statemachine.quota.QuotaLedger; // quota (issue 6)
import dev.ration.statemachine.quota.QuotaOptions; // quota (issue 6)
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The replicated state of one node above its ledgers: what every ledger shares, and the one
 * dispatch of a log entry (DESIGN §2).
 *
 * <p>It keeps the applied (term, index), the ledger clock ({@code now = max(now, batch time)}),
 * the global version counter, idempotency (a request key's first answer is stored and returned
 * to every retry), the shared time-ordered expiry index and {@link Tick}, which pops that index
 * in (dueAt, kind, a, b, c) order and hands each record to the ledger owning its kind (the
 * idempotency kind it handles itself: one expiry path for everything with a lifetime). Every
 * other command and query goes to the one {@link Ledger} that owns it: the lease ledger, the TTL
 * ledger, and later the quota ledger. All write into the entry's one {@link Changes}, which the
 * store persists with the applied index in one WriteBatch.
 *
 * <p>Thread: the single applying thread (the caller serialises apply, query and close).
 *
 * <p>Invariants: I3 (now never decreases) and I6 (every due time at or after now; every stored
 * idempotency record has its index record, and every stored index record belongs to a ledger)
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
  private final QuotaLedger quota; // quota (issue 6)
  /** Every ledger, in a fixed order (routing asks them in this order). */
  private final List<Ledger> ledgers;

  private long appliedTerm = 0;
  private long appliedIndex = NOTHING_APPLIED;
  private long nowMillis = 0;
  private long nextVersion = 1;
  /** Committed idempotency records plus this entry's; stored in meta, so Status need not count. */
  private long idempotencyRecords = 0;

  private Changes changes = new Changes();
  /** The last expiry-index key a Tick of the current entry popped: the next Tick goes on after it. */
  private ExpiryKey tickCursor = ExpiryKey.BEFORE_ALL;

  public Replica(StateOptions options, LedgerStore store, FamilyStore families) {
    this.options = options;
    this.store = store;
    this.families = families;
    this.lease = new LeaseLedger(options, this);
    this.ttl = new TtlLedger(this);
    // --- quota (issue 6)
    this.quota = new QuotaLedger(QuotaOptions.defaults(), this);
    // --- end quota
    this.ledgers = List.of(lease, ttl, quota);
  }

  public LeaseLedger lease() {
    return lease;
  }

  public TtlLedger ttl() {
    return ttl;
  }

  // --- quota (issue 6)
  public QuotaLedger quota() {
    return quota;
  }
  // --- end quota

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

  private Result applyProposal(Proposal proposal) {
    RequestKey key = proposal.key();
    if (!key.isNone()) {
      Optional<IdempotencyRecord> seen = idempotencyRecord(key);
      if (seen.isPresent()) {
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
      changes.putIdempotency(key, new IdempotencyRecord(expiresAt, ResultCodec.encode(result)));
      putExpiry(ExpiryKey.idempotencyEnd(expiresAt, key));
      idempotencyRecords++;
    }
    return result;
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
      if (changes.expiryRemovals.contains(due)) {
        // Withdrawn by an earlier record of this same Tick (a freed lease takes its pending
        // shrink's record with it): no longer in the index.
        continue;
      }
      changes.deleteExpiry(due);
      if (due.kind() == ExpiryKey.IDEMPOTENCY_END) {
        // The index is exact for idempotency records: a record and its end are written together
        // (a key is answered from its record until then, never rewritten) and only dropped
        // together, here; verify() checks both directions. So the record is not read back: a
        // point read of a minute-old record cost a quarter of a renewal's apply.
        changes.deleteIdempotency(due.requestKey());
        idempotencyRecords--;
        freed++;
      } else if (ownerOfKind(due.kind()).expire(due)) {
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
   * this entry's Ticks already popped: the store's committed keys merged with this entry's own
   * new keys. (Those are due later than now except when a due time saturates at
   * Long.MAX_VALUE, or a TTL of zero; they are merged so no corner depends on it.)
   */
  private List<ExpiryKey> dueExpiries(int maxItems) {
    if (maxItems == 0) {
      return List.of();
    }
    // This entry's withdrawals are still in the store: read past as many as there are.
    int read = (int) Math.min(Integer.MAX_VALUE, (long) maxItems + changes.expiryRemovals.size());
    TreeSet<ExpiryKey> due = new TreeSet<>(store.expiries(tickCursor, nowMillis, read));
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

  /** The first answer to {@code key}: this entry's pending writes first, then the store. */
  private Optional<IdempotencyRecord> idempotencyRecord(RequestKey key) {
    IdempotencyRecord pending = changes.idempotencyPuts.get(key);
    if (pending != null) {
      return Optional.of(pending);
    }
    if (changes.idempotencyDeletes.contains(key)) {
      return Optional.empty();
    }
    return store.idempotencyRecord(key);
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
    return first.isEmpty() ? Long.MAX_VALUE : first.get(0).dueAtMillis();
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

  /** Recomputes every invariant of every ledger and of the shared index (expensive). */
  public void verify() {
    if (nextVersion < 1) {
      throw new InvariantViolation("I7 counter nextVersion " + nextVersion);
    }
    for (Ledger ledger : ledgers) {
      ledger.verify();
    }
    long[] records = {0};
    store.forEachIdempotencyRecord((key, record) -> {
      records[0]++;
      if (!store.hasExpiry(ExpiryKey.idempotencyEnd(record.expiresAtMillis(), key))) {
        throw new InvariantViolation("I6 idempotency record " + key + " expiresAt "
            + record.expiresAtMillis() + " has no expiry record");
      }
    });
    if (records[0] != idempotencyRecords) {
      throw new InvariantViolation("I6 idempotency record counter " + idempotencyRecords
          + " but the store holds " + records[0]);
    }
    long[] ends = {0};
    store.forEachExpiry(key -> {
      if (key.kind() != ExpiryKey.IDEMPOTENCY_END) {
        ownerOfKind(key.kind());
      } else {
        ends[0]++;
      }
    });
    // With every record having its end (above), equal counts make the index exact: Tick drops a
    // record by its end without reading it.
    if (ends[0] != records[0]) {
      throw new InvariantViolation("I6 the expiry index holds " + ends[0]
          + " idempotency ends for " + records[0] + " idempotency records");
    }
    for (Ledger ledger : ledgers) {
      ledger.verifyStoredExpiries(action -> store.forEachExpiry(key -> {
        if (ledger.ownsExpiryKind(key.kind())) {
          action.accept(key);
        }
      }));
    }
  }
}
