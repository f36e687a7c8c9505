package dev.ration.server.consensus;

import dev.ration.server.consensus.CoordinatorException.Reason;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.result.Result;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.ResourceUnavailableException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit on the leader: client commands wait in one bounded queue; one proposer thread
 * turns them into Raft entries ({@link Batch}es stamped with log time) and completes each
 * command's future with its own result.
 *
 * <p>Batches grow by themselves under load: at most {@code maxEntriesInFlight} entries are
 * outstanding, and while they are, commands accumulate in the queue; the next entry takes up to
 * {@code batchMaxCommands} / {@code batchMaxBytes} of them. With nothing in flight and nothing
 * queued a command is proposed at once by the submitting thread itself (the direct path: no
 * hand-off to the proposer thread, which on a small VM cost as much CPU as the rest of the
 * leader's work for that command); with entries in flight the proposer thread lingers up to
 * {@code batchLinger} for a fuller batch.
 *
 * <p>Leadership: after {@link #leaderReady()} the first entry proposed is {@code NewEpoch}, so
 * every client batch of the term follows it in the log. Queued (unproposed) commands fail with a
 * definite NOT_LEADER when leadership is lost; expired ones are dropped with a definite
 * DEADLINE_EXCEEDED. A failure after submission to Raft is indeterminate ({@code proposed=true}).
 *
 * <p>Thread: {@link #submit} from any thread (never blocks on the queue: a full queue is
 * OVERLOADED at once; the direct path takes {@link #submitLock} and hands the entry to Ratis,
 * which appends it without waiting for I/O); the state below is guarded by {@link #lock}; Raft
 * replies complete futures on Ratis threads. The proposer thread sleeps while there is nothing to
 * do (no timed polling with an empty queue) and is woken only when it can act.
 */
final class Proposer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Proposer.class);
  /** How often queued commands are checked against their deadlines when nothing else happens. */
  private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  /**
   * How long the proposer thread sleeps with an empty queue. Every change that gives it work
   * signals it, so this is only a guard; a 5 ms poll here woke every node's proposer 200 times
   * a second, followers included, for nothing.
   */
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final class Pending {
    /** The command as an entry carries it: encoded once, at submit. */
    final byte[] encoded;
    final long deadlineNanos;
    final int bytes;
    final long submittedNanos;
    final Withdrawable future = new Withdrawable(this);
    /**
     * Taken out of the queue: proposed (or about to be), expired, failed or withdrawn. Guarded
     * by {@link #lock}; once set, {@link #withdraw} can no longer stop the command.
     */
    boolean taken;
    /** Withdrawn while queued: the proposer skips it. Guarded by {@link #lock}. */
    boolean withdrawn;

    Pending(byte[] encoded, long deadlineNanos, long submittedNanos) {
      this.encoded = encoded;
      this.deadlineNanos = deadlineNanos;
      this.bytes = encoded.length;
      this.submittedNanos = submittedNanos;
    }
  }

  /**
   * A queued command's future: {@code cancel} withdraws the command if it has not been taken for
   * proposal yet (it then fails with a definite CANCELLED and is never proposed) and returns
   * false otherwise, leaving the command to its real outcome. Never completes with a
   * CancellationException: whoever waits learns which of the two happened.
   */
  final class Withdrawable extends CompletableFuture<Result> {
    private final Pending pending;

    private Withdrawable(Pending pending) {
      this.pending = pending;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return withdraw(pending);
    }
  }

  private final ConsensusOptions options;
  private final RaftServer server;
  private final RaftGroupId groupId;
  private final LogClock clock;
  private final LongSupplier nanoClock;
  private final BooleanSupplier isLeader;
  private final Supplier<String> leaderClientAddress;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private final AtomicLong entriesProposed = new AtomicLong();
  private final AtomicLong commandsProposed = new AtomicLong();
  private final AtomicLong rejectedOverloaded = new AtomicLong();
  private final AtomicLong droppedExpired = new AtomicLong();
  private final AtomicLong queueWaitNanos = new AtomicLong();
  private final AtomicLong entriesAnswered = new AtomicLong();
  private final AtomicLong entryNanos = new AtomicLong();
  private final AtomicLong entriesDirect = new AtomicLong();
  private final AtomicLong withdrawn = new AtomicLong();
  private final Thread thread;

  private final ReentrantLock lock = new ReentrantLock();
  /**
   * Held from reading the log clock to Ratis's append of the entry, by whichever thread proposes
   * (the proposer thread or a submitter on the direct path): entries reach the log in the order
   * of their log times, so log time never goes backwards along the log.
   */
  private final ReentrantLock submitLock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private boolean running = true;
  /** Set by leaderReady: the next entry must be NewEpoch. */
  private boolean epochWanted;
  /** NewEpoch of the current leadership was submitted: client batches may follow. */
  private boolean epochProposed;
  private boolean tickWanted;
  /** Entries in flight that carry a Tick. */
  private int ticksOutstanding;
  /**
   * The last Tick answered freed something, so more may be due: every entry proposed carries a
   * Tick until one frees nothing. Under load (a lease end and an idempotency record per command)
   * one Tick per round trip fell behind; a Tick in every entry keeps up with the entries.
   */
  private boolean draining;
  private int inFlight;
  private long lingerUntilNanos;
  private volatile int queueDepth;

  Proposer(
      ConsensusOptions options,
      RaftServer server,
      RaftGroupId groupId,
      LogClock clock,
      LongSupplier nanoClock,
      BooleanSupplier isLeader,
      Supplier<String> leaderClientAddress) {
    this.options = options;
    this.server = server;
    this.groupId = groupId;
    this.clock = clock;
    this.nanoClock = nanoClock;
    this.isLeader = isLeader;
    this.leaderClientAddress = leaderClientAddress;
    this.thread = new Thread(this::run, "ration-proposer-" + options.nodeId());
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  CompletableFuture<Result> submit(RequestKey key, Command command, long deadlineNanos) {
    if (!isLeader.getAsBoolean()) {
      return CompletableFuture.failedFuture(notLeader(false));
    }
    Pending pending = new Pending(BatchCodec.encodeProposal(key, command), deadlineNanos,
        nanoClock.getAsLong());
    lock.lock();
    try {
      if (!running) {
        return CompletableFuture.failedFuture(new CoordinatorException(
            Reason.UNAVAILABLE, "node " + options.nodeId() + " is shutting down", "", 0, false));
      }
      int depth = queue.size();
      if (depth == 0 && inFlight == 0 && epochProposed && !epochWanted && !tickWanted
          && pending.submittedNanos - deadlineNanos < 0) {
        // Nothing to batch with and nothing in flight: lingering or handing over to the
        // proposer thread could only add latency and a thread wake-up. Counted in flight under
        // the lock, so the proposer thread waits for its answer like for any other entry.
        inFlight++;
        pending.taken = true;
      } else {
        if (depth >= options.queueCapacity()) {
          rejectedOverloaded.incrementAndGet();
          return CompletableFuture.failedFuture(new CoordinatorException(
              Reason.OVERLOADED,
              "group-commit queue full: " + depth + " of " + options.queueCapacity(),
              "", retryAfterMillis(depth), false));
        }
        queue.add(pending);
        queueDepth = queue.size();
        // Wake the proposer thread only when it can act on this command now: it sleeps on an
        // empty queue, and a command that makes a batch full ends a linger. While it lingers or
        // the in-flight window is full it wakes by itself (linger end) or is signalled (an
        // answer); a signal per command there only cost CPU.
        if ((depth == 0 && lingerUntilNanos == 0 && inFlight < maxInFlight())
            || queue.size() == options.batchMaxCommands()) {
          changed.signal();
        }
        return pending.future;
      }
    } finally {
      lock.unlock();
    }
    entriesDirect.incrementAndGet();
    proposeUnlocked(List.of(pending.encoded), List.of(pending), false, 0);
    return pending.future;
  }

  private int maxInFlight() {
    return Math.max(1, options.maxEntriesInFlight());
  }

  /** A few milliseconds per full batch ahead of the caller: when the queue has likely drained. */
  private int retryAfterMillis(int depth) {
    long batchesAhead = depth / Math.max(1, options.batchMaxCommands()) + 1;
    return (int) Math.min(1_000, Math.max(5, 5 * batchesAhead));
  }

  /** This node became a ready leader and its log clock runs: propose NewEpoch first. */
  void leaderReady() {
    lock.lock();
    try {
      epochWanted = true;
      epochProposed = false;
      tickWanted = false;
      draining = false;
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Leadership lost: unproposed commands fail with a definite NOT_LEADER. */
  void leadershipLost() {
    lock.lock();
    try {
      epochWanted = false;
      epochProposed = false;
      tickWanted = false;
      draining = false;
      failQueued(() -> notLeader(false));
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Ask for a Tick; at most one is wanted or outstanding at a time. */
  void requestTick() {
    lock.lock();
    try {
      if (epochProposed && !tickWanted && ticksOutstanding == 0) {
        tickWanted = true;
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** A Tick was answered: keep a Tick in every entry while they free something. */
  private void drain(boolean more) {
    lock.lock();
    try {
      draining = more && epochProposed;
      if (draining && !tickWanted) {
        tickWanted = true;
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  boolean epochProposed() {
    lock.lock();
    try {
      return epochProposed;
    } finally {
      lock.unlock();
    }
  }

  GroupCommitStats stats() {
    lock.lock();
    int flying;
    try {
      flying = inFlight;
    } finally {
      lock.unlock();
    }
    return new GroupCommitStats(entriesProposed.get(), commandsProposed.get(), queueDepth, flying,
        rejectedOverloaded.get(), droppedExpired.get(), queueWaitNanos.get(),
        entriesAnswered.get(), entryNanos.get(), entriesDirect.get(), withdrawn.get());
  }

  int queueDepth() {
    return queueDepth;
  }

  private CoordinatorException notLeader(boolean proposed) {
    return new CoordinatorException(
        Reason.NOT_LEADER,
        "node " + options.nodeId() + " is not the leader" + (proposed ? " (lost leadership after proposing)" : ""),
        leaderClientAddress.get(), 0, proposed);
  }

  private void failQueued(Supplier<CoordinatorException> error) {
    while (!queue.isEmpty()) {
      Pending p = queue.poll();
      p.taken = true;
      if (!p.withdrawn) {
        p.future.completeExceptionally(error.get());
      }
    }
    queueDepth = 0;
  }

  private void dropExpired(long nowNanos) {
    Iterator<Pending> it = queue.iterator();
    while (it.hasNext()) {
      Pending p = it.next();
      if (p.withdrawn) {
        it.remove();
      } else if (nowNanos - p.deadlineNanos >= 0) {
        it.remove();
        p.taken = true;
        expire(p);
      }
    }
    queueDepth = queue.size();
  }

  /**
   * Withdraws a queued command (its caller gave up: a CANCEL frame, or its connection closed).
   * True if it was still waiting: it fails with a definite CANCELLED and is never proposed. False
   * once the proposer took it (or it already finished): then its real outcome stands.
   */
  private boolean withdraw(Pending p) {
    lock.lock();
    try {
      if (p.taken) {
        return false;
      }
      p.taken = true;
      p.withdrawn = true;
    } finally {
      lock.unlock();
    }
    withdrawn.incrementAndGet();
    p.future.completeExceptionally(new CoordinatorException(
        Reason.CANCELLED, "withdrawn before it was proposed", "", 0, false));
    return true;
  }

  private void expire(Pending p) {
    droppedExpired.incrementAndGet();
    p.future.completeExceptionally(new CoordinatorException(
        Reason.DEADLINE_EXCEEDED, "deadline passed before the command was proposed", "", 0, false));
  }

  private void run() {
    long nextSweepNanos = 0;
    lock.lock();
    try {
      while (running) {
        long now = nanoClock.getAsLong();
        if (now - nextSweepNanos >= 0) {
          dropExpired(now);
          nextSweepNanos = now + SWEEP_NANOS;
        }
        if (!queue.isEmpty() && !isLeader.getAsBoolean()) {
          failQueued(() -> notLeader(false));
        }
        int maxInFlight = maxInFlight();
        if (epochWanted && inFlight < maxInFlight) {
          epochWanted = false;
          epochProposed = true;
          inFlight++;
          List<byte[]> epoch =
              List.of(BatchCodec.encodeProposal(RequestKey.NONE, new NewEpoch(options.nodeId())));
          propose(epoch, List.of(), false, 0);
          continue;
        }
        boolean work = !queue.isEmpty() || tickWanted;
        if (!epochProposed || !work || inFlight >= maxInFlight) {
          if (!epochProposed || !work) {
            // A linger cut short (the queue emptied by expiry or lost leadership) is over: a
            // submit seeing it still set would not signal, and the next command would wait
            // for an answer to wake this thread.
            lingerUntilNanos = 0;
          }
          changed.awaitNanos(queue.isEmpty() ? IDLE_NANOS : SWEEP_NANOS);
          continue;
        }
        long lingerNanos = options.batchLinger().toNanos();
        if (inFlight > 0 && lingerNanos > 0 && !batchFull()) {
          if (lingerUntilNanos == 0) {
            lingerUntilNanos = now + lingerNanos;
          }
          if (lingerUntilNanos - now > 0) {
            changed.awaitNanos(Math.min(lingerUntilNanos - now, SWEEP_NANOS));
            continue;
          }
        }
        lingerUntilNanos = 0;
        List<byte[]> proposals = new ArrayList<>();
        List<Pending> members = new ArrayList<>();
        boolean withTick = tickWanted || (draining && ticksOutstanding < maxInFlight);
        if (withTick) {
          tickWanted = false;
          ticksOutstanding++;
          proposals.add(BatchCodec.encodeProposal(RequestKey.NONE, new Tick(options.tickMaxItems())));
        }
        // The entry's whole size counts against the bound: its header and a tick included.
        int bytes = BatchCodec.HEADER_BYTES;
        for (byte[] proposal : proposals) {
          bytes += proposal.length;
        }
        long waited = 0;
        while (!queue.isEmpty() && members.size() < options.batchMaxCommands()) {
          Pending next = queue.peek();
          if (next.withdrawn) {
            queue.poll();
            continue;
          }
          if (!members.isEmpty() && bytes + next.bytes > options.batchMaxBytes()) {
            break;
          }
          queue.poll();
          next.taken = true;
          if (now - next.deadlineNanos >= 0) {
            expire(next);
            continue;
          }
          members.add(next);
          proposals.add(next.encoded);
          bytes += next.bytes;
          waited += now - next.submittedNanos;
        }
        queueDepth = queue.size();
        if (proposals.isEmpty()) {
          continue;
        }
        inFlight++;
        propose(proposals, members, withTick, waited);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("{}: proposer stopped by a bug", options.nodeId(), e);
      throw e;
    } finally {
      failQueued(() -> new CoordinatorException(
          Reason.UNAVAILABLE, "node " + options.nodeId() + " is shutting down", "", 0, false));
      lock.unlock();
    }
  }

  private boolean batchFull() {
    if (queue.size() >= options.batchMaxCommands()) {
      return true;
    }
    long bytes = 0;
    for (Pending p : queue) {
      bytes += p.bytes;
      if (bytes >= options.batchMaxBytes()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Stamp and submit one entry. Called with {@link #lock} held; releases it while talking to
   * Ratis so that submitters are not blocked. Entries are submitted by this one thread, in
   * order, so their log times are increasing in log order. {@code membersWaitedNanos} (the
   * members' total time in the queue) is counted with the members, only once Raft took the entry.
   */
  private void propose(
      List<byte[]> proposals, List<Pending> members, boolean withTick, long membersWaitedNanos) {
    lock.unlock();
    try {
      proposeUnlocked(proposals, members, withTick, membersWaitedNanos);
    } finally {
      lock.lock();
    }
  }

  /** {@link #propose} without {@link #lock} held; the entry is already counted in flight. */
  private void proposeUnlocked(
      List<byte[]> proposals, List<Pending> members, boolean withTick, long membersWaitedNanos) {
    CompletableFuture<RaftClientReply> reply;
    submitLock.lock();
    try {
      long timeMillis;
      try {
        timeMillis = clock.now();
      } catch (IllegalStateException notRunning) {
        finish(members, withTick, null, notLeader(false));
        return;
      }
      byte[] data = BatchCodec.encodeEncoded(timeMillis, proposals);
      RaftClientRequest request = RaftClientRequest.newBuilder()
          .setClientId(clientId)
          .setServerId(server.getId())
          .setGroupId(groupId)
          .setCallId(callIds.incrementAndGet())
          // The array is this entry's alone and never written again: no copy.
          .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(data)))
          .setType(RaftClientRequest.writeRequestType())
          .setTimeoutMs(options.requestTimeout().toMillis())
          .build();
      try {
        reply = server.submitClientRequestAsync(request);
      } catch (IOException e) {
        finish(members, withTick, null, new CoordinatorException(
            Reason.UNAVAILABLE, "submit failed: " + e, leaderClientAddress.get(), 0, false));
        return;
      }
    } finally {
      submitLock.unlock();
    }
    // A reply already there on return was decided before the entry was appended (the server
    // checks leadership first): a NOT_LEADER then is definite. Later, it is indeterminate.
    boolean immediate = reply.isDone();
    entriesProposed.incrementAndGet();
    commandsProposed.addAndGet(members.size());
    queueWaitNanos.addAndGet(membersWaitedNanos);
    long proposedNanos = nanoClock.getAsLong();
    reply.whenComplete((r, error) -> {
      entriesAnswered.incrementAndGet();
      entryNanos.addAndGet(nanoClock.getAsLong() - proposedNanos);
      onReply(members, withTick, r, error, immediate);
    });
  }

  private void onReply(
      List<Pending> members, boolean withTick, RaftClientReply reply, Throwable error,
      boolean immediate) {
    try {
      if (error != null) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null
            ? error.getCause() : error;
        finish(members, withTick, null, classify(cause, immediate));
      } else if (reply.isSuccess()) {
        List<Result> results = ReplyFormat.decode(reply.getMessage().getContent().asReadOnlyByteBuffer());
        int offset = withTick ? 1 : 0;
        if (results.size() != members.size() + offset) {
          finish(members, withTick, null, new CoordinatorException(Reason.UNAVAILABLE,
              "entry " + reply.getLogIndex() + " returned " + results.size() + " results for "
                  + (members.size() + offset) + " proposals", "", 0, true));
        } else {
          boolean drainMore = withTick
              && results.get(0) instanceof Result.Ticked ticked && ticked.freed() > 0;
          finish(members, withTick, results.subList(offset, results.size()), null);
          if (withTick) {
            // A tick that freed something may have left more due: under load (thousands of
            // idempotency records a second) waiting a whole tick interval would let the
            // backlog grow without bound. Keep draining while ticks make progress.
            drain(drainMore);
          }
        }
      } else {
        finish(members, withTick, null, classify(reply.getException(), immediate));
      }
    } catch (RuntimeException e) {
      LOG.error("{}: could not complete an entry's commands", options.nodeId(), e);
      finish(members, withTick, null, new CoordinatorException(
          Reason.UNAVAILABLE, "reply could not be read: " + e, "", 0, true));
    }
  }

  private CoordinatorException classify(Throwable cause, boolean immediate) {
    if (cause instanceof NotLeaderException || cause instanceof LeaderNotReadyException) {
      return notLeader(!immediate);
    }
    if (immediate && cause instanceof ResourceUnavailableException) {
      return new CoordinatorException(Reason.OVERLOADED,
          "leader's pending-request limit reached: " + cause.getMessage(), "", 10, false);
    }
    String what = cause instanceof RaftException ? cause.getMessage() : String.valueOf(cause);
    return new CoordinatorException(Reason.UNAVAILABLE, "raft: " + what,
        leaderClientAddress.get(), 0, true);
  }

  private void finish(
      List<Pending> members, boolean withTick, List<Result> results, CoordinatorException error) {
    // The window first, the answers after: a caller answered here may submit its next command
    // at once, and it should find nothing in flight (the direct path) rather than race this.
    lock.lock();
    try {
      inFlight--;
      if (withTick) {
        ticksOutstanding--;
      }
      changed.signal();
    } finally {
      lock.unlock();
    }
    for (int i = 0; i < members.size(); i++) {
      Pending p = members.get(i);
      if (error == null) {
        p.future.complete(results.get(i));
      } else {
        p.future.completeExceptionally(error);
      }
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      running = false;
      changed.signal();
    } finally {
      lock.unlock();
    }
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
