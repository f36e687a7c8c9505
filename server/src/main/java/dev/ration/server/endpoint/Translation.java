package dev.ration.server.endpoint;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Kind;
import dev.ration.protocol.Names;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;
import dev.ration.wire.lease.SlotStatus;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Maps wire requests to state-machine commands and queries, and state-machine answers back to
 * wire responses. The one place where the protocol's vocabulary meets the ledger's.
 *
 * <p>Validation here is a courtesy, not the guard: a request that is obviously wrong (a bad
 * name, a negative amount, an unknown mode code) is answered INVALID_ARGUMENT without taking a
 * place in the Raft log; the state machine re-validates everything it applies. Stateless and
 * thread-safe.
 */
public final class Translation {

  /** What the endpoint does with a decoded request. */
  public sealed interface Action {}

  /** Propose through group commit under the connection's request key. */
  public record Mutation(Command command) implements Action {}

  /** Ask the state, linearizably unless {@code stale}. */
  public record Read(Query query, boolean stale) implements Action {}

  /** Answer from this node's own view (CLUSTER_STATUS). */
  public record LocalStatus() implements Action {}

  /** Refuse with INVALID_ARGUMENT; {@code message} names the field and value. */
  public record Invalid(String message) implements Action {}

  /** Answered by the connection: who it is authenticated as. */
  public record WhoAmI() implements Action {}

  /** A TTL watch poll (a long poll the coordinator answers, not a query of the state). */
  public record WatchTtl(String namespace, long fromIndex, long waitMillis, List<String> keys,
      boolean confirm) implements Action {}

  private final int maxNameBytes;
  private final Operations operations;

  /** @param maxNameBytes the state machine's name bound (StateOptions.maxNameBytes) */
  public Translation(int maxNameBytes) {
    if (maxNameBytes < 1) {
      throw new IllegalArgumentException("maxNameBytes " + maxNameBytes + " < 1");
    }
    this.maxNameBytes = maxNameBytes;
    Operations ops = new Operations()
        .on(Kind.HELLO, Request.Hello.class,
            r -> new Invalid("HELLO is answered by the connection, once, first"))
        .on(Kind.SET_LIMIT, Request.SetLimit.class, this::setLimit)
        .on(Kind.GET_LIMIT, Request.GetLimit.class, r -> firstProblem(
                name("tenant", r.tenant()), name("resource", r.resource()))
            .<Action>map(Invalid::new)
            .orElseGet(() -> new Read(new Query.GetLimit(r.tenant(), r.resource()), r.stale())))
        .on(Kind.LIST_LIMITS, Request.ListLimits.class,
            r -> new Read(new Query.ListLimits(), r.stale()))
        .on(Kind.ACQUIRE_LEASE, Request.AcquireLease.class, r -> checked(r, AcquireLease.class,
            name("tenant", r.tenant()),
            name("resource", r.resource()),
            name("holder", r.holder()),
            nonNegative("demandRatePerSecond", r.demandRatePerSecond()),
            nonNegative("demandBurst", r.demandBurst())))
        .on(Kind.RENEW_LEASE, Request.RenewLease.class, r -> renewalProblem(r)
            .<Action>map(Invalid::new)
            .orElseGet(() -> new Mutation(SameFields.copy(r, RenewLease.class))))
        .on(Kind.RENEW_LEASES, Request.RenewLeases.class, this::renewLeases)
        .on(Kind.RETURN_LEASE, Request.ReturnLease.class, r -> firstProblem(
            nonNegative("leaseId", r.leaseId()),
            nonNegative("presentedVersion", r.presentedVersion()),
            nonNegative("unusedBalance", r.unusedBalance()))
            .<Action>map(Invalid::new)
            // A return from a client frees the lease only at the version it presents.
            .orElseGet(() -> new Mutation(
                new ReturnLease(r.leaseId(), r.presentedVersion(), r.unusedBalance()))))
        .on(Kind.LIST_LEASES, Request.ListLeases.class, this::listLeases)
        .on(Kind.CLUSTER_STATUS, Request.ClusterStatus.class, r -> new LocalStatus())
        .on(Kind.CANCEL, Request.Cancel.class,
            r -> new Invalid("CANCEL is answered by the connection that sent the request"))
        .on(Kind.SET_LIMIT_CONCURRENCY, Request.SetLimitConcurrency.class,
            r -> nonNegative("concurrency", r.concurrency()).<Action>map(Invalid::new)
                .orElseGet(() -> setLimit(new Request.SetLimit(r.limit())) instanceof Invalid bad
                    ? bad
                    : new Mutation(new SetLimitConcurrency(r.limit(), r.concurrency()))))
        .on(Kind.ACQUIRE_SLOTS, Request.AcquireSlots.class, r -> checked(r, AcquireSlots.class,
            name("tenant", r.tenant()),
            name("resource", r.resource()),
            name("holder", r.holder()),
            nonNegative("demandSlots", r.demandSlots())))
        .on(Kind.RENEW_SLOTS, Request.RenewSlots.class, this::renewSlots)
        .on(Kind.GET_SLOTS, Request.GetSlots.class, r -> firstProblem(
                name("tenant", r.tenant()), name("resource", r.resource()))
            .<Action>map(Invalid::new)
            .orElseGet(() -> new Read(new Query.GetSlots(r.tenant(), r.resource()), r.stale())));
    TtlTranslation.register(ops);
    QuotaTranslation.register(ops);
    SecurityTranslation.register(ops);
    this.operations = ops.complete();
  }

