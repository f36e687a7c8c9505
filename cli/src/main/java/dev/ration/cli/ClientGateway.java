package dev.ration.cli;

import dev.ration.client.transport.RawClient;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.tls.ClientTls;
import dev.ration.client.RationException;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The production {@link ClusterGateway}: one {@link RationClient} per command, whose deadline is
 * --timeout and whose retries (following NOT_LEADER, rotating over --servers, same request id)
 * are the client library's. Failures become one readable line: "cannot reach any server of ..."
 * when no server accepted a connection, otherwise the client's code and message.
 */
final class ClientGateway implements ClusterGateway {
  /** Extra wait beyond the client's own deadline before giving up on a future that never completes. */
  private static final Duration WAIT_SLACK = Duration.ofSeconds(5);
  /** The connect timeout of the default --timeout (5s): leaves time to try another server. */
  private static final Duration CONNECT_TIMEOUT_FLOOR = Duration.ofSeconds(3);

  private final RationClient client;
  private final List<String> servers;
  private final Duration timeout;
  /** The server that answered the previous command of this list, asked first; null: none kept. */
  private final LeaderHint hint;
  /** Whether a call was answered where the client now is: only then is that worth remembering. */
  private volatile boolean answered;

  private ClientGateway(RationClient client, List<String> servers, Duration timeout, LeaderHint hint) {
    this.client = client;
    this.servers = List.copyOf(servers);
    this.timeout = timeout;
    this.hint = hint;
  }

  /** The CLI's factory: plaintext or TLS as the command's options say, with their token if any. */
  static final ClusterGateway.Factory FACTORY = new ClusterGateway.Factory() {
    @Override
    public ClusterGateway open(List<String> servers, Duration timeout, Optional<ClientIdentity> clientId) {
      return ClientGateway.open(servers, timeout, clientId, Optional.empty(), "");
    }

    @Override
    public ClusterGateway open(List<String> servers, Duration timeout,
        Optional<ClientIdentity> clientId, Optional<ClientTls> tls, String token) {
      return ClientGateway.open(servers, timeout, clientId, tls, token);
    }
  };

  static ClusterGateway open(List<String> servers, Duration timeout, Optional<ClientIdentity> clientId) {
    return open(servers, timeout, clientId, Optional.empty(), "");
  }

  static ClusterGateway open(List<String> servers, Duration timeout,
      Optional<ClientIdentity> clientId, Optional<ClientTls> tls, String token) {
    LeaderHint hint = servers.size() < 2 ? null
        : LeaderHint.userDir(System.getenv()).map(dir -> LeaderHint.of(dir, servers)).orElse(null);
    RationClientOptions.Builder b = RationClientOptions.builder()
        .token(token)
        .addresses(hint == null ? servers : hint.ordered())
        .requestDeadline(timeout)
        .connectTimeout(connectTimeout(timeout));
    clientId.ifPresent(id -> b.clientId(id.high(), id.low()));
    tls.ifPresent(b::tls);
    RationClient client;
    try {
      client = new RationClient(b.build());
    } catch (IllegalArgumentException e) {
      // A missing or bad certificate file: the user's to fix, named in the message.
      throw new CliFailure(Exit.USAGE, e.getMessage(), e);
    }
    return new ClientGateway(client, servers, timeout, hint);
  }

  /**
   * How long connecting (TCP, TLS handshake and HELLO) to one server may take: half of
   * --timeout, at least 3s, at most --timeout. A longer --timeout raises it, so a cold node's
   * first TLS handshake can be waited for; the default 5s keeps 3s and leaves time to try
   * another server when one does not answer.
   */
  static Duration connectTimeout(Duration timeout) {
    Duration half = timeout.dividedBy(2);
    Duration wanted = half.compareTo(CONNECT_TIMEOUT_FLOOR) > 0 ? half : CONNECT_TIMEOUT_FLOOR;
    return wanted.compareTo(timeout) < 0 ? wanted : timeout;
  }

  @Override
  public Response call(Request request, Optional<Long> requestId) throws GatewayException {
    CompletableFuture<Response> f = requestId.isPresent()
        ? RawClient.of(client).call(requestId.get(), request, timeout)
        : RawClient.of(client).call(request, timeout);
    Response r = await(f, "any server of " + String.join(",", servers));
    // Answered by the server the client is on (a NOT_LEADER it could not follow is an error).
    answered = !(r instanceof Response.Error e && e.code() == ErrorCode.NOT_LEADER);
    return r;
  }

  @Override
  public Response.ClusterStatusReply status(String address) throws GatewayException {
    return await(RawClient.of(client).clusterStatus(address), address);
  }

  /** All servers asked at once: their TLS handshakes overlap, and unreachable ones time out together. */
  @Override
  public java.util.List<StatusAnswer> statusOfEach(java.util.List<String> addresses) {
    java.util.List<CompletableFuture<Response.ClusterStatusReply>> asked =
        addresses.stream().map(a -> RawClient.of(client).clusterStatus(a)).toList();
    java.util.List<StatusAnswer> answers = new java.util.ArrayList<>();
    for (int i = 0; i < addresses.size(); i++) {
      try {
        answers.add(new StatusAnswer(addresses.get(i), await(asked.get(i), addresses.get(i)), null));
      } catch (GatewayException e) {
        answers.add(new StatusAnswer(addresses.get(i), null, e));
      }
    }
    return answers;
  }

  @Override
  public void close() {
    if (hint != null && answered) {
      hint.remember(client.currentAddress());
    }
    client.close();
  }

  private <T> T await(CompletableFuture<T> f, String target) throws GatewayException {
    try {
      return f.get(timeout.plus(WAIT_SLACK).toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GatewayException(ErrorCode.UNAVAILABLE, false, 0, "interrupted while waiting for " + target, e);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new GatewayException(ErrorCode.DEADLINE_EXCEEDED, false, 0,
          "no answer from " + target + " within " + Tables.duration(timeout.toMillis()), e);
    } catch (ExecutionException e) {
      throw translate(e.getCause(), target);
    }
  }

  private static GatewayException translate(Throwable t, String target) {
    if (!(t instanceof RationException re)) {
      return new GatewayException(ErrorCode.INTERNAL, false, 0, "client failure: " + t, t);
    }
    long retryAfterMillis = re.retryAfter().toMillis();
    Optional<ConnectException> refused = connectFailure(re);
    if (refused.isPresent() && (re.code() == ErrorCode.UNAVAILABLE || re.code() == ErrorCode.DEADLINE_EXCEEDED)) {
      return new GatewayException(re.code(), re.definite(), retryAfterMillis,
          "cannot reach " + target + " (" + reason(refused.get()) + ")", re);
    }
    String message = re.getMessage()
        + (retryAfterMillis > 0 ? " (retry after " + Tables.duration(retryAfterMillis) + ")" : "");
    return new GatewayException(re.code(), re.definite(), retryAfterMillis, message, re);
  }

  private static Optional<ConnectException> connectFailure(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof ConnectException c) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** "Connection refused: /127.0.0.1:7101" becomes "connection refused". */
  private static String reason(ConnectException e) {
    String m = e.getMessage() == null ? "connection failed" : e.getMessage();
    int colon = m.indexOf(':');
    return (colon > 0 ? m.substring(0, colon) : m).toLowerCase(Locale.ROOT);
  }
}
