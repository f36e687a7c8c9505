package dev.ration.statemachine;

import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.nio.file.Path;
import java.util.List;

/**
 * The deterministic replicated state of one Ration node: the lease, TTL and quota ledgers over
 * RocksDB.
 *
 * <p>Role: a pure function of (state, log entry). {@link #apply} takes its time only from the
 * batch and mints ids and versions from the log; every applied entry (including rejected
 * proposals and empty entries) writes its effects and the applied (term, index) in one RocksDB
 * WriteBatch, so a restart resumes exactly from the stored applied index.
 *
 * <p>Thread: single writer. The caller serialises apply, query, checkpoint and close (the server
 * holds a read-write lock around it); this module owns no threads and reads no clock.
 *
 * <p>Invariants (docs/INVARIANTS.md): checked after every command; a violation throws
 * {@link InvariantViolation}, and the server stops rather than diverge.
 */
public interface CoordinatorState extends AutoCloseable {

  /** Apply one log entry holding a batch; returns one result per proposal, in order. */
  List<Result> apply(long term, long index, Batch batch);

  /** Advance the applied index for an entry with no batch (configuration, no-op). */
  void applyEmpty(long term, long index);

  /**
   * Answer a read. Expiry is judged at {@code max(state now, readNowMillis)}, where the serving
   * leader passes its current log time, so a read never shows something already expired.
   */
  QueryResult query(Query query, long readNowMillis);

  long appliedTerm();

  long appliedIndex();

  /** The ledger clock: max of all applied batch times. */
  long nowMillis();

  long epoch();

  /** Earliest ledger time at which a Tick would free something; Long.MAX_VALUE if nothing. */
  long nextDueMillis();

  /**
   * Write a consistent checkpoint of the whole state (RocksDB checkpoint plus a manifest naming
   * the applied term and index and a checksum of every file) into {@code targetDir}, which must
   * not exist yet. Returns the manifest.
   */
  CheckpointManifest checkpoint(Path targetDir);

  /** Full recomputation of every invariant (expensive): at start, at snapshot, in tests. */
  void verify();

  /** Canonical bytes of the whole logical state, for replay-determinism comparisons. */
  byte[] canonicalState();

  @Override
  void close();

  /**
   * The store's own figures for monitoring (RocksDB properties such as
   * {@code rocksdb.total-sst-files-size}, summed over column families where RocksDB keeps them
   * per family), by property name; a property the store does not have is absent. Not part of
   * the replicated state: values differ between replicas.
   */
  default java.util.Map<String, Long> storeProperties() {
    return java.util.Map.of();
  }

  /**
   * The tokens and grants as of the last applied entry: an immutable copy, safe to read from
   * any thread without the apply lock.
   */
  default dev.ration.statemachine.security.SecurityTable securityTable() {
    return dev.ration.statemachine.security.SecurityTable.EMPTY;
  }

  /**
   * The changes the last applied entry made to TTL entries, in order, handed over once (a second
   * call returns nothing until another entry is applied): what watches are told. Not state.
   */
  default java.util.List<dev.ration.statemachine.ttl.TtlChange> takeTtlChanges() {
    return java.util.List.of();
  }
}
