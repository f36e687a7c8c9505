package dev.ration.http;

import dev.ration.client.quota.QuotaDefinition;
import dev.ration.testkit.FreePorts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.protocol.QuotaRequest;
import dev.ration.client.quota.QuotaRefusedException;
import dev.ration.client.quota.Reservation;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filter and the 429 answers over real HTTP: an embedded Jetty 12 (ee10 servlets) on
 * loopback in front of a real single-node Ration cluster (Ratis, RocksDB, the Netty endpoint).
 * Goal: requests over a tenant's limit never reach the application and are answered 429 with
 * Retry-After and the RateLimit-Policy / RateLimit fields; admitted ones carry the fields too;
 * a refused reservation gets the same kind of answer.
 */
class RateLimitFilterHttpTest {
  @TempDir static Path dir;
  static RationNode node;
  static RationClient client;
  static TenantLimiters limiters;
  static Server jetty;
  static int port;
  static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final java.util.concurrent.atomic.AtomicLong served = new java.util.concurrent.atomic.AtomicLong();

  @BeforeAll
  static void start() throws Exception {
    String clientAddress = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), clientAddress, "127.0.0.1:" + FreePorts.next());
    ConsensusOptions consensus = new ConsensusOptions("n1",
        UUID.nameUUIDFromBytes(("http-filter-" + dir).getBytes()).toString(), List.of(self), dir,
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3), 10_000, 0, 1 << 20,
        256, 64 << 10, Duration.ofMillis(2), 4, 1_000, Duration.ofMillis(100), 100,
        StateOptions.defaults());
    EndpointOptions endpoint =
        new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    node = RationNode.start(new ServerConfig(consensus, clientAddress, self.adminAddress(), endpoint,
        Duration.ofSeconds(2)));
    client = new RationClient(RationClientOptions.builder().addresses(List.of(clientAddress))
        .requestDeadline(Duration.ofSeconds(5)).build());
    LimitSpec spec = LimitSpec.builder("acme", "api").ratePerSecond(2).burst(2)
        .leaseDuration(Duration.ofSeconds(5)).grace(Duration.ofMillis(500)).build();
    assertEquals(Outcome.SUCCESS, Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
        .retrying("a leader accepting SetLimit", e -> e instanceof RuntimeException,
            () -> client.setLimit(spec)).outcome());
    assertEquals(Outcome.SUCCESS, client.quotas().setQuota(QuotaDefinition.concurrent("acme", "jobs", 3)
        .unit("jobs").actor("test").reason("plan").build()).outcome());
    limiters = new TenantLimiters(client, "api", "web-1", LimiterOptions.builder().demand(2, 2).build(), 100);

    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    // An "authentication" filter in front: the tenant of a request bearing "Bearer T" is T.
    Filter auth = (req, resp, chain) -> {
      String a = ((HttpServletRequest) req).getHeader("Authorization");
      if (a != null && a.startsWith("Bearer ")) {
        req.setAttribute(RateLimitFilter.DEFAULT_TENANT_ATTRIBUTE, a.substring("Bearer ".length()));
      }
      chain.doFilter(req, resp);
    };
    context.addFilter(new FilterHolder(auth), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addFilter(new FilterHolder(RateLimitFilter.builder(limiters, "api").tenantHeader("X-Tenant")
        .cost(r -> r.getHeader("X-Cost") == null ? 1 : Long.parseLong(r.getHeader("X-Cost"))).build()),
        "/api/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        served.incrementAndGet();
        resp.setStatus(200);
        resp.getWriter().print("ok");
      }
    }), "/api/*");
    // Reserves N jobs for the duration of the request; a refusal is answered like a rate limit.
    context.addServlet(new ServletHolder(new HttpServlet() {
      @Override
      protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long jobs = Long.parseLong(req.getParameter("jobs"));
        try (Reservation r = client.quotas().reserve("acme/web", "jobs", jobs, Duration.ofMinutes(1))) {
          resp.setStatus(200);
          resp.getWriter().print("reserved " + r.reservationId());
        } catch (QuotaRefusedException e) {
          RateLimitHeaders.refuse(resp, e);
        }
      }
    }), "/jobs");
    jetty.setHandler(context);
    jetty.start();
    port = connector.getLocalPort();
  }

  @AfterAll
  static void stop() throws Exception {
    if (jetty != null) {
      jetty.stop();
    }
    if (limiters != null) {
      limiters.close();
    }
    if (client != null) {
      client.close();
    }
    if (node != null) {
      node.shutdown();
    }
  }

  static HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).GET();
    if (headers.length > 0) {
      b.headers(headers);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void overTheLimitIs429WithRetryAfterAndRateLimitFieldsAndNeverReachesTheApplication() throws Exception {
    assertTrue(limiters.apply("acme").awaitReady(Duration.ofSeconds(20)), "a lease for acme");
    long servedBefore = served.get();
    List<HttpResponse<String>> answers = new ArrayList<>();
    // Requests back to back until one is refused (bounded: 40). What may pass depends on how long
    // they took: the burst of 2 plus what 2/s refilled meanwhile (a loaded machine is slow).
    long start = System.nanoTime();
    while (answers.size() < 40 && answers.stream().noneMatch(a -> a.statusCode() == 429)) {
      answers.add(get("/api/items", "X-Tenant", "acme"));
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    List<HttpResponse<String>> refused = answers.stream().filter(r -> r.statusCode() == 429).toList();
    long ok = answers.stream().filter(r -> r.statusCode() == 200).count();
    assertEquals(answers.size(), refused.size() + ok, "only 200 or 429: " + answers);
    assertEquals(1, refused.size(), "a request over the limit is refused: " + answers);
    long allowed = 2 + (long) Math.ceil(2 * seconds);
    assertTrue(ok <= allowed, "rate 2/s, burst 2: at most " + allowed + " pass in " + seconds + " s, got " + ok);
    assertEquals(ok, served.get() - servedBefore, "refused requests never reached the servlet");
    HttpResponse<String> r = refused.get(0);
    long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
    assertTrue(retryAfter >= 1, "Retry-After in whole seconds, at least 1: " + retryAfter);
    assertTrue(r.headers().firstValue("RateLimit").orElseThrow().matches("\"api\";r=0;t=" + retryAfter),
        r.headers().map().toString());
    assertTrue(r.headers().firstValue("RateLimit-Policy").orElseThrow().matches("\"api\";q=2;w=1"),
        r.headers().map().toString());
    assertTrue(r.body().contains("NO_TOKENS"), r.body());

    // Waiting as told is enough to be let in (bounded: 10 tries).
    HttpResponse<String> later = r;
    for (int i = 0; i < 10 && later.statusCode() == 429; i++) {
      Thread.sleep(1000 * Long.parseLong(later.headers().firstValue("Retry-After").orElse("1")));
      later = get("/api/items", "X-Tenant", "acme");
    }
    assertEquals(200, later.statusCode());
    assertTrue(later.headers().firstValue("RateLimit").orElseThrow().matches("\"api\";r=\\d+;t=0"),
        later.headers().map().toString());
  }

  @Test
  void aRequestCostingMoreThanTheBurstIsRefused() throws Exception {
    assertTrue(limiters.apply("acme").awaitReady(Duration.ofSeconds(20)));
    HttpResponse<String> r = get("/api/bulk", "X-Tenant", "acme", "X-Cost", "50");
    assertEquals(429, r.statusCode());
    assertTrue(r.headers().firstValue("Retry-After").isPresent());
  }

  @Test
  void theTenantComesFromTheAttributeBeforeTheHeaderAndIsRequired() throws Exception {
    assertEquals(400, get("/api/items").statusCode(), "no tenant at all");
    // The attribute names an unknown tenant: it wins over the header, and that tenant has no
    // limit, so no lease can come and the request is refused.
    HttpResponse<String> r = get("/api/items", "Authorization", "Bearer nobody", "X-Tenant", "acme");
    assertEquals(429, r.statusCode());
    assertTrue(r.body().contains("NO_LEASE"), r.body());
    assertTrue(r.headers().firstValue("RateLimit-Policy").isEmpty(), "no lease: no policy to state");
  }

  @Test
  void aRefusedReservationIs429WithRetryAfter() throws Exception {
    HttpRequest.Builder post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/jobs?jobs=5"))
        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody());
    HttpResponse<String> refused = http.send(post.build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(429, refused.statusCode(), refused.body());
    assertTrue(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()) >= 1);
    assertTrue(refused.headers().firstValue("RateLimit").orElseThrow().startsWith("\"acme jobs\";r=0;t="),
        refused.headers().map().toString());
    assertTrue(refused.body().contains("LIMIT_EXHAUSTED"), refused.body());
    HttpResponse<String> ok = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/jobs?jobs=2")).timeout(Duration.ofSeconds(10))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, ok.statusCode(), ok.body());
  }
}
