package dev.ration.statemachine.replica;

import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One aggregate of the replicated state (leases, TTL entries, quotas) plugged into the
 * {@link Replica}. The replica keeps what all ledgers share — applied index, ledger clock, the
 * global version counter, idempotency, the expiry index and Tick — and routes each command,
 * each due expiry record and each query to the one ledger that owns it.
 *
 * <p>A ledger writes only through {@link ApplyContext#changes()} (its own column families, the
 * shared expiry index), reads its store-only state through {@link ApplyContext#read} or
 * {@link FamilyStore}, and never reads a clock: now is {@link ApplyContext#nowMillis()}.
 *
 * <p>Thread: the single applying thread.
 */
public interface Ledger {

  /** Short name, for messages. */
  String name();

  /**
   * From the current entry on, mint ids that carry their tenant's slot
   * ({@link dev.ration.statemachine.command.SlottedIds}); a ledger that mints no ids ignores it,
   * and one already doing so changes nothing.
   */
  default void mintSlottedIds() {}

  /**
   * The group's slot table, if this ledger keeps it (exactly one ledger of a node does, or
   * none: then the group serves every slot). The replica admits client commands by it.
   */
  default dev.ration.statemachine.placement.GroupSlots slotTable() {
    return null;
  }

  /**
   * The sealed family of commands this ledger applies (exactly one ledger applies each family;
   * the replica checks it at start).
   */
  Class<? extends Command> commands();

  /**
   * Applies one command of the current entry, always of {@link #commands()}' family; domain
   * outcomes are results.
   */
  Result apply(Command command);

  /**
   * The tenant of the object {@code id} names in this ledger's id space (a lease, a
   * reservation; with {@code orSettled}, also a settled reservation whose answer is still kept),
   * judged on the current state; empty when it names nothing this ledger holds. Commands name ids in their
   * {@link dev.ration.statemachine.command.Touches}; authorization refuses an id that resolves to
   * nothing for an identity limited to tenants. A ledger whose commands name no ids says so.
   */
  java.util.Optional<String> tenantOfId(long id, boolean orSettled);

  /**
   * {@code command} was applied on behalf of {@code actor} with {@code result} (any ledger's
   * command): for the audit log.
   */
  default void attributed(String actor, Command command, Result result) {}

  /** Whether the shared expiry index's records of {@code kind} are this ledger's. */
  boolean ownsExpiryKind(int kind);

  /**
   * Tick popped {@code due} (one of this ledger's kinds, due at or before now; the replica has
   * already deleted the index record). Frees what it names if it is still current — a stale
   * record (the due time moved, the item is gone or was rewritten) must change nothing.
   * Returns whether something was freed.
   */
  boolean expire(ExpiryKey due);

  /**
   * Tick's housekeeping after the expiry records: remove at most {@code maxItems} records whose
   * retention ended at or before now (log time), in an order every replica follows. Returns how
   * many it removed.
   */
  default int housekeep(int maxItems) {
    return 0;
  }

  /**
   * The earliest log time at which {@link #housekeep} has something to remove, or
   * Long.MAX_VALUE: the leader proposes a Tick when it is reached.
   */
  default long housekeepingDueMillis() {
    return Long.MAX_VALUE;
  }

  /** Answers an owned query; empty if the query is not this ledger's. */
  Optional<QueryResult> query(Query query, long readNowMillis);

  /** Start of an entry, after the clock advanced. */
  default void beginEntry(long nowMillis) {}

  /** Before each command of an entry (Tick included). */
  default void beginCommand() {}

  /** After each command (Tick included): the incremental invariant check of what it touched. */
  default void endCommand() {}

  /**
   * End of an entry, after its last command: write what the entry changed of the state this
   * ledger keeps in memory into {@link ApplyContext#changes()} (its own families), so the store
   * persists it with the applied index in the entry's one WriteBatch.
   */
  default void endEntry() {}

  /**
   * Whether this ledger keeps its kinds of the expiry index in memory (rebuilt at load from its
   * own records) instead of in the shared stored index. Such a ledger answers the three
   * in-memory methods below; Tick merges their keys with the stored ones in one order.
   */
  default boolean keepsExpiriesInMemory() {
    return false;
  }

  /**
   * Up to {@code maxItems} of this ledger's in-memory expiry keys strictly after {@code after}
   * and due at or before {@code dueUpToMillis}, in index order.
   */
  default List<ExpiryKey> dueInMemory(ExpiryKey after, long dueUpToMillis, int maxItems) {
    return List.of();
  }

  /** Whether {@code key} is still in this ledger's in-memory index (Tick may have withdrawn it). */
  default boolean holdsInMemory(ExpiryKey key) {
    return false;
  }

  /** The earliest due time of this ledger's in-memory expiry keys, or Long.MAX_VALUE. */
  default long firstDueInMemoryMillis() {
    return Long.MAX_VALUE;
  }

  /** At open, after meta: load whatever this ledger keeps in memory from the store. */
  default void load() {}

  /** Recomputes every invariant of this ledger (expensive); throws InvariantViolation. */
  void verify();

  /**
   * The invariants a snapshot checks: everything this ledger holds in memory, but no scan of
   * its stored records. A snapshot holds the apply lock, and a full scan of a million stored
   * entries stalls every request for tens of seconds; stored records are verified in full at
   * open (start, restore, snapshot install) and after every entry in tests. The default is the
   * full {@link #verify()}: a ledger whose verify reads the store overrides this.
   */
  default void verifyAtSnapshot() {
    verify();
  }

  /**
   * I6 for this ledger's part of the stored expiry index: {@code walk} visits every stored
   * record of this ledger's kinds, in order.
   */
  void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk);
}
