package dev.ration.server.observability;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import dev.ration.server.config.Quantities;
import dev.ration.server.consensus.Backups;
import dev.ration.server.consensus.Membership;
import dev.ration.server.consensus.Membership.MembershipException;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;
import dev.ration.server.endpoint.Addresses;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP endpoint (JDK HttpServer, no extra dependencies): {@code /metrics} (Prometheus
 * text), {@code /health} (liveness), {@code /ready} (readiness, see {@link Readiness}),
 * {@code /status} (this node's {@link NodeStatus} as JSON) and {@code POST
 * /transfer-leadership?to=<node id>} (hand leadership to that peer; send it to the leader) and
 * {@code POST /membership/<operation>} ({@link Membership}; send it to the leader).
 * Semantics in docs/OPERATIONS.md.
 *
 * <p>Thread: requests are served by two daemon threads of its own; every handler only reads
 * thread-safe state and never blocks on consensus.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final Supplier<NodeStatus> status;
  private final ServerMetrics metrics;
  private final BooleanSupplier draining;
  private final Readiness readiness;
  private final LeadershipTransfer transfer;
  private final Membership membership;
  private final BackupSource backups;
  private volatile boolean stopped;
  private volatile Guard guard = Guard.OPEN;

  /**
   * Who may use the admin port: empty to serve the request, else the HTTP status and text to
   * answer instead, given what the endpoint reveals or does ({@link Access}).
   */
  @FunctionalInterface
  public interface Guard {
    Optional<Map.Entry<Integer, String>> refuse(HttpExchange exchange, Access access);

    Guard OPEN = (exchange, access) -> Optional.empty();
  }

  /** What an endpoint gives its caller; each class has its own rule in the guard. */
  public enum Access {
    /** /health and /ready: alive and ready or not, and why not; probes carry no credentials. */
    PROBE,
    /** /metrics and /status: tenants, limits, peers and the cluster's shape. */
    READ,
    /** POST /transfer-leadership, /membership/..., GET /snapshot: change or copy the cluster. */
    CHANGE
  }

  /** Takes a checkpoint for GET /snapshot. */
  @FunctionalInterface
  public interface BackupSource {
    Backups.Prepared prepare(boolean stale, Duration timeout) throws Backups.BackupException;
  }

  /** Hands leadership to a peer within a timeout; returns "" on success, else why not. */
  @FunctionalInterface
  public interface LeadershipTransfer {
    String transferTo(String nodeId, java.time.Duration timeout);
  }

  private AdminServer(
      HttpServer server,
      Supplier<NodeStatus> status,
      ServerMetrics metrics,
      BooleanSupplier draining,
      Readiness readiness,
      LeadershipTransfer transfer,
      Membership membership,
      BackupSource backups) {
    this.server = server;
    this.membership = membership;
    this.backups = backups;
    this.status = status;
    this.metrics = metrics;
    this.draining = draining;
    this.readiness = readiness;
    this.transfer = transfer;
    this.executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "ration-admin-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/metrics", guarded(Access.READ, this::metrics));
    server.createContext("/health", guarded(Access.PROBE, this::health));
    server.createContext("/ready", guarded(Access.PROBE, this::ready));
    server.createContext("/status", guarded(Access.READ, this::status));
    server.createContext("/transfer-leadership", guarded(Access.CHANGE, this::transferLeadership));
    server.createContext("/membership/", guarded(Access.CHANGE, this::membership));
    server.createContext("/snapshot", guarded(Access.CHANGE, this::snapshot));
  }

  /**
   * Binds {@code bindAddress} ({@code host:port}; port 0 picks one) and starts serving.
   *
   * @param draining true once the node is shutting down (then /ready answers 503)
   */
  public static AdminServer start(
      String bindAddress,
      Supplier<NodeStatus> status,
      ServerMetrics metrics,
      BooleanSupplier draining,
      Readiness readiness)
      throws IOException {
    return start(bindAddress, status, metrics, draining, readiness, null);
  }

  /** As above; {@code transfer} serves POST /transfer-leadership (null: answered 501). */
  public static AdminServer start(
      String bindAddress,
      Supplier<NodeStatus> status,
      ServerMetrics metrics,
      BooleanSupplier draining,
      Readiness readiness,
      LeadershipTransfer transfer)
      throws IOException {
    return start(bindAddress, status, metrics, draining, readiness, transfer, null, null, null);
  }

  /**
   * As above; {@code membership} serves POST /membership/... and {@code backups} GET /snapshot
   * (null: answered 501). Served over HTTPS with {@code tls} (null: plain HTTP). Client
   * certificates are asked for but not required: a load balancer's health check holding only the
   * CA certificate can still read /health and /ready, and a caller may authenticate with a
   * bearer token instead (the {@link Guard} decides).
   */
  public static AdminServer start(
      String bindAddress,
      Supplier<NodeStatus> status,
      ServerMetrics metrics,
      BooleanSupplier draining,
      Readiness readiness,
      LeadershipTransfer transfer,
      Membership membership,
      BackupSource backups,
      SSLContext tls)
      throws IOException {
    InetSocketAddress bind = Addresses.parse(bindAddress);
    HttpServer server;
    if (tls == null) {
      server = HttpServer.create(bind, 64);
    } else {
      HttpsServer https = HttpsServer.create(bind, 64);
      https.setHttpsConfigurator(new HttpsConfigurator(tls) {
        @Override
        public void configure(HttpsParameters params) {
          SSLParameters p = tls.getDefaultSSLParameters();
          p.setProtocols(new String[] {"TLSv1.3"});
          p.setWantClientAuth(true);
          params.setSSLParameters(p);
        }
      });
      server = https;
    }
    AdminServer admin = new AdminServer(
        server, status, metrics, draining, readiness, transfer, membership, backups);
    server.start();
    log.info("event=admin_started address={}", Addresses.format(admin.localAddress()));
    return admin;
  }

  /** Who may use this port from now on (security mode secure: see docs/SECURITY.md). */
  public void guard(Guard g) {
    this.guard = g;
  }

  private com.sun.net.httpserver.HttpHandler guarded(Access access,
      com.sun.net.httpserver.HttpHandler handler) {
    return ex -> {
      Optional<Map.Entry<Integer, String>> refused = guard.refuse(ex, access);
      if (refused.isPresent()) {
        if (refused.get().getKey() == 401) {
          ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"ration\"");
        }
        respond(ex, refused.get().getKey(), "text/plain; charset=utf-8", refused.get().getValue() + "\n");
        return;
      }
      handler.handle(ex);
    };
  }

  public InetSocketAddress localAddress() {
    return server.getAddress();
  }

  private void metrics(HttpExchange ex) throws IOException {
    respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
  }

  private void health(HttpExchange ex) throws IOException {
    if (stopped) {
      respond(ex, 503, "text/plain; charset=utf-8", "stopping\n");
    } else {
      respond(ex, 200, "text/plain; charset=utf-8", "ok\n");
    }
  }

  private void ready(HttpExchange ex) throws IOException {
    Optional<String> reason;
    try {
      reason = readiness.notReadyBecause(status.get(), draining.getAsBoolean() || stopped);
    } catch (RuntimeException e) {
      reason = Optional.of("status unavailable: " + e);
    }
    if (reason.isEmpty()) {
      respond(ex, 200, "text/plain; charset=utf-8", "ready\n");
    } else {
      respond(ex, 503, "text/plain; charset=utf-8", "not ready: " + reason.get() + "\n");
    }
  }

  private void status(HttpExchange ex) throws IOException {
    String json;
    try {
      json = StatusJson.render(status.get());
    } catch (RuntimeException e) {
      respond(ex, 503, "text/plain; charset=utf-8", "status unavailable: " + e + "\n");
      return;
    }
    respond(ex, 200, "application/json; charset=utf-8", json + "\n");
  }

  /**
   * POST /transfer-leadership?to=&lt;id&gt;: 200 when the peer leads, 409 when this node is not the
   * leader (the body names the leader), 400 for a missing or unknown id, 405 for another method,
   * 503 when the transfer failed. Waits at most 5 s.
   */
  private void transferLeadership(HttpExchange ex) throws IOException {
    if (!"POST".equalsIgnoreCase(ex.getRequestMethod())) {
      respond(ex, 405, "text/plain; charset=utf-8", "POST /transfer-leadership?to=<node id>\n");
      return;
    }
    if (transfer == null) {
      respond(ex, 501, "text/plain; charset=utf-8", "leadership transfer not available\n");
      return;
    }
    String query = ex.getRequestURI().getRawQuery();
    String to = "";
    for (String kv : query == null ? new String[0] : query.split("&")) {
      if (kv.startsWith("to=")) {
        to = java.net.URLDecoder.decode(kv.substring(3), StandardCharsets.UTF_8);
      }
    }
    if (to.isEmpty()) {
      respond(ex, 400, "text/plain; charset=utf-8", "missing ?to=<node id>\n");
      return;
    }
    String why;
    try {
      why = transfer.transferTo(to, java.time.Duration.ofSeconds(5));
    } catch (RuntimeException e) {
      why = "transfer failed: " + e;
    }
    int code = why.isEmpty() ? 200 : why.startsWith("not the leader") ? 409
        : why.startsWith("unknown peer") ? 400 : 503;
    log.info("event=leadership_transfer_requested to={} result={}", to, why.isEmpty() ? "ok" : why);
    respond(ex, code, "text/plain; charset=utf-8", (why.isEmpty() ? "leader: " + to : why) + "\n");
  }

  /** The response header naming the leader's admin address when this node is not the leader. */
  public static final String LEADER_ADMIN_HEADER = "Ration-Leader-Admin";

  /** Longest a membership request may wait: the admin endpoint has only two threads. */
  static final Duration MAX_MEMBERSHIP_WAIT = Duration.ofMinutes(10);

  /**
   * POST /membership/add?id=&amp;raft=&amp;client=&amp;admin=, /membership/remove?id=,
   * /membership/replace?old=&amp;id=&amp;raft=&amp;client=&amp;admin= and
   * /membership/transfer-leader?id=, each with an optional wait=&lt;duration&gt; (default 2m):
   * one {@link Membership} call, answered as "key: value" lines (result, message, voters,
   * listeners). 200 done; 400 bad request; 412 refused as unsafe; 409 another change in
   * progress; 421 not the leader (the {@value #LEADER_ADMIN_HEADER} header names the leader's
   * admin address); 504 timed out; 503 failed; 405 not a POST; 404 unknown operation.
   */
  private void membership(HttpExchange ex) throws IOException {
    String op = ex.getRequestURI().getPath().substring("/membership/".length());
    if (!"POST".equalsIgnoreCase(ex.getRequestMethod())) {
      respond(ex, 405, "text/plain; charset=utf-8", "POST /membership/" + op + "?...\n");
      return;
    }
    if (membership == null) {
      respond(ex, 501, "text/plain; charset=utf-8", "membership changes not available\n");
      return;
    }
    Map<String, String> q = query(ex.getRequestURI().getRawQuery());
    Membership.Change change;
    try {
      Duration wait = Quantities.parseDuration(q.getOrDefault("wait", "2m"));
      if (wait.isNegative() || wait.isZero() || wait.compareTo(MAX_MEMBERSHIP_WAIT) > 0) {
        throw new IllegalArgumentException("wait " + q.get("wait") + " is outside 1ms..10m");
      }
      change = switch (op) {
        case "add" -> membership.add(peer(q, "id"), wait);
        case "remove" -> membership.remove(required(q, "id"), wait);
        case "replace" -> membership.replace(required(q, "old"), peer(q, "id"), wait);
        case "transfer-leader" -> membership.transferLeader(required(q, "id"), wait);
        default -> null;
      };
    } catch (IllegalArgumentException e) {
      respond(ex, 400, "text/plain; charset=utf-8", lines("BAD_REQUEST", e.getMessage(), "", ""));
      return;
    } catch (MembershipException e) {
      int code = switch (e.reason()) {
        case NOT_LEADER -> 421;
        case BAD_REQUEST -> 400;
        case REFUSED -> 412;
        case IN_PROGRESS -> 409;
        case TIMEOUT -> 504;
        case FAILED -> 503;
      };
      if (!e.leaderAdminAddress().isEmpty()) {
        ex.getResponseHeaders().set(LEADER_ADMIN_HEADER, e.leaderAdminAddress());
      }
      log.warn("event=membership_request_failed op={} reason={} message=\"{}\"", op, e.reason(),
          e.getMessage());
      respond(ex, code, "text/plain; charset=utf-8", lines(e.reason().name(), e.getMessage(), "", ""));
      return;
    }
    if (change == null) {
      respond(ex, 404, "text/plain; charset=utf-8",
          "unknown membership operation '" + op + "': add, remove, replace or transfer-leader\n");
      return;
    }
    respond(ex, 200, "text/plain; charset=utf-8", lines("ok", change.message(),
        describe(change.voters()), describe(change.listeners())));
  }

  /**
   * GET /snapshot[?stale=true]: a backup archive (application/zip, streamed) of a consistent
   * checkpoint; headers Ration-Applied-Term and Ration-Applied-Index name its save point. Without
   * stale only the leader answers (421 with {@value #LEADER_ADMIN_HEADER} elsewhere), after
   * applying everything committed when the request arrived. 503 when it could not be taken.
   */
  private void snapshot(HttpExchange ex) throws IOException {
    if (!"GET".equalsIgnoreCase(ex.getRequestMethod())) {
      respond(ex, 405, "text/plain; charset=utf-8", "GET /snapshot[?stale=true]\n");
      return;
    }
    if (backups == null) {
      respond(ex, 501, "text/plain; charset=utf-8", "backups not available\n");
      return;
    }
    boolean stale = "true".equals(query(ex.getRequestURI().getRawQuery()).get("stale"));
    Backups.Prepared prepared;
    try {
      prepared = backups.prepare(stale, Duration.ofSeconds(30));
    } catch (Backups.BackupException e) {
      if (!e.leaderAdminAddress().isEmpty()) {
        ex.getResponseHeaders().set(LEADER_ADMIN_HEADER, e.leaderAdminAddress());
      }
      respond(ex, e.notLeader() ? 421 : 503, "text/plain; charset=utf-8", e.getMessage() + "\n");
      return;
    }
    try (prepared; ex) {
      ex.getResponseHeaders().set("Content-Type", "application/zip");
      ex.getResponseHeaders().set("Ration-Applied-Term", Long.toString(prepared.header().term()));
      ex.getResponseHeaders().set("Ration-Applied-Index", Long.toString(prepared.header().index()));
      ex.sendResponseHeaders(200, 0);
      try (OutputStream out = ex.getResponseBody()) {
        prepared.writeTo(out);
      }
      log.info("event=backup_sent term={} index={} stale={}", prepared.header().term(),
          prepared.header().index(), stale);
    }
  }

  private static String lines(String result, String message, String voters, String listeners) {
    return "result: " + result + "\nmessage: " + message.replace('\n', ' ') + "\nvoters: " + voters
        + "\nlisteners: " + listeners + "\n";
  }

  /** id=raft/client/admin, comma-separated. */
  private static String describe(List<Peer> peers) {
    StringBuilder b = new StringBuilder();
    for (Peer p : peers) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(p.id()).append('=').append(p.raftAddress()).append('/').append(p.clientAddress())
          .append('/').append(p.adminAddress());
    }
    return b.toString();
  }

  private static Peer peer(Map<String, String> q, String idKey) {
    return new Peer(required(q, idKey), required(q, "raft"), required(q, "client"), required(q, "admin"));
  }

  private static String required(Map<String, String> q, String key) {
    String v = q.get(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("missing ?" + key + "=");
    }
    return v.trim();
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    for (String kv : raw == null ? new String[0] : raw.split("&")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        out.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static void respond(HttpExchange ex, int code, String contentType, String body)
      throws IOException {
    try (ex) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", contentType);
      if ("HEAD".equalsIgnoreCase(ex.getRequestMethod())) {
        ex.sendResponseHeaders(code, -1);
        return;
      }
      ex.sendResponseHeaders(code, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** Stops serving at once (the last step of a graceful shutdown). */
  @Override
  public void close() {
    if (stopped) {
      return;
    }
    stopped = true;
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.info("event=admin_stopped");
  }
}
