package dev.ration.server.endpoint;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.security.Scope;
import dev.ration.server.security.Scopes;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Decides whether a request of one connection is served now or refused now; a request never
 * waits for a place, because a waiting request would hold its connection's memory and delay
 * the requests queued behind it.
 *
 * <p>Three bounds, asked in this order: the node-wide {@link AdmissionGate} (a draining node
 * refuses everything with UNAVAILABLE, naming the leader, before the request is even
 * translated), the connection's in-flight cap, then the request's tenant share in {@link
 * TenantShares} (whose share a request takes: {@link Fairness}). The last two
 * refuse with OVERLOADED and a short retry-after, which the client retries under the same
 * request id.
 *
 * <p>Thread: called on the connection's event loop; the gate and the tenant shares it updates
 * are shared by every connection and thread-safe. It holds no state of its own: the connection
 * passes its in-flight count in. Invariant: every {@link Admitted} is released exactly once
 * (the handler's answered-once flag guarantees it), which gives back its place in the gate and,
 * if it holds one, its place in its tenant's share.
 */
final class Admission {
  /** Retry-after sent with a per-connection or per-tenant OVERLOADED: one in-flight answer is usually that near. */
  static final int OVERLOADED_RETRY_AFTER_MILLIS = 20;
  /** Retry-after sent while shutting down: about the time for leadership to move. */
  static final int SHUTDOWN_RETRY_AFTER_MILLIS = 1_000;

  private final AdmissionGate gate;
  private final Supplier<String> leaderAddress;

  /** Whether a request is served, and if so what it holds until it is answered. */
  sealed interface Decision permits Admitted, Refused {}

  /** Served: holds a place in the gate and, unless {@code tenant} is "", in that tenant's share. */
  record Admitted(String tenant) implements Decision {}

  /** Refused now: the error to answer with. */
  record Refused(ErrorCode code, String message, String leaderAddress, int retryAfterMillis)
      implements Decision {
    Response.Error toResponse() {
      return ErrorReplies.error(code, message, leaderAddress, retryAfterMillis);
    }
  }

  /**
   * @param leaderAddress the leader's client address as this node knows it (asked only when a
   *     draining node refuses, so the client can move on at once)
   */
  Admission(AdmissionGate gate, Supplier<String> leaderAddress) {
    this.gate = gate;
    this.leaderAddress = leaderAddress;
  }

  /** The refusal of every request once the node began shutting down; empty while it serves. */
  Optional<Refused> checkDraining() {
    if (!gate.draining()) {
      return Optional.empty();
    }
    return Optional.of(
        new Refused(ErrorCode.UNAVAILABLE, "node is shutting down", leaderAddress.get(), SHUTDOWN_RETRY_AFTER_MILLIS));
  }

  /**
   * Takes the places {@code request} needs, or none if one of them is full.
   *
   * @param inFlightOnConnection requests of this connection admitted and not yet answered
   */
  Decision admit(int inFlightOnConnection, Request request, String session) {
    return admit(inFlightOnConnection, request, Scopes.of(request), session);
  }

  /**
   * As {@link #admit(int, Request, String)}, with the request's {@code scope} already found
   * ({@link Scopes#of}) for authorization: it is not looked up a second time.
   */
  Decision admit(int inFlightOnConnection, Request request, Scope scope, String session) {
    int max = gate.options().maxInFlightPerConnection();
    if (inFlightOnConnection >= max) {
      return new Refused(ErrorCode.OVERLOADED,
          "connection has " + inFlightOnConnection + " requests in flight, max " + max,
          "", OVERLOADED_RETRY_AFTER_MILLIS);
    }
    // A tenant past its share is refused before it takes a place in the gate or the queue.
    String tenant = Fairness.keyOf(gate.options().tenantFairness(), request, scope, session);
    TenantShares shares = gate.tenantShares();
    if (!tenant.isEmpty() && !shares.tryAcquire(tenant)) {
      return new Refused(ErrorCode.OVERLOADED,
          Fairness.describe(tenant) + " has " + shares.maxInFlightPerTenant()
              + " requests in flight, its share of this node",
          "", OVERLOADED_RETRY_AFTER_MILLIS);
    }
    gate.acquired();
    return new Admitted(tenant);
  }

  /** Gives back what {@code admitted} holds; call once, when its request is answered or dropped. */
  void release(Admitted admitted) {
    if (!admitted.tenant().isEmpty()) {
      gate.tenantShares().release(admitted.tenant());
    }
    gate.released();
  }
}