  /** Decides what to do with {@code request}: its kind's handler does. */
  public Action toAction(Request request) {
    return operations.act(request);
  }

  /** The mutation kinds served by a copy into their same-component command, and that command. */
  public java.util.Map<Kind, Class<? extends Command>> derivedKinds() {
    return operations.derived();
  }

  /** The command with {@code request}'s components, unless a check finds a problem first. */
  @SafeVarargs
  private static Action checked(
      Record request, Class<? extends Command> command, Optional<String>... checks) {
    return firstProblem(checks).<Action>map(Invalid::new)
        .orElseGet(() -> new Mutation(SameFields.copy(request, command)));
  }

  private static Optional<String> renewalProblem(Request.RenewLease r) {
    return firstProblem(
        nonNegative("leaseId", r.leaseId()),
        nonNegative("presentedVersion", r.presentedVersion()),
        nonNegative("demandRatePerSecond", r.demandRatePerSecond()),
        nonNegative("demandBurst", r.demandBurst()),
        nonNegative("admittedPerSecond", r.admittedPerSecond()),
        nonNegative("rejectedPerSecond", r.rejectedPerSecond()),
        nonNegative("emergencyUsed", r.emergencyUsed()));
  }

  /** A bad renewal refuses the whole frame: the caller built it, and must fix it, not retry. */
  private Action renewLeases(Request.RenewLeases batch) {
    int n = batch.renewals().size();
    if (n < 1 || n > RenewLeases.MAX_RENEWALS) {
      return new Invalid(n + " renewals in one batch, allowed 1 to " + RenewLeases.MAX_RENEWALS);
    }
    List<RenewLease> renewals = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Request.RenewLease r = batch.renewals().get(i);
      Optional<String> p = renewalProblem(r);
      if (p.isPresent()) {
        return new Invalid("renewal " + i + " (lease " + r.leaseId() + "): " + p.get());
      }
      renewals.add(SameFields.copy(r, RenewLease.class));
    }
    return new Mutation(new RenewLeases(renewals));
  }

  /** As RENEW_LEASES: a bad renewal refuses the whole frame before it is proposed. */
  private Action renewSlots(Request.RenewSlots batch) {
    int n = batch.renewals().size();
    if (n < 1 || n > RenewSlots.MAX_RENEWALS) {
      return new Invalid(n + " slot renewals in one batch, allowed 1 to " + RenewSlots.MAX_RENEWALS);
    }
    List<SlotRenewal> renewals = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Request.SlotRenewal r = batch.renewals().get(i);
      Optional<String> p = firstProblem(
          nonNegative("leaseId", r.leaseId()),
          nonNegative("presentedVersion", r.presentedVersion()),
          nonNegative("running", r.running()),
          nonNegative("queued", r.queued()),
          r.release() < SlotRenewal.NO_RELEASE
              ? Optional.of("release " + r.release() + " < -1") : Optional.empty());
      if (p.isPresent()) {
        return new Invalid("slot renewal " + i + " (lease " + r.leaseId() + "): " + p.get());
      }
      renewals.add(SameFields.copy(r, SlotRenewal.class));
    }
    return new Mutation(new RenewSlots(renewals));
  }

  private Action listLeases(Request.ListLeases r) {
    // Both empty lists every lease; otherwise both must be names.
    if (r.tenant().isEmpty() && r.resource().isEmpty()) {
      return new Read(new Query.ListLeases("", ""), r.stale());
    }
    return firstProblem(name("tenant", r.tenant()), name("resource", r.resource()))
        .<Action>map(Invalid::new)
        .orElseGet(() -> new Read(new Query.ListLeases(r.tenant(), r.resource()), r.stale()));
  }

  private Action setLimit(Request.SetLimit request) {
    Limit r = request.limit();
    Optional<String> p =
        firstProblem(
            name("tenant", r.tenant()),
            name("resource", r.resource()),
            nonNegative("ratePerSecond", r.ratePerSecond()),
            nonNegative("burst", r.burst()),
            positive("leaseDurationMillis", r.leaseDurationMillis()),
            nonNegative("graceMillis", r.graceMillis()),
            nonNegative("emergency", r.emergency()),
            nonNegative("expectedVersion", r.version()),
            known("mode", r.mode()),
            known("policy", r.policy()));
    if (p.isPresent()) {
      return new Invalid(p.get());
    }
    return new Mutation(new SetLimit(r));
  }

  // ---------------------------------------------------------------- answers

  /**
   * The wire reply to a mutation whose replicated result is {@code result}; {@code request}
   * supplies what a rejection does not carry (the lease id of a return). See {@link Replies}.
   */
  public Response toResponse(Request request, Result result) {
    return Replies.toMutation(request, result);
  }

  /** The wire reply to a read of {@code kind}. See {@link Replies}. */
  public Response toResponse(Kind kind, QueryResult result) {
    return Replies.toRead(kind, result);
  }

  /** CLUSTER_STATUS from this node's own view. Only this node's role is known for sure. */
  public static Response.ClusterStatusReply toResponse(NodeStatus s) {
    List<Response.PeerInfo> peers = new ArrayList<>(s.peers().size());
    for (Peer p : s.peers()) {
      String role;
      if (p.id().equals(s.nodeId())) {
        role = s.role();
      } else if (s.listeners().contains(p.id())) {
        role = "LISTENER";
      } else if (p.id().equals(s.leaderId())) {
        role = "LEADER";
      } else {
        role = "UNKNOWN";
      }
      peers.add(new Response.PeerInfo(p.id(), p.raftAddress(), p.clientAddress(), role));
    }
    return new Response.ClusterStatusReply(
        s.nodeId(),
        s.role(),
        s.term(),
        s.commitIndex(),
        s.appliedIndex(),
        s.leaderId(),
        s.leaderClientAddress(),
        s.ledgerNowMillis(),
        s.epoch(),
        peers);
  }

  /** Protocol and state-machine outcomes share their numbers (append-only on both sides). */
  public static dev.ration.wire.Outcome wireOutcome(
      dev.ration.wire.Outcome outcome) {
    return dev.ration.wire.Outcome.fromCode(outcome.code());
  }

  /**
   * A SET_LIMIT answer carries the new configuration only: its ledger figures are zero and its
   * ceilings equal R and B (GET_LIMIT reports the live ledger).
   */
  public static LimitStatus configured(Limit l) {
    return new LimitStatus(l, 0, 0, 0, 0, 0, 0, 0, l.ratePerSecond(), l.burst(), 0);
  }

  // ---------------------------------------------------------------- checks

  private Optional<String> name(String field, String value) {
    Optional<String> p = Names.problem(field, value);
    if (p.isPresent()) {
      return p;
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxNameBytes) {
      return Optional.of(field + " is " + bytes + " UTF-8 bytes, max " + maxNameBytes);
    }
    return Optional.empty();
  }

  private static Optional<String> nonNegative(String field, long value) {
    return value < 0 ? Optional.of(field + " " + value + " < 0") : Optional.empty();
  }

  private static Optional<String> positive(String field, long value) {
    return value <= 0 ? Optional.of(field + " " + value + " <= 0") : Optional.empty();
  }

  /** The codec refuses unknown codes, so only a value built in process can be missing. */
  private static Optional<String> known(String field, Enum<?> value) {
    return value == null ? Optional.of(field + " is not set") : Optional.empty();
  }

  @SafeVarargs
  private static Optional<String> firstProblem(Optional<String>... checks) {
    for (Optional<String> c : checks) {
      if (c.isPresent()) {
        return c;
      }
    }
    return Optional.empty();
  }
}
