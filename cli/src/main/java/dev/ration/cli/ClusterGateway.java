package dev.ration.cli;

import dev.ration.client.tls.ClientTls;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How an admin command reaches the cluster: the seam between the CLI's parsing and printing and
 * the client library ({@link ClientGateway} in production, a fake in tests). One gateway serves
 * one command invocation; it is used from the picocli thread only.
 */
interface ClusterGateway extends AutoCloseable {

  /**
   * Sends {@code request} to the cluster (the leader for mutations, following NOT_LEADER) and
   * returns the reply, never a {@link Response.Error}: failures the client library gave up on
   * are thrown. {@code requestId}, when present, is used as the request's idempotency
   * id (a tester resending on purpose); otherwise the client mints one.
   *
   * @throws GatewayException when no reply came back (unreachable, timed out, a protocol error)
   */
  Response call(Request request, Optional<Long> requestId) throws GatewayException;

  /** Asks exactly the server at {@code address} for its status, without redirection. */
  Response.ClusterStatusReply status(String address) throws GatewayException;

  /**
   * Asks each server in {@code addresses} for its status, without redirection: one answer per
   * address, in order. This asks them one by one; a gateway that can asks them all at once.
   */
  default java.util.List<StatusAnswer> statusOfEach(java.util.List<String> addresses) {
    java.util.List<StatusAnswer> answers = new java.util.ArrayList<>();
    for (String address : addresses) {
      try {
        answers.add(new StatusAnswer(address, status(address), null));
      } catch (GatewayException e) {
        answers.add(new StatusAnswer(address, null, e));
      }
    }
    return answers;
  }

  /**
   * The cluster's ledger time now, to show ledger times as instants: the leader's log clock when
   * the leader can be asked (a follower's lags by up to a tick), else the answering server's.
   */
  default long ledgerNowMillis() throws GatewayException {
    Response reply = call(new Request.ClusterStatus(), Optional.empty());
    if (!(reply instanceof Response.ClusterStatusReply s)) {
      throw new GatewayException(ErrorCode.INTERNAL, true, 0,
          "unexpected reply to CLUSTER_STATUS: " + reply.getClass().getSimpleName(), null);
    }
    if (!"LEADER".equals(s.role()) && !s.leaderAddress().isEmpty()) {
      try {
        Response.ClusterStatusReply leader = status(s.leaderAddress());
        if ("LEADER".equals(leader.role()) && leader.ledgerNowMillis() >= 0) {
          return leader.ledgerNowMillis();
        }
      } catch (GatewayException e) {
        // The answering server's clock is close enough.
      }
    }
    if (s.ledgerNowMillis() < 0) {
      throw new GatewayException(ErrorCode.UNAVAILABLE, false, 0, s.serverId() + " knows no ledger time yet", null);
    }
    return s.ledgerNowMillis();
  }

  /** One server's status: its reply, or why there is none. */
  record StatusAnswer(String address, Response.ClusterStatusReply reply, GatewayException failure) {}

  @Override
  void close();

  /** Opens a gateway; connecting may be lazy. */
  @FunctionalInterface
  interface Factory {
    ClusterGateway open(List<String> servers, Duration timeout, Optional<ClientIdentity> clientId)
        throws GatewayException;

    /**
     * Opens a gateway over TLS when {@code tls} is present, authenticating with the bearer
     * {@code token} (empty: none). Gateways without a network (a test's fake) ignore both.
     */
    default ClusterGateway open(List<String> servers, Duration timeout,
        Optional<ClientIdentity> clientId, Optional<ClientTls> tls, String token)
        throws GatewayException {
      return open(servers, timeout, clientId);
    }
  }

  /** A 128-bit client id as sent in HELLO, from {@code --client-id} (32 hex digits). */
  record ClientIdentity(long high, long low) {
    static ClientIdentity parseHex(String hex) {
      String h = hex.startsWith("0x") || hex.startsWith("0X") ? hex.substring(2) : hex;
      h = h.replace("-", "");
      if (!h.matches("[0-9a-fA-F]{1,32}")) {
        throw new IllegalArgumentException(
            "'" + hex + "' is not a client id (up to 32 hex digits, dashes allowed, e.g. a UUID)");
      }
      String padded = "0".repeat(32 - h.length()) + h;
      return new ClientIdentity(
          Long.parseUnsignedLong(padded.substring(0, 16), 16),
          Long.parseUnsignedLong(padded.substring(16), 16));
    }

    String hex() {
      return String.format("%016x%016x", high, low);
    }
  }

  /**
   * The call produced no reply: the client library's failure, with its error code, whether it
   * was definite (certainly no effect) and the server's retry-after hint. The CLI exits 2 for a
   * definite failure of a definite kind (NOT_LEADER, INVALID_ARGUMENT, OVERLOADED...) and 3
   * otherwise (unreachable, UNAVAILABLE, DEADLINE_EXCEEDED: try again, with the same ids for a
   * mutation).
   */
  final class GatewayException extends Exception {
    private static final long serialVersionUID = 1L;
    private final ErrorCode code;
    private final boolean definite;
    private final long retryAfterMillis;

    GatewayException(ErrorCode code, boolean definite, long retryAfterMillis, String message, Throwable cause) {
      super(message, cause);
      this.code = code;
      this.definite = definite;
      this.retryAfterMillis = retryAfterMillis;
    }

    ErrorCode code() {
      return code;
    }

    boolean definite() {
      return definite;
    }

    long retryAfterMillis() {
      return retryAfterMillis;
    }

    int exitCode() {
      return definite && code.definite() ? Exit.FAILED : Exit.INDETERMINATE;
    }
  }
}
