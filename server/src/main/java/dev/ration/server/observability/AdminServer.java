package dev.ration.server.observability;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.endpoint.Addresses;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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
 * /transfer-leadership?to=<node id>} (hand leadership to that peer; send it to the leader).
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
  private volatile boolean stopped;
  private volatile Guard guard = Guard.OPEN;

  /**
   * Who may use the admin port: empty to serve the request, else the HTTP status and text to
   * answer instead. {@code mutation}: the request changes the cluster (POST).
   */
  @FunctionalInterface
  public interface Guard {
    Optional<Map.Entry<Integer, String>> refuse(HttpExchange exchange, boolean mutation);

    Guard OPEN = (exchange, mutation) -> Optional.empty();
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
      LeadershipTransfer transfer) {
    this.server = server;
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
    server.createContext("/metrics", guarded(false, this::metrics));
    server.createContext("/health", guarded(false, this::health));
    server.createContext("/ready", guarded(false, this::ready));
    server.createContext("/status", guarded(false, this::status));
    server.createContext("/transfer-leadership", guarded(true, this::transferLeadership));
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
    InetSocketAddress bind = Addresses.parse(bindAddress);
    HttpServer server = HttpServer.create(bind, 64);
    AdminServer admin = new AdminServer(server, status, metrics, draining, readiness, transfer);
    server.start();
    log.info("event=admin_started address={}", Addresses.format(admin.localAddress()));
    return admin;
  }

  /** Who may use this port from now on (security mode secure: see docs/SECURITY.md). */
  public void guard(Guard g) {
    this.guard = g;
  }

  private com.sun.net.httpserver.HttpHandler guarded(boolean mutation,
      com.sun.net.httpserver.HttpHandler handler) {
    return ex -> {
      Optional<Map.Entry<Integer, String>> refused = guard.refuse(ex, mutation);
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
