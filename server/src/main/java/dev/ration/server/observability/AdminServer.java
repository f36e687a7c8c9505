package dev.ration.server.observability;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.endpoint.Addresses;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
 * text), {@code /health} (liveness), {@code /ready} (readiness, see {@link Readiness}) and
 * {@code /status} (this node's {@link NodeStatus} as JSON). Semantics in docs/OPERATIONS.md.
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
  private volatile boolean stopped;

  private AdminServer(
      HttpServer server,
      Supplier<NodeStatus> status,
      ServerMetrics metrics,
      BooleanSupplier draining,
      Readiness readiness) {
    this.server = server;
    this.status = status;
    this.metrics = metrics;
    this.draining = draining;
    this.readiness = readiness;
    this.executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "ration-admin-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/metrics", this::metrics);
    server.createContext("/health", this::health);
    server.createContext("/ready", this::ready);
    server.createContext("/status", this::status);
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
    InetSocketAddress bind = Addresses.parse(bindAddress);
    HttpServer server = HttpServer.create(bind, 64);
    AdminServer admin = new AdminServer(server, status, metrics, draining, readiness);
    server.start();
    log.info("event=admin_started address={}", Addresses.format(admin.localAddress()));
    return admin;
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
