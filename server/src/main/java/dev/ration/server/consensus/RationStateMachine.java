package dev.ration.server.consensus;

import dev.ration.server.BuildInfo;
import dev.ration.statemachine.command.BatchFormatException;

import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis adapter over {@link CoordinatorState} (RocksDB at {@code <dataDir>/state}).
 *
 * <p>Role: apply each committed entry in log order, reply with the encoded results, take
 * snapshots as RocksDB checkpoints, restore an installed snapshot, answer reads.
 *
 * <p>Thread: Ratis's state-machine updater calls apply, notifyTermIndexUpdated, takeSnapshot,
 * pause and reinitialize, one at a time; readers (ReadIndex queries, stale reads, status) come
 * from other threads. One read-write lock serialises them: apply, snapshot, pause and restore
 * take the write lock; queries take the read lock (HDDS-6732: nothing touches the store while it
 * is being swapped). While paused for an install the store is closed and reads fail.
 *
 * <p>Invariants: the applied index stored in RocksDB advances with every entry (data, config,
 * no-op) in the entry's own WriteBatch, so a restart resumes exactly there: entries at or below
 * it that Ratis replays from the last snapshot are skipped, never applied twice. A failed apply
 * (invariant violation, store error, undecodable entry) stops the process through the
 * {@link Terminator}: fail-stop beats divergence.
 */
