package dev.ration.server.consensus;

import dev.ration.server.consensus.ConsensusNode.Members;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Membership changes of a running cluster through Ratis's {@code setConfiguration}
 * (docs/OPERATIONS.md, "Membership"). One public method per operation, so an authorization
 * check can wrap each: {@link #add}, {@link #remove}, {@link #replace}, {@link #transferLeader}.
 *
 * <p>Every change runs on the leader (elsewhere: {@link Reason#NOT_LEADER} naming the leader's
 * admin address) and is a compare-and-set against the configuration it was planned from, so two
 * operators racing cannot undo each other. A newcomer becomes a voter in one configuration
 * change that never takes it out again: Ratis stages it first (bootstraps it, by snapshot when
 * the log it needs is purged, and admits it only once its match index is within
 * {@link #CAUGHT_UP_GAP} entries of the commit index), and the call returns only after the
 * change has committed and the leader sees the newcomer answering and within the gap. A change
 * that would leave the new configuration without a majority of up-to-date voters is refused
 * before anything is proposed.
 *
 * <p>Thread-safe: changes are serialised by this object's lock; each blocks its caller for at
 * most its timeout (plus one poll).
 */
public final class Membership {
  private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

  /** A member counts as up to date when its match index is this close to the commit index. */
  public static final long CAUGHT_UP_GAP = 100;
  private static final Duration POLL = Duration.ofMillis(200);

  private final ConsensusNode node;
  /**
   * Peers this node, as leader, asked Ratis to stage, with the term it asked in: Ratis streams the
   * log to them before they are in the configuration (and goes on after a caller's wait ran
   * out), so their streams are not stale.
   */
  private final Map<String, Long> stagedInTerm = new java.util.concurrent.ConcurrentHashMap<>();
  /** A hand-off of leadership away from a stale stream is under way. */
  private final java.util.concurrent.atomic.AtomicBoolean handingOff =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicLong staleStreamHandoffs =
      new java.util.concurrent.atomic.AtomicLong();

  Membership(ConsensusNode node) {
    this.node = node;
  }

  /** Why a change was not made; {@link #getMessage} says it in words an operator can act on. */
  public enum Reason {
    /** This node does not lead; ask the leader (its admin address is attached when known). */
    NOT_LEADER,
    /** The request itself is wrong: an unknown id, a bad address, a duplicate. */
    BAD_REQUEST,
    /** The change is unsafe now: it would lose the majority or the last up-to-date voter. */
    REFUSED,
    /** Another change is half way; try again when it has finished. */
    IN_PROGRESS,
    /** The timeout passed first; what was done so far is in the message. */
    TIMEOUT,
    /** Ratis refused or failed the change. */
    FAILED
  }

  /** A change that was not made (or only partly: the message says how far it got). */
  public static final class MembershipException extends Exception {
    private static final long serialVersionUID = 1L;
    private final Reason reason;
    private final String leaderAdminAddress;

    MembershipException(Reason reason, String message) {
      this(reason, message, "");
    }

    MembershipException(Reason reason, String message, String leaderAdminAddress) {
      super(message);
      this.reason = reason;
      this.leaderAdminAddress = leaderAdminAddress;
    }

    public Reason reason() {
      return reason;
    }

    /** For {@link Reason#NOT_LEADER}: the leader's admin address, or "" when unknown. */
    public String leaderAdminAddress() {
      return leaderAdminAddress;
    }
  }

  /** A change that was made: what happened, and the configuration afterwards. */
  public record Change(String message, List<Peer> voters, List<Peer> listeners) {}

  /**
   * Adds {@code peer} as a voter in one configuration change (see the class comment), then
   * waits until the leader sees it answering and within {@link #CAUGHT_UP_GAP} entries of the
   * commit index. The new node must be running ({@code ration server --join}). Adding a voter
   * again only confirms it is caught up; a listener left by an earlier version's interrupted add
   * is refused with what to do.
   */
  public synchronized Change add(Peer peer, Duration timeout) throws MembershipException {
    long deadline = System.nanoTime() + timeout.toNanos();
    checkAddresses(peer);
    Members m = stableMembersOnLeader();
    Optional<Peer> existing = m.find(peer.id());
    if (existing.isPresent() && !existing.get().raftAddress().equals(peer.raftAddress())) {
      throw new MembershipException(Reason.BAD_REQUEST, peer.id() + " is already a member at "
          + existing.get().raftAddress() + ", not " + peer.raftAddress());
    }
    checkAddressUnused(m, peer);
    if (m.isVoter(peer.id())) {
      awaitVoterCaughtUp(peer.id(), deadline);
      return change(peer.id() + " is already a voter");
    }
    addVoter(peer, null, deadline);
    awaitVoterCaughtUp(peer.id(), deadline);
    return change(peer.id() + " added as a voter");
  }

  /**
   * Removes member {@code id} (a voter or a listener). Refused when the remaining voters would
   * not include a majority of up-to-date members, or when none would be up to date. Removing
   * the leader itself is allowed: Ratis hands leadership to a remaining voter once the change
   * commits. The removed node keeps running until it is stopped; stop it.
   */
  public synchronized Change remove(String id, Duration timeout) throws MembershipException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Members m = stableMembersOnLeader();
    if (m.find(id).isEmpty()) {
      throw new MembershipException(Reason.BAD_REQUEST,
          "unknown member " + id + ": the configuration is " + describe(m));
    }
    if (m.isListener(id)) {
      setConfiguration(m, m.voters(), without(m.listeners(), id), deadline, "remove listener " + id);
      return change(id + " (listener) removed");
    }
    List<Peer> voters = without(m.voters(), id);
    checkQuorum(m, voters, Set.of(), "removing " + id, deadline);
    setConfiguration(m, voters, m.listeners(), deadline, "remove " + id);
    return change(id + " removed");
  }

  /**
   * Replaces voter {@code oldId} by {@code peer} (for example a node on a new, empty disk) in
   * one configuration change: Ratis stages {@code peer} until it has caught up, then swaps the
   * two. Refused up front when the configuration after the swap would not have a majority of
   * up-to-date voters. Returns once the leader sees {@code peer} answering and caught up.
   */
  public synchronized Change replace(String oldId, Peer peer, Duration timeout)
      throws MembershipException {
    long deadline = System.nanoTime() + timeout.toNanos();
    checkAddresses(peer);
    if (oldId.equals(peer.id())) {
      throw new MembershipException(Reason.BAD_REQUEST,
          "the replacement needs a new id, not " + oldId + " again (remove it, wipe it, add it)");
    }
    Members m = stableMembersOnLeader();
    if (!m.isVoter(oldId)) {
      if (m.isVoter(peer.id())) {
        // A repeat of a replace that committed: confirm the newcomer rather than refuse.
        awaitVoterCaughtUp(peer.id(), deadline);
        return change(oldId + " replaced by " + peer.id());
      }
      throw new MembershipException(Reason.BAD_REQUEST,
          oldId + " is not a voter: the configuration is " + describe(m));
    }
    if (m.isVoter(peer.id())) {
      throw new MembershipException(Reason.BAD_REQUEST, peer.id() + " is already a voter");
    }
    checkAddressUnused(m, peer);
    List<Peer> planned = without(m.voters(), oldId);
    planned.add(peer);
    // The newcomer will be up to date before the swap; everyone else must be now.
    checkQuorum(m, planned, Set.of(peer.id()), "replacing " + oldId + " by " + peer.id(),
        deadline);
    addVoter(peer, oldId, deadline);
    awaitVoterCaughtUp(peer.id(), deadline);
    return change(oldId + " replaced by " + peer.id());
  }

  /** Hands leadership to voter {@code id}; waits for it up to {@code timeout}. */
  public synchronized Change transferLeader(String id, Duration timeout) throws MembershipException {
    long deadline = System.nanoTime() + timeout.toNanos();
    // Ratis asks the target to campaign once per transfer and then waits out the timeout; a
    // target that could not campaign yet (a newcomer still starting up) needs another ask.
    Duration attempt = node.options().electionTimeoutMax().multipliedBy(5);
    String why;
    int attempts = 0;
    while (true) {
      attempts++;
      Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
      why = node.transferLeadershipTo(id, left.compareTo(attempt) < 0 ? left : attempt);
      if (why.isEmpty() || why.startsWith("not the leader") || why.startsWith("unknown peer")
          || System.nanoTime() - deadline >= 0 || attempts >= 1000) {
        break;
      }
      LOG.info("event=leadership_transfer_retry to={} attempt={} why=\"{}\"", id, attempts, why);
      // A refusal comes at once (a change in progress): ask again after a pause, not in a spin.
      sleep(POLL);
    }
    if (why.isEmpty()) {
      return change(id + " leads");
    }
    if (why.startsWith("not the leader")) {
      throw new MembershipException(Reason.NOT_LEADER, why, leaderAdminAddress());
    }
    if (why.startsWith("unknown peer")) {
      throw new MembershipException(Reason.BAD_REQUEST, why);
    }
    throw new MembershipException(Reason.FAILED, why);
  }

  // ---------------------------------------------------------------- steps

  private Change change(String message) {
    Members m = node.members();
    LOG.info("event=membership_changed result=\"{}\" voters={} listeners={}", message,
        ids(m.voters()), ids(m.listeners()));
    return new Change(message, m.voters(), m.listeners());
  }

  /**
   * Proposes the configuration with {@code peer} as a voter (in place of {@code replacedId}, when
   * given) and waits for it to commit.
   *
   * <p>One change, never two: Ratis stages a peer new to the configuration (it sends it the log,
   * or a snapshot, while the peer is told it is still initializing and so runs no election
   * timer), appends the joint configuration once the peer is within the staging gap
   * ({@link ConsensusNode#properties}: the same {@link #CAUGHT_UP_GAP}), and only then tells it
   * it is a member, which starts its timer. The next entries it receives carry that joint
   * configuration, which lists it. A node that ever ran a timer while its own configuration did
   * not list it as a voter would, at its first election timeout, find itself outside the
   * configuration and shut its Raft server down for good; so the newcomer is never first a
   * listener that is then taken out (a listener promoted in place would not be staged, and would
   * never be told it is a member until the next leader change).
   */
  private void addVoter(Peer peer, String replacedId, long deadline) throws MembershipException {
    String what = replacedId == null ? "add " + peer.id() + " as a voter"
        : "replace " + replacedId + " by " + peer.id();
    Members m = stableMembersOnLeader();
    if (m.isListener(peer.id())) {
      // Left by an interrupted add of an earlier version. Promoted in place it would not be
      // staged (see above); taken out first it may already run a timer (a new leader tells
      // listeners they are members) and shut down before it is staged back in.
      throw new MembershipException(Reason.BAD_REQUEST, peer.id() + " is a non-voting listener"
          + " (left by an interrupted add): remove it (`ration cluster remove " + peer.id()
          + "`), stop it, wipe its data directory, start it again with --join, and add it again");
    }
    handOffIfStaleStream(peer.id(), m, deadline);
    List<Peer> voters = new ArrayList<>(m.voters());
    if (replacedId != null) {
      voters = without(voters, replacedId);
    }
    voters.add(peer);
    checkQuorum(m, voters, Set.of(peer.id()), what, deadline);
    stagedInTerm.put(peer.id(), node.currentTerm());
    try {
      setConfiguration(m, voters, m.listeners(), deadline, what);
    } catch (MembershipException e) {
      if (e.reason() == Reason.FAILED || e.reason() == Reason.TIMEOUT) {
        throw new MembershipException(e.reason(), e.getMessage() + " (is " + peer.id()
            + " running at " + peer.raftAddress() + "? start it with `ration server --config"
            + " <file> --join`; Ratis makes it a voter only once it has caught up)",
            e.leaderAdminAddress());
      }
      throw e;
    }
  }

  /**
   * A Ratis leader elected while a removal was still pending finishes the change with its first
   * entry but keeps, for its whole term, the replication stream it opened to the removed peer
   * (its appenders come from the joint configuration it inherited, and only a leader that
   * commits the joint entry itself drops the leavers' streams). While that stream exists it
   * refuses to stage the same id again ("Found duplicated element"), and it keeps sending the
   * log to a node that is no member. Only a new term starts clean.
   *
   * <p>Run on every node every election timeout ({@link ConsensusNode}); acts only on a leader
   * whose configuration is stable and committed and which streams to a peer that is no member
   * and that it did not stage itself: it hands leadership to an up-to-date voter (or, the only
   * voter, steps down and is elected again), in the background. Soon after such an election,
   * before an operator has wiped and restarted the removed node, the streams are clean again.
   */
  void handOffStaleStreams() {
    try {
      if (!node.isLeader() || handingOff.get() || staleStreamNow().isEmpty()
          || !handingOff.compareAndSet(false, true)) {
        return;
      }
      Thread t = new Thread(this::handOffStaleStreamLocked, "ration-stale-stream-handoff");
      t.setDaemon(true);
      t.start();
    } catch (RuntimeException | Error e) {
      // Never out of the scheduler's periodic task: an exception would cancel it.
      handingOff.set(false);
      LOG.warn("event=stale_replication_stream_check_failed why=\"{}\"", e.toString());
    }
  }

  /**
   * The hand-off itself, under this object's lock (so never in the middle of a change this node
   * is making), after checking again: a change that committed meanwhile may have dropped the
   * stream already (Ratis's leader drops leavers' streams when it commits a joint configuration).
   */
  private synchronized void handOffStaleStreamLocked() {
    try {
      Optional<String> stale = staleStreamNow();
      if (stale.isPresent()) {
        handOff(stale.get(), node.members(), node.options().electionTimeoutMax().multipliedBy(5));
      }
    } catch (MembershipException | RuntimeException e) {
      LOG.warn("event=stale_replication_stream_handoff_failed why=\"{}\"", e.getMessage());
    } finally {
      handingOff.set(false);
    }
  }

  /**
   * The stale stream of this leader, read consistently: a stable, committed configuration, no
   * staging of its own under way (Ratis refuses to hand leadership on while it stages), and the
   * term and configuration unchanged while the followers were read. Empty otherwise.
   */
  private Optional<String> staleStreamNow() {
    try {
      if (!node.isLeader()) {
        return Optional.empty();
      }
      long term = node.currentTerm();
      RaftConfiguration conf = node.division().getRaftConf();
      Members m = node.members();
      if (m.changing() || !committedConfiguration()) {
        return Optional.empty();
      }
      stagedInTerm.values().removeIf(t -> t < term);
      Set<String> streams = followers().keySet();
      if (node.currentTerm() != term || node.division().getRaftConf() != conf) {
        return Optional.empty();
      }
      Optional<String> stale = Optional.empty();
      for (String id : streams) {
        if (stagedHere(id, term)) {
          return Optional.empty();
        }
        if (m.find(id).isEmpty()) {
          stale = Optional.of(id);
        }
      }
      return stale;
    } catch (MembershipException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Whether this node, as leader in {@code term}, asked Ratis to stage {@code id}. */
  private boolean stagedHere(String id, long term) {
    Long t = stagedInTerm.get(id);
    return t != null && t == term;
  }

  /** Terms this node ended because it streamed to a removed peer, since start. */
  public long staleStreamHandoffs() {
    return staleStreamHandoffs.get();
  }

  /**
   * Adding {@code id} while this leader still streams to it as a removed peer: hands leadership
   * on at once (as {@link #handOffStaleStreams} would shortly) and sends the caller to the new
   * leader, whose streams go to members only.
   */
  private void handOffIfStaleStream(String id, Members m, long deadline)
      throws MembershipException {
    if (m.find(id).isPresent() || !followers().containsKey(id)
        || stagedHere(id, node.currentTerm())) {
      return;
    }
    String to = handOff(id, m, Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime())));
    throw new MembershipException(Reason.NOT_LEADER, (to.isEmpty() ? "this node stepped down"
        : "leadership moved to " + to) + ": it still streamed the log to the removed " + id
        + ", which keeps Ratis from adding it again until a new term; ask the leader",
        leaderAdminAddress());
  }

  /**
   * Ends this leader's term because it streams to the removed {@code id}: hands leadership to an
   * up-to-date voter, or steps down when it is the only voter. Returns the voter it handed to
   * ("" after a step-down). With other voters none of which is up to date it does nothing yet
   * (REFUSED): a step-down would only force an election its followers may not win.
   */
  private String handOff(String id, Members m, Duration timeout) throws MembershipException {
    Optional<String> to = upToDateVoters(m).stream().filter(v -> !v.equals(node.selfId()))
        .findFirst();
    boolean alone = m.voters().size() == 1 && m.isVoter(node.selfId());
    if (to.isEmpty() && !alone) {
      throw new MembershipException(Reason.REFUSED, "this leader still streams the log to the"
          + " removed " + id + " and must hand leadership on, but no other voter is up to date"
          + " yet; try again shortly");
    }
    LOG.warn("event=stale_replication_stream peer={} handing_leadership_to={}", id,
        to.orElse("(none: the only voter steps down)"));
    if (to.isPresent()) {
      try {
        transferLeader(to.get(), timeout);
      } catch (MembershipException e) {
        throw new MembershipException(e.reason(), "could not hand leadership on to clear the"
            + " stream to the removed " + id + ": " + e.getMessage(), e.leaderAdminAddress());
      }
      staleStreamHandoffs.incrementAndGet();
      return to.get();
    }
    String why = node.stepDown(timeout);
    if (!why.isEmpty()) {
      throw new MembershipException(Reason.FAILED, "could not step down to clear the stream to"
          + " the removed " + id + ": " + why);
    }
    staleStreamHandoffs.incrementAndGet();
    return "";
  }

  /**
   * Waits until voter {@code id} is in the committed configuration and the leader sees it
   * answering (within an election timeout) with its match index within {@link #CAUGHT_UP_GAP}
   * of the commit index.
   */
  private void awaitVoterCaughtUp(String id, long deadline) throws MembershipException {
    long polls = 0;
    while (true) {
      requireLeader();
      Members m = node.members();
      Follower f = followers().get(id);
      long commit = commitIndex();
      if (!m.changing() && m.isVoter(id) && f != null && upToDate(f, commit)) {
        LOG.info("event=membership_caught_up member={} match_index={} commit_index={} polls={}",
            id, f.matchIndex(), commit, polls);
        return;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new MembershipException(Reason.TIMEOUT, id + " is a voter, but the leader does not"
            + " see it caught up (match index " + (f == null ? "unknown" : f.matchIndex())
            + ", commit index " + commit + ", last answer "
            + (f == null ? "never" : f.lastRpcElapsedMillis() + " ms ago") + "); check it with"
            + " `ration cluster status`, and if it is not running its Raft role, remove it");
      }
      polls++;
      sleep(POLL);
    }
  }

  /**
   * Refuses a voter set that would not contain a majority of up-to-date members, or would
   * contain none. {@code assumedUpToDate} are newcomers that will have caught up first.
   */
  private void checkQuorum(Members current, List<Peer> newVoters, Set<String> assumedUpToDate,
      String what, long deadline) throws MembershipException {
    // A leader elected moments ago has not yet heard from its followers, and a follower's
    // answer may be a heartbeat late on a loaded machine: a refusal is final only after the
    // followers had two election timeouts (or the caller's deadline, if sooner) to answer.
    long settle = System.nanoTime() + node.options().electionTimeoutMax().multipliedBy(2).toNanos();
    long until = deadline - settle < 0 ? deadline : settle;
    while (true) {
      try {
        checkQuorumOnce(current, newVoters, assumedUpToDate, what);
        return;
      } catch (MembershipException e) {
        if (e.reason() != Reason.REFUSED || newVoters.isEmpty()
            || System.nanoTime() - until >= 0) {
          throw e;
        }
      }
      sleep(POLL);
    }
  }

  private void checkQuorumOnce(Members current, List<Peer> newVoters,
      Set<String> assumedUpToDate, String what) throws MembershipException {
    if (newVoters.isEmpty()) {
      throw new MembershipException(Reason.REFUSED,
          what + " would leave no voter: a cluster needs at least one");
    }
    Set<String> upToDate = upToDateVoters(current);
    // Ratis commits a change in the joint configuration: the old voters need their majority too.
    int currentMajority = current.voters().size() / 2 + 1;
    if (upToDate.size() < currentMajority) {
      throw new MembershipException(Reason.REFUSED, what + " cannot commit: the current voters "
          + ids(current.voters()) + " need " + currentMajority + " up to date, but only "
          + upToDate + " are; bring members back, or follow the lost-majority recovery");
    }
    upToDate.addAll(assumedUpToDate);
    Set<String> remainingUpToDate = new TreeSet<>();
    for (Peer p : newVoters) {
      if (upToDate.contains(p.id())) {
        remainingUpToDate.add(p.id());
      }
    }
    int majority = newVoters.size() / 2 + 1;
    if (remainingUpToDate.isEmpty()) {
      throw new MembershipException(Reason.REFUSED, what + " would remove the last up-to-date"
          + " voter: none of " + ids(newVoters) + " is up to date (up to date: " + upToDate + ")");
    }
    if (remainingUpToDate.size() < majority) {
      throw new MembershipException(Reason.REFUSED, what + " would lose the majority: the voters"
          + " would be " + ids(newVoters) + ", a majority is " + majority + ", but only "
          + remainingUpToDate.size() + " of them " + remainingUpToDate + " are up to date"
          + " (within " + CAUGHT_UP_GAP + " entries of the commit index and answering);"
          + " bring a member back or replace a failed one first");
    }
  }

  /**
   * What {@link #upToDateVoters} says for the current voters, for status pages: empty when this
   * node does not lead (or stops leading while looking).
   */
  List<String> upToDateVotersIfLeader() {
    // node.isLeader(), not Ratis's role: a removed leader's closed division still says LEADER
    // but has no follower list.
    if (node.division() == null || !node.isLeader()) {
      return List.of();
    }
    try {
      return List.copyOf(upToDateVoters(node.members()));
    } catch (MembershipException notLeader) {
      return List.of();
    }
  }

  /** The leader itself and every voter that answers and is within the gap. */
  private Set<String> upToDateVoters(Members m) throws MembershipException {
    requireLeader();
    Map<String, Follower> followers = followers();
    long commit = commitIndex();
    Set<String> ids = new TreeSet<>();
    for (Peer p : m.voters()) {
      Follower f = followers.get(p.id());
      if (p.id().equals(node.selfId()) || (f != null && upToDate(f, commit))) {
        ids.add(p.id());
      }
    }
    return ids;
  }

  private boolean upToDate(Follower f, long commit) {
    // One election timeout: a follower that has not answered for that long may be gone, and
    // counting a dead one as up to date would let a change into a joint configuration that
    // cannot commit. A slow but live one only makes the check refuse (the safe side).
    long recentMillis = node.options().electionTimeoutMax().toMillis();
    return f.matchIndex() + CAUGHT_UP_GAP >= commit && f.lastRpcElapsedMillis() <= recentMillis;
  }

  /** A follower as the leader sees it. */
  private record Follower(String id, long matchIndex, long lastRpcElapsedMillis) {}

  /**
   * The leader's followers (voters and listeners) with their match indices. Ratis lists both in
   * its log appenders' order; a change in between is detected by the sizes and read again.
   */
  private Map<String, Follower> followers() throws MembershipException {
    RaftServer.Division d = node.division();
    for (int attempt = 0; attempt < 10; attempt++) {
      RoleInfoProto role = d.getInfo().getRoleInfoProto();
      long[] match = d.getInfo().getFollowerMatchIndices();
      if (!role.hasLeaderInfo() || match == null) {
        throw notLeader();
      }
      List<ServerRpcProto> infos = role.getLeaderInfo().getFollowerInfoList();
      if (infos.size() == match.length) {
        Map<String, Follower> out = new HashMap<>();
        for (int i = 0; i < match.length; i++) {
          String id = infos.get(i).getId().getId().toStringUtf8();
          out.put(id, new Follower(id, match[i], infos.get(i).getLastRpcElapsedTimeMs()));
        }
        return out;
      }
    }
    throw new MembershipException(Reason.FAILED, "the leader's follower list kept changing");
  }

  private long commitIndex() {
    return node.division().getRaftLog().getLastCommittedIndex();
  }

  /**
   * Proposes voters and listeners as the new configuration, compare-and-set against the one it
   * was planned from, and waits for it to commit until {@code deadline}.
   */
  private void setConfiguration(Members planned, List<Peer> voters, List<Peer> listeners,
      long deadline, String what) throws MembershipException {
    requireLeader();
    RaftConfiguration conf = node.division().getRaftConf();
    Collection<RaftPeer> currentVoters = conf.getCurrentPeers(RaftPeerRole.FOLLOWER);
    Collection<RaftPeer> currentListeners = conf.getCurrentPeers(RaftPeerRole.LISTENER);
    if (!sameIds(currentVoters, planned.voters()) || !sameIds(currentListeners, planned.listeners())) {
      throw new MembershipException(Reason.IN_PROGRESS,
          "the configuration changed while planning to " + what + "; now " + describe(node.members()));
    }
    SetConfigurationRequest.Arguments args = SetConfigurationRequest.Arguments.newBuilder()
        .setServersInNewConf(toRaftPeers(voters, currentVoters, currentListeners))
        .setListenersInNewConf(toRaftPeers(listeners, currentVoters, currentListeners))
        .setServersInCurrentConf(List.copyOf(currentVoters))
        .setListenersInCurrentConf(List.copyOf(currentListeners))
        .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
        .build();
    LOG.info("event=membership_change_proposed change=\"{}\" voters={} listeners={}", what,
        ids(voters), ids(listeners));
    RaftClientReply reply;
    try {
      reply = null;
      // A leader just elected (after a transfer, say) answers "not ready" until its first entry
      // commits: that is a wait, not a refusal.
      for (int attempt = 0; reply == null; attempt++) {
        long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        Throwable failure;
        try {
          RaftClientReply r = node.server().setConfigurationAsync(node.setConfigurationRequest(args))
              .get(waitMillis, TimeUnit.MILLISECONDS);
          failure = r.isSuccess() ? null : r.getException();
          if (failure == null || !notReady(failure)) {
            reply = r;
            break;
          }
        } catch (IOException e) {
          failure = e;
        } catch (ExecutionException e) {
          failure = e.getCause() == null ? e : e.getCause();
        }
        if (!notReady(failure) || System.nanoTime() - deadline >= 0 || attempt >= 600) {
          throw fromRatis(what, failure);
        }
        sleep(POLL);
      }
    } catch (TimeoutException e) {
      throw new MembershipException(Reason.TIMEOUT, "timed out waiting to " + what
          + " (Ratis may still finish it; check `ration cluster status`)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipException(Reason.FAILED, "interrupted while waiting to " + what);
    }
    if (!reply.isSuccess()) {
      throw fromRatis(what, reply.getException());
    }
  }

  private static boolean notReady(Throwable e) {
    return e != null && e.getClass().getSimpleName().equals("LeaderNotReadyException");
  }

  private MembershipException fromRatis(String what, Throwable e) {
    String name = e == null ? "" : e.getClass().getSimpleName();
    String message = "could not " + what + ": " + (e == null ? "no reason given" : name + ": " + e.getMessage());
    if (name.equals("NotLeaderException") || name.equals("LeaderNotReadyException")) {
      return new MembershipException(Reason.NOT_LEADER, message, leaderAdminAddress());
    }
    if (name.equals("ReconfigurationInProgressException")) {
      return new MembershipException(Reason.IN_PROGRESS, message);
    }
    return new MembershipException(Reason.FAILED, message);
  }

  /** Existing members keep the RaftPeer Ratis has (with its addresses); newcomers are built. */
  private static List<RaftPeer> toRaftPeers(List<Peer> peers, Collection<RaftPeer> voters,
      Collection<RaftPeer> listeners) {
    List<RaftPeer> out = new ArrayList<>();
    for (Peer p : peers) {
      Predicate<RaftPeer> same = r -> r.getId().toString().equals(p.id());
      Optional<RaftPeer> known = voters.stream().filter(same).findFirst()
          .or(() -> listeners.stream().filter(same).findFirst());
      out.add(known.orElseGet(() -> ConsensusNode.raftPeer(p)));
    }
    return out;
  }

  private static boolean sameIds(Collection<RaftPeer> raft, List<Peer> peers) {
    Set<String> a = new TreeSet<>();
    raft.forEach(r -> a.add(r.getId().toString()));
    return a.equals(new TreeSet<>(ids(peers)));
  }

  /**
   * The configuration, once this leader has committed it: a leader elected while a change was
   * pending holds the new configuration before it commits (and may lose it with its term), so
   * what it says is or is not a member is only an answer once it is committed. Waits for that up
   * to two election timeouts (a leader just elected commits its first entry within one).
   */
  private Members stableMembersOnLeader() throws MembershipException {
    long until = System.nanoTime() + node.options().electionTimeoutMax().multipliedBy(2).toNanos();
    while (true) {
      requireLeader();
      Members m = node.members();
      if (m.changing()) {
        throw new MembershipException(Reason.IN_PROGRESS,
            "a configuration change is in progress (" + describe(m) + "); try again when it ends");
      }
      if (committedConfiguration()) {
        return m;
      }
      if (System.nanoTime() - until >= 0) {
        throw new MembershipException(Reason.IN_PROGRESS, "this leader has not yet committed its"
            + " configuration (" + describe(m) + "); try again shortly");
      }
      sleep(POLL);
    }
  }

  /** Whether this leader is ready (its first entry applied) and its configuration committed. */
  private boolean committedConfiguration() {
    RaftServer.Division d = node.division();
    return d.getInfo().isLeaderReady() && d.getRaftConf().getLogEntryIndex() <= commitIndex();
  }

  private void requireLeader() throws MembershipException {
    if (!node.isLeader()) {
      throw notLeader();
    }
  }

  // Never through node.status(): the status lists the up-to-date voters, which asks this class,
  // which would answer "not the leader" by asking for the status again.
  private MembershipException notLeader() {
    String leader = node.leaderIdOrEmpty();
    return new MembershipException(Reason.NOT_LEADER, "not the leader (leader: "
        + (leader.isEmpty() ? "unknown" : leader) + ")", leaderAdminAddress());
  }

  private String leaderAdminAddress() {
    String leader = node.leaderIdOrEmpty();
    return leader.isEmpty() ? "" : node.members().find(leader).map(Peer::adminAddress).orElse("");
  }

  private static void checkAddresses(Peer peer) throws MembershipException {
    if (peer.id().isBlank() || !peer.id().matches("[A-Za-z0-9._-]{1,64}")) {
      throw new MembershipException(Reason.BAD_REQUEST,
          "member id '" + peer.id() + "' must be 1-64 letters, digits, '.', '_' or '-'");
    }
    for (String[] a : new String[][] {{"raft", peer.raftAddress()},
        {"client", peer.clientAddress()}, {"admin", peer.adminAddress()}}) {
      try {
        ConsensusNode.HostPort hp = ConsensusNode.HostPort.parse(a[1]);
        if (hp.port() < 1 || hp.port() > 65535) {
          throw new IllegalArgumentException("port " + hp.port() + " is outside 1..65535");
        }
      } catch (RuntimeException e) {
        throw new MembershipException(Reason.BAD_REQUEST,
            a[0] + " address '" + a[1] + "' of " + peer.id() + ": " + e.getMessage());
      }
    }
  }

  private static void checkAddressUnused(Members m, Peer peer) throws MembershipException {
    for (Peer p : m.all()) {
      if (!p.id().equals(peer.id()) && p.raftAddress().equals(peer.raftAddress())) {
        throw new MembershipException(Reason.BAD_REQUEST,
            "raft address " + peer.raftAddress() + " is already used by member " + p.id());
      }
    }
  }

  private static List<Peer> without(List<Peer> peers, String id) {
    List<Peer> out = new ArrayList<>();
    for (Peer p : peers) {
      if (!p.id().equals(id)) {
        out.add(p);
      }
    }
    return out;
  }

  private static List<String> ids(List<Peer> peers) {
    return peers.stream().map(Peer::id).toList();
  }

  static String describe(Members m) {
    return "voters " + ids(m.voters())
        + (m.listeners().isEmpty() ? "" : ", listeners " + ids(m.listeners()));
  }

  private static void sleep(Duration d) throws MembershipException {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipException(Reason.FAILED, "interrupted");
    }
  }
}
