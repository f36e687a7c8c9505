package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.tls.PemFiles;
import dev.ration.protocol.tls.ReloadingKeyManager;
import dev.ration.protocol.tls.ReloadingTrustManager;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.endpoint.FakeCoordinator;
import dev.ration.server.observability.AdminServer;
import dev.ration.server.observability.Readiness;
import dev.ration.server.observability.ServerMetrics;
import dev.ration.server.tls.DevCertificates;
import dev.ration.server.tls.DevCertificates.Issued;
import dev.ration.server.tls.ServerTls;
import dev.ration.server.tls.TestCertificates;
import dev.ration.statemachine.security.SecurityTable;
import dev.ration.statemachine.security.StoredToken;
import dev.ration.wire.Bytes;
import dev.ration.wire.security.RoleGrant;
import dev.ration.wire.security.TokenView;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Goal: who may read and change what on the admin port in security mode secure, over real
 * HTTPS with real client certificates and bearer tokens (docs/SECURITY.md, "The admin port").
 * Without a credential a caller gets /health and /ready and nothing else (401 on /metrics and
 * /status); an identity holding {@code monitor} on "*" reads /metrics and /status by
 * certificate or token and is refused every change (403); a role over one tenant is not
 * enough; {@code security.open-metrics: true} opens /metrics and /status to anyone, and
 * {@code security.open-health-endpoints: false} closes the probes. The refusal series name
 * how the caller authenticated, never who it is.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminAccessTest {
  Path dir;
  ServerTls tls;
  final Tokens.Minted monitorToken = Tokens.mint();
  final Tokens.Minted serviceToken = Tokens.mint();
  final SecurityTable table = SecurityTable.of(
      List.of(new StoredToken(monitorToken.tokenId(), "prometheus-token",
              new Bytes(monitorToken.salt()), new Bytes(monitorToken.hash()), 0, TokenView.NEVER, "test"),
          new StoredToken(serviceToken.tokenId(), "svc-alpha",
              new Bytes(serviceToken.salt()), new Bytes(serviceToken.hash()), 0, TokenView.NEVER, "test")),
      List.of(new RoleGrant("prometheus", "monitor", "*", 0, "test"),
          new RoleGrant("prometheus-token", "monitor", "*", 0, "test"),
          new RoleGrant("alpha-operator", "operator", "alpha", 0, "test"),
          new RoleGrant("svc-alpha", "service", "alpha", 0, "test")));
  final List<AutoCloseable> open = new ArrayList<>();
  final AtomicBoolean draining = new AtomicBoolean();
  ServerMetrics metrics;

  @BeforeAll
  void certificates() throws Exception {
    dir = Files.createTempDirectory("ration-admin-access-");
    Issued ca = TestCertificates.ca("Admin access CA " + DevCertificates.shortId());
    TestCertificates.write(dir, ca, "node", TestCertificates.node(ca, "n1", 30));
    for (String name : List.of("prometheus", "root", "stranger", "alpha-operator")) {
      DevCertificates.write(dir, name, TestCertificates.leaf(ca, name, 30), true);
    }
    tls = ServerTls.load(TestCertificates.options(dir, "node", TlsOptions.ClientAuth.REQUIRED,
        Duration.ofMinutes(10)));
  }

  @AfterAll
  void removeCertificates() throws Exception {
    if (tls != null) {
      tls.close();
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    open.clear();
  }

  /** An admin port over HTTPS guarded by {@link AdminAccess} with these options; its port. */
  int start(boolean openHealthEndpoints, boolean openMetrics) throws Exception {
    metrics = new ServerMetrics();
    FakeCoordinator coordinator = new FakeCoordinator();
    metrics.bindNode(coordinator::status);
    SecurityOptions options = new SecurityOptions(SecurityOptions.Mode.SECURE, List.of("root"),
        openHealthEndpoints, 100, List.of(), openMetrics);
    Security security = new Security(options, () -> table, () -> 1, metrics::authRefused,
        System::nanoTime);
    AdminServer admin = AdminServer.start("127.0.0.1:0", coordinator::status, metrics,
        draining::get, new Readiness(100), null, null, null, tls.adminContext());
    admin.guard(new AdminAccess(security));
    open.add(admin);
    open.add(metrics);
    return admin.localAddress().getPort();
  }

  /** A client trusting the CA, presenting the certificate {@code name} (null: none). */
  HttpClient client(String name) throws Exception {
    KeyManager[] keys = name == null ? null : new KeyManager[] {new ReloadingKeyManager(
        PemFiles.privateKey(dir.resolve(name + ".key")), PemFiles.certificates(dir.resolve(name + ".crt")))};
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(keys, new TrustManager[] {new ReloadingTrustManager(PemFiles.certificates(dir.resolve("ca.crt")))}, null);
    return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(ctx).build();
  }

  static HttpResponse<String> send(HttpClient c, int port, String method, String path, String token)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static int status(HttpClient c, int port, String method, String path, String token) throws Exception {
    return send(c, port, method, path, token).statusCode();
  }

  @Test
  void withoutACredentialOnlyTheProbesAnswer() throws Exception {
    int port = start(true, false);
    HttpClient anonymous = client(null);
    assertEquals(200, status(anonymous, port, "GET", "/health", null));
    assertEquals(200, status(anonymous, port, "GET", "/ready", null));
    HttpResponse<String> metricsRefused = send(anonymous, port, "GET", "/metrics", null);
    assertEquals(401, metricsRefused.statusCode(), metricsRefused.body());
    assertEquals("Bearer realm=\"ration\"", metricsRefused.headers().firstValue("WWW-Authenticate").orElse(""));
    assertFalse(metricsRefused.body().contains("ration_"), metricsRefused.body());
    assertEquals(401, status(anonymous, port, "GET", "/status", null));
    assertEquals(401, status(anonymous, port, "GET", "/metrics", "rtn_0000000000000001_nope"));
    assertEquals(401, status(anonymous, port, "POST", "/transfer-leadership?to=n2", null));
    // Not ready is still answered without credentials, with its reason.
    draining.set(true);
    try {
      HttpResponse<String> notReady = send(anonymous, port, "GET", "/ready", null);
      assertEquals(503, notReady.statusCode(), notReady.body());
      assertTrue(notReady.body().contains("shutting down"), notReady.body());
    } finally {
      draining.set(false);
    }
  }

  @Test
  void aMonitorReadsMetricsAndStatusButChangesNothing() throws Exception {
    int port = start(true, false);
    for (String token : new String[] {null, monitorToken.text()}) {
      // By certificate (prometheus) and by token (prometheus-token, no certificate).
      HttpClient monitor = client(token == null ? "prometheus" : null);
      HttpResponse<String> scrape = send(monitor, port, "GET", "/metrics", token);
      assertEquals(200, scrape.statusCode(), scrape.body());
      assertTrue(scrape.body().contains("ration_raft_role"), scrape.body());
      HttpResponse<String> status = send(monitor, port, "GET", "/status", token);
      assertEquals(200, status.statusCode(), status.body());
      assertTrue(status.body().contains("\"role\""), status.body());
      assertEquals(200, status(monitor, port, "GET", "/health", token));
      for (String change : List.of("POST /transfer-leadership?to=n2", "POST /membership/add?id=n4",
          "GET /snapshot")) {
        String[] mp = change.split(" ");
        HttpResponse<String> refused = send(monitor, port, mp[0], mp[1], token);
        assertEquals(403, refused.statusCode(), change + ": " + refused.body());
        assertTrue(refused.body().contains("needs CLUSTER_ADMIN on *"), refused.body());
      }
    }
    // An administrator passes the guard (no leadership transfer is wired here: 501).
    assertEquals(501, status(client("root"), port, "POST", "/transfer-leadership?to=n2", null));
  }

  @Test
  void aGrantOnOneTenantOrNoneDoesNotReadTheCluster() throws Exception {
    int port = start(true, false);
    for (String who : List.of("stranger", "alpha-operator")) {
      HttpResponse<String> refused = send(client(who), port, "GET", "/metrics", null);
      assertEquals(403, refused.statusCode(), who + ": " + refused.body());
      assertTrue(refused.body().contains("needs CLUSTER_READ on *, e.g. role monitor"), refused.body());
      assertEquals(403, status(client(who), port, "GET", "/status", null));
    }
    assertEquals(403, status(client(null), port, "GET", "/metrics", serviceToken.text()));

    // The refusals are counted by method and reason; no identity's name is in the series.
    String scrape = send(client("prometheus"), port, "GET", "/metrics", null).body();
    assertTrue(scrape.contains("ration_auth_refused_total{method=\"certificate\",reason=\"admin_http\"} 4.0"), scrape);
    assertTrue(scrape.contains("ration_auth_refused_total{method=\"token\",reason=\"admin_http\"} 1.0"), scrape);
    for (String name : List.of("stranger", "alpha-operator", "svc-alpha", "prometheus-token")) {
      assertFalse(scrape.contains(name), name + " named in /metrics:\n" + scrape);
    }
  }

  @Test
  void openMetricsOpensMetricsAndStatusButNoChange() throws Exception {
    int port = start(true, true);
    HttpClient anonymous = client(null);
    assertEquals(200, status(anonymous, port, "GET", "/metrics", null));
    assertEquals(200, status(anonymous, port, "GET", "/status", null));
    assertEquals(200, status(anonymous, port, "GET", "/health", null));
    assertEquals(401, status(anonymous, port, "POST", "/transfer-leadership?to=n2", null));
    assertEquals(403, status(client("prometheus"), port, "POST", "/transfer-leadership?to=n2", null));
  }

  @Test
  void closedHealthEndpointsNeedAnIdentityThatReadsTheCluster() throws Exception {
    int port = start(false, false);
    assertEquals(401, status(client(null), port, "GET", "/health", null));
    assertEquals(401, status(client(null), port, "GET", "/ready", null));
    assertEquals(403, status(client("stranger"), port, "GET", "/ready", null));
    assertEquals(200, status(client("prometheus"), port, "GET", "/health", null));
    assertEquals(200, status(client("prometheus"), port, "GET", "/ready", null));
  }
}