public final class RationStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(RationStateMachine.class);
  /** Checkpoints kept on disk: the newest (sent to followers) and one before it. */
  static final int SNAPSHOTS_KEPT = 2;

  /** Leadership events, forwarded to the node (which owns the log clock and the proposer). */
  interface Leadership {
    void leaderReady();

    void leaderChanged(RaftPeerId newLeaderId);

    /**
     * A command a follower forwarded, to be answered within {@code timeoutMillis}: proposed here
     * as if a client of this node sent it.
     */
    CompletableFuture<Result> forwarded(RequestKey key, Command command, long timeoutMillis);
  }

  private final Path stateDir;
  private final StateOptions stateOptions;
  private final Terminator terminator;
  private final PendingReads reads;
  private final TtlChangeLog ttlChanges;
  private final SnapshotDirs snapshots = new SnapshotDirs();
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private volatile Leadership leadership;
  /** Guarded by {@link #lock}; empty while paused for a snapshot install or after close. */
  private Optional<CoordinatorState> state = Optional.empty();
  /**
   * The tokens and grants and the ledger time as of the last applied entry, for the endpoint's
   * authentication and authorization, which must not take the lock on every request.
   */
  private volatile dev.ration.statemachine.security.SecurityTable securityTable =
      dev.ration.statemachine.security.SecurityTable.EMPTY;
  private volatile long publishedNowMillis;
  /** The store's applied (term, index) when it was closed for an install. */
  private TermIndex appliedAtPause = TermIndex.valueOf(0, 0);

  RationStateMachine(
      Path stateDir, StateOptions stateOptions, Terminator terminator, PendingReads reads,
      TtlChangeLog ttlChanges, Leadership leadership) {
    this.stateDir = stateDir;
    this.ttlChanges = ttlChanges;
    this.stateOptions = stateOptions;
    this.terminator = terminator;
    this.reads = reads;
    this.leadership = leadership;
  }

  /**
   * Ratis reports that this node's Raft log could not be written (a full disk, an I/O error).
   * Ratis leaves the log failed until a restart: the node would stay up, answer health checks and
   * fall silently behind, and as leader it would hold the group without being able to append.
   * So it stops, as on a failed apply: the others elect a leader, the operator sees a node down
   * with the cause in its log, and once the disk is fixed it restarts and catches up.
   */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    terminator.terminate(logFailed(getId(), failedEntry == null ? -1 : failedEntry.getIndex(), cause), cause);
  }

  static String logFailed(Object node, long index, Throwable cause) {
    Throwable root = cause;
    while (root != null && root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String why = root == null ? "unknown cause" : root.getClass().getSimpleName() + ": " + root.getMessage();
    return "event=raft_log_failed the Raft log of " + node + " could not be written"
        + (index >= 0 ? " (entry index " + index + ")" : "") + ": " + why + ". A node whose log"
        + " failed cannot replicate; it stops. Free space or repair the disk under the data"
        + " directory, then start it again: it catches up from its peers";
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    getLifeCycle().startAndTransition(() -> {
      super.initialize(server, groupId, raftStorage);
      snapshots.init(raftStorage);
      openState(false);
    });
  }

  /**
   * Open the store. If it is absent (fresh node, or its state dir was wiped) or an installed
   * snapshot is newer than it, restore the newest snapshot first.
   */
  private void openState(boolean afterInstall) throws IOException {
    lock.writeLock().lock();
    try {
      snapshots.rescan();
      Optional<SnapshotDirs.Dir> newest = snapshots.latest();
      boolean haveState = Files.isDirectory(stateDir) && !isEmpty(stateDir);
      long localApplied = afterInstall ? appliedAtPause.getIndex() : -1;
      if (newest.isPresent() && (!haveState || afterInstall)) {
        SnapshotDirs.Dir dir = newest.get();
        if (haveState && dir.index() <= localApplied) {
          // Alluxio #12179 / RATIS-2084: never go back in time.
          LOG.warn("{}: refusing snapshot {} (index {} <= local applied {}); keeping local state",
              getId(), dir.path(), dir.index(), localApplied);
        } else {
          CheckpointManifest manifest = RocksCoordinatorState.readManifest(dir.path());
          if (manifest.index() != dir.index() || manifest.term() != dir.term()) {
            throw new IOException(String.format(
                "snapshot dir %s names term=%d index=%d but its manifest says term=%d index=%d",
                dir.path(), dir.term(), dir.index(), manifest.term(), manifest.index()));
          }
          LOG.info("{}: restoring snapshot term={} index={} from {} into {}",
              getId(), dir.term(), dir.index(), dir.path(), stateDir);
          SnapshotDirs.removeTransferDigests(dir.path());
          RocksCoordinatorState.restoreCheckpoint(dir.path(), stateDir);
        }
      }
      Files.createDirectories(stateDir.getParent());
      RocksCoordinatorState opened = RocksCoordinatorState.open(stateDir, stateOptions);
      opened.migratedFromFormatTwo().ifPresent(kept -> LOG.info(
          "{}: migrated state at {} from store format 2 to 3 (idempotency generations; {} records"
              + " kept)", getId(), stateDir, kept));
      state = Optional.of(opened);
      publish(opened);
      ttlChanges.reset(opened.appliedIndex());
      TermIndex applied = TermIndex.valueOf(opened.appliedTerm(), opened.appliedIndex());
      setLastAppliedTermIndex(applied);
      LOG.info("{}: state open at {} applied={} latestSnapshot={}",
          getId(), stateDir, applied, snapshots.latestTermIndex());
    } finally {
      lock.writeLock().unlock();
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> children = Files.list(dir)) {
      return children.findAny().isEmpty();
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return snapshots;
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return snapshots.getLatestSnapshot();
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long term = entry.getTerm();
    long index = entry.getIndex();
    List<Result> results;
    lock.writeLock().lock();
    try {
      CoordinatorState s = state.orElseThrow(() -> new IllegalStateException(
          "apply of term=" + term + " index=" + index + " while the state is closed (paused)"));
      if (index <= s.appliedIndex()) {
        // Replay from the last snapshot after a restart: the store already holds this entry.
        return CompletableFuture.completedFuture(Message.EMPTY);
      }
      Batch batch = BatchCodec.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
      results = s.apply(term, index, batch);
      if (results.size() != batch.proposals().size()) {
        throw new IllegalStateException("apply of term=" + term + " index=" + index + " returned "
            + results.size() + " results for " + batch.proposals().size() + " proposals");
      }
      updateLastAppliedTermIndex(term, index);
      publish(s);
      ttlChanges.appended(index, s.takeTtlChanges());
    } catch (BatchFormatException e) {
      terminator.terminate(undecodable(term, index, getId(), e.getMessage(), BuildInfo.current()), e);
      return CompletableFuture.failedFuture(e);
    } catch (RuntimeException e) {
      return failStop("apply term=" + term + " index=" + index, e);
    } finally {
      lock.writeLock().unlock();
    }
    if (trx.getClientRequest() == null) {
      // A follower (or a leader replaying an earlier term's entry): no proposer waits for these
      // results, so they are not encoded (the idempotency records already hold each answer).
      return CompletableFuture.completedFuture(Message.EMPTY);
    }
    try {
      return CompletableFuture.completedFuture(
          Message.valueOf(UnsafeByteOperations.unsafeWrap(ReplyFormat.encode(results))));
    } catch (RuntimeException e) {
      return failStop("encode results of term=" + term + " index=" + index, e);
    }
  }

  /**
   * Why a node stops at an entry it cannot decode. Every replica of one release decodes every
   * entry a replica of that release wrote, so such an entry comes from a newer release (a command
   * or batch format it added) or from corruption. Skipping or refusing it would leave this
   * replica's state different from the replicas that apply it; stopping before it changes
   * anything keeps every replica's state a prefix of the log (docs/DECISIONS.md, "Log commands
   * across releases"), and the node resumes once it runs a release that reads the entry.
   */
  static String undecodable(long term, long index, Object node, String why, BuildInfo build) {
    return "log entry term=" + term + " index=" + index + " cannot be applied on " + node
        + " by this build (" + build.describe() + "): " + why + ". It was written by a newer"
        + " release (an operation or log format this build does not know) or is corrupt; this node"
        + " stops rather than diverge from the replicas that apply it: restart it on the release"
        + " the other nodes run (docs/OPERATIONS.md, \"Upgrades\")";
  }

  private <T> CompletableFuture<T> failStop(String what, RuntimeException e) {
    terminator.terminate(what + " failed on " + getId() + ": " + e.getMessage(), e);
    return CompletableFuture.failedFuture(e);
  }

  /** Entries without state-machine data (configuration, the leader's placeholder). */
  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    lock.writeLock().lock();
    try {
      if (state.isPresent()) {
        CoordinatorState s = state.get();
        if (index <= s.appliedIndex()) {
          return;
        }
        s.applyEmpty(term, index);
      }
      if (index > getLastAppliedTermIndex().getIndex()) {
        super.notifyTermIndexUpdated(term, index);
      }
    } catch (RuntimeException e) {
      failStop("applyEmpty term=" + term + " index=" + index, e);
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public long takeSnapshot() throws IOException {
    lock.writeLock().lock();
    try {
      if (state.isEmpty()) {
        return RaftLog.INVALID_LOG_INDEX;
      }
      CoordinatorState s = state.get();
      long term = s.appliedTerm();
      long index = s.appliedIndex();
      if (index <= 0) {
        return RaftLog.INVALID_LOG_INDEX;
      }
      Path target = snapshots.dirFor(term, index);
      if (!Files.isDirectory(target)) {
        Path tmp = snapshots.tmpDirFor(term, index);
        SnapshotDirs.deleteTree(tmp);
        CheckpointManifest manifest;
        try {
          manifest = s.checkpoint(tmp);
        } catch (RuntimeException e) {
          throw new IOException(
              String.format("snapshot term=%d index=%d dir=%s: %s", term, index, tmp, e), e);
        }
        if (manifest.index() != index || manifest.term() != term) {
          throw new IOException(String.format(
              "checkpoint in %s has term=%d index=%d, expected term=%d index=%d",
              tmp, manifest.term(), manifest.index(), term, index));
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        LOG.info("{}: snapshot term={} index={} at {}", getId(), term, index, target);
      }
      snapshots.prune(SNAPSHOTS_KEPT);
      snapshots.rescan();
      return index;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * A checkpoint of the current state into {@code target} (which must not exist), for a backup:
   * taken under the apply lock, so it is exactly the state at its manifest's applied index.
   */
  CheckpointManifest checkpointTo(Path target) {
    lock.writeLock().lock();
    try {
      CoordinatorState s = state.orElseThrow(() -> new IllegalStateException(
          "the state is closed (a snapshot is being installed); try again"));
      return s.checkpoint(target);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Ratis is about to replace the snapshot directory with an installed one: close the store. */
  @Override
  public void pause() {
    lock.writeLock().lock();
    try {
      if (state.isPresent()) {
        CoordinatorState s = state.get();
        appliedAtPause = TermIndex.valueOf(s.appliedTerm(), s.appliedIndex());
        s.close();
        state = Optional.empty();
      }
      if (getLifeCycleState() == LifeCycle.State.RUNNING) {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void publish(CoordinatorState s) {
    securityTable = s.securityTable();
    publishedNowMillis = s.nowMillis();
  }

  /** The tokens and grants as of the last applied entry (any thread, no lock). */
  public dev.ration.statemachine.security.SecurityTable securityTable() {
    return securityTable;
  }

  /** The ledger time of the last applied entry (any thread, no lock). */
  public long publishedNowMillis() {
    return publishedNowMillis;
  }

  /** Snapshots installed from the leader since start: every reinitialize follows one. */
  private final java.util.concurrent.atomic.AtomicLong installs = new java.util.concurrent.atomic.AtomicLong();

  /** How many snapshots from the leader this node installed since it started (any thread). */
  public long snapshotInstalls() {
    return installs.get();
  }

  /** After an install: restore the newest snapshot (if newer than ours) and reopen. */
  @Override
  public void reinitialize() throws IOException {
    // Counted here, not from Ratis's numInstallSnapshot, which its chunked install path alone
    // increments.
    installs.incrementAndGet();
    lock.writeLock().lock();
    try {
      if (state.isPresent()) {
        // Paused through another path (RaftServerImpl.pause): close now so we can swap.
        CoordinatorState s = state.get();
        appliedAtPause = TermIndex.valueOf(s.appliedTerm(), s.appliedIndex());
        s.close();
        state = Optional.empty();
      }
      setLastAppliedTermIndex(null);
      openState(true);
      if (getLifeCycleState() == LifeCycle.State.PAUSED) {
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * A linearizable read, after ReadIndex: the message names a read in {@link PendingReads}. Or a
   * command a follower forwarded ({@link Forwarding}), sent as a read that the leader answers
   * without ReadIndex: proposed through this node's group commit; the answer is its result.
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    if (Forwarding.isRequest(request)) {
      Forwarding.Forwarded f;
      try {
        f = Forwarding.decodeRequest(request);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      return leadership.forwarded(f.key(), f.command(), f.timeoutMillis()).handle((result, error) -> {
        if (error == null) {
          return Forwarding.answer(result);
        }
        Throwable cause = error instanceof java.util.concurrent.CompletionException
            && error.getCause() != null ? error.getCause() : error;
        return Forwarding.answer(cause instanceof CoordinatorException ce ? ce
            : new CoordinatorException(CoordinatorException.Reason.UNAVAILABLE,
                "forwarded command failed: " + cause, "", 0, true));
      });
    }
    try {
      long id = PendingReads.id(request);
      PendingReads.Read read = reads.find(id).orElseThrow(
          () -> new IllegalStateException("read " + id + " is not pending on this node"));
      read.result = withState(s -> s.query(read.query, read.readNowMillis));
      return CompletableFuture.completedFuture(Message.EMPTY);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Run {@code f} on the open state under the read lock; fails if the state is closed. */
  <T> T withState(Function<CoordinatorState, T> f) {
    lock.readLock().lock();
    try {
      CoordinatorState s = state.orElseThrow(() -> new CoordinatorException(
          CoordinatorException.Reason.UNAVAILABLE,
          "state of " + getId() + " is closed (installing a snapshot or shutting down)", "", 100,
          false));
      return f.apply(s);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Like {@link #withState} but gives up (empty) if the state is busy for more than a few
   * milliseconds (a long apply or a snapshot restore) or closed: for status and the ticker,
   * which must not block.
   */
  <T> Optional<T> tryWithState(Function<CoordinatorState, T> f) {
    try {
      if (!lock.readLock().tryLock(20, java.util.concurrent.TimeUnit.MILLISECONDS)) {
        return Optional.empty();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
    try {
      return state.map(f);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** A read of this node's state at its own ledger time (stale read, monitoring). */
  QueryResult queryLocal(Query query) {
    return withState(s -> s.query(query, s.nowMillis()));
  }

  @Override
  public void notifyLeaderReady() {
    leadership.leaderReady();
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    leadership.leaderChanged(newLeaderId);
  }

  SnapshotDirs snapshots() {
    return snapshots;
  }

  @Override
  public void close() throws IOException {
    lock.writeLock().lock();
    try {
      state.ifPresent(CoordinatorState::close);
      state = Optional.empty();
      super.close();
    } finally {
      lock.writeLock().unlock();
    }
  }
}
