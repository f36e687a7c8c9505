package dev.ration.server.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.server.consensus.GroupCommitStats;
import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.endpoint.FakeCoordinator;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin HTTP endpoint on a real socket: liveness, readiness and its reasons, the status
 * JSON, and that /metrics exposes every metric name docs/OPERATIONS.md promises.
 */
class AdminHttpTest {
  private FakeCoordinator coordinator;
  private ServerMetrics metrics;
  private AdminServer admin;
  private final AtomicBoolean draining = new AtomicBoolean();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() throws Exception {
    coordinator = new FakeCoordinator();
    metrics = new ServerMetrics();
    metrics.bindNode(coordinator::status);
    metrics.bindGroupCommit(() -> new GroupCommitStats(40, 900, 3, 2, 1, 5, 1_800_000_000L, 38, 95_000_000L, 7, 4), () -> 1234);
    admin = AdminServer.start("127.0.0.1:0", coordinator::status, metrics, draining::get, new Readiness(100));
  }

  @AfterEach
  void stop() {
    admin.close();
    metrics.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + admin.localAddress().getPort() + path);
    return http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthIsOkWhileServing() throws Exception {
    HttpResponse<String> r = get("/health");
    assertEquals(200, r.statusCode());
    assertEquals("ok\n", r.body());
  }

  @Test
  void readyNeedsALeaderACurrentApplyIndexAndNoShutdown() throws Exception {
    assertEquals(200, get("/ready").statusCode());

    coordinator.status = FakeCoordinator.status("CANDIDATE", "", "", 8, 120, 120);
    HttpResponse<String> noLeader = get("/ready");
    assertEquals(503, noLeader.statusCode());
    assertTrue(noLeader.body().contains("no leader"), noLeader.body());

    coordinator.status = FakeCoordinator.status("FOLLOWER", "n2", "127.0.0.1:7002", 8, 1_000, 800);
    HttpResponse<String> lagging = get("/ready");
    assertEquals(503, lagging.statusCode());
    assertTrue(lagging.body().contains("lags commit index 1000 by 200"), lagging.body());

    coordinator.status = FakeCoordinator.leaderStatus();
    draining.set(true);
    HttpResponse<String> stopping = get("/ready");
    assertEquals(503, stopping.statusCode());
    assertTrue(stopping.body().contains("shutting down"), stopping.body());
  }

  @Test
  void statusIsTheNodeStatusAsJson() throws Exception {
    HttpResponse<String> r = get("/status");
    assertEquals(200, r.statusCode());
    assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
    String body = r.body();
    assertTrue(body.startsWith("{\"nodeId\":\"n1\",\"role\":\"LEADER\",\"term\":7,\"commitIndex\":120,\"appliedIndex\":118,"), body);
    assertTrue(body.contains("{\"id\":\"n2\",\"raftAddress\":\"127.0.0.1:6002\",\"clientAddress\":\"127.0.0.1:7002\",\"adminAddress\":\"127.0.0.1:8002\"}"), body);
  }

  @Test
  void statusJsonEscapesStrings() {
    NodeStatus s = new NodeStatus("n\"1\n", "LEADER", 1, 1, 1, "", "", 0, 0, 0, List.of());
    assertTrue(StatusJson.render(s).startsWith("{\"nodeId\":\"n\\\"1\\n\""), StatusJson.render(s));
  }

  @Test
  void metricsExposeEveryDocumentedName() throws Exception {
    metrics.requestAnswered("ACQUIRE_LEASE", ErrorCode.OK, "SUCCESS", 1_000_000);
    metrics.requestAnswered("ACQUIRE_LEASE", ErrorCode.OVERLOADED, "NONE", 10_000);
    metrics.connectionOpened();
    metrics.connectionRefused();
    Limit limit = new Limit("acme", "api", 100, 50, Mode.HARD, 10_000, 2_000, 0, Policy.FREE_CAPACITY, 1);
    metrics.updateLimits(List.of(new LimitStatus(limit, 40, 20, 30, 20, 5, 2, 1, 100, 50, 3)));
    metrics.updateQuota(new dev.ration.statemachine.query.QuotaAnswer.QuotaStatusAnswer(
        4, 2, 900, 1, 10, 301, List.of(
            new dev.ration.statemachine.query.QuotaAnswer.BudgetFigures(1, 0, 0, 0, 0),
            new dev.ration.statemachine.query.QuotaAnswer.BudgetFigures(2, 1, 0, 40, 0),
            new dev.ration.statemachine.query.QuotaAnswer.BudgetFigures(3, 5, 1, 120, 3))));
    metrics.updateSlots(new QueryResult.SlotTableAnswer(0, 254, 1, 0, 1));

    // Gauges must survive a collection (Micrometer holds gauge state weakly unless told not to).
    System.gc();
    HttpResponse<String> r = get("/metrics");
    assertEquals(200, r.statusCode());
    String body = r.body();
    for (String name :
        List.of(
            "ration_raft_role{role=\"leader\"} 1.0",
            "ration_raft_role{role=\"follower\"} 0.0",
            "ration_raft_term 7.0",
            "ration_raft_commit_index 120.0",
            "ration_raft_applied_index 118.0",
            "ration_group_commit_queue_depth",
            "ration_ledger_epoch 3.0",
            "ration_ledger_now_seconds",
            "ration_group_commit_entries_total 40.0",
            "ration_group_commit_commands_total 900.0",
            "ration_group_commit_expired_total 5.0",
            "ration_group_commit_cancelled_total 4.0",
            "ration_group_commit_queue_wait_seconds_total 1.8",
            "ration_group_commit_entries_answered_total 38.0",
            "ration_group_commit_entry_seconds_total 0.095",
            "ration_group_commit_entries_in_flight 2.0",
            "ration_expiry_overdue_seconds 1.234",
            "ration_build_info{commit=",
            "jvm_memory_used_bytes{area=\"heap\"",
            "jvm_gc_",
            "process_cpu_usage",
            "ration_requests_total{code=\"OK\",kind=\"ACQUIRE_LEASE\",outcome=\"SUCCESS\"} 1.0",
            "ration_requests_total{code=\"OVERLOADED\",kind=\"ACQUIRE_LEASE\",outcome=\"NONE\"} 1.0",
            "ration_request_latency_seconds_bucket{kind=\"ACQUIRE_LEASE\"",
            "ration_request_latency_seconds_count{kind=\"ACQUIRE_LEASE\"} 2",
            "ration_overloaded_total 1.0",
            "ration_connections_open 1.0",
            "ration_connections_refused_total 1.0",
            "ration_limit_refresh_failures_total",
            "ration_limit_rate{resource=\"api\",tenant=\"acme\"} 100.0",
            "ration_limit_burst{resource=\"api\",tenant=\"acme\"} 50.0",
            "ration_limit_counted_rate{resource=\"api\",tenant=\"acme\"} 40.0",
            "ration_limit_counted_burst{resource=\"api\",tenant=\"acme\"} 20.0",
            "ration_limit_granted_rate{resource=\"api\",tenant=\"acme\"} 30.0",
            "ration_limit_granted_burst{resource=\"api\",tenant=\"acme\"} 20.0",
            "ration_limit_pool{resource=\"api\",tenant=\"acme\"} 5.0",
            "ration_limit_leases{resource=\"api\",tenant=\"acme\"} 2.0",
            "ration_limit_pending_shrinks{resource=\"api\",tenant=\"acme\"} 1.0",
            "ration_limit_emergency_reported{resource=\"api\",tenant=\"acme\"} 3.0",
            "ration_quota_usage_log_sequence 900.0",
            "ration_quota_usage_log_first_sequence 301.0",
            "ration_slots{phase=\"active\"} 254.0",
            "ration_slots{phase=\"frozen\"} 1.0",
            "ration_slots{phase=\"installed\"} 0.0",
            "ration_slots{phase=\"absent\"} 1.0")) {
      assertTrue(body.contains(name), "missing " + name + " in\n" + body);
    }
  }

  @Test
  void limitRefreshReadsAStaleListLimitsAndReplacesSeries() throws Exception {
    Limit a = new Limit("acme", "api", 100, 50, Mode.HARD, 10_000, 2_000, 0, Policy.FREE_CAPACITY, 1);
    Limit b = new Limit("beta", "jobs", 10, 5, Mode.HARD, 10_000, 2_000, 0, Policy.FREE_CAPACITY, 1);
    metrics.updateLimits(List.of(new LimitStatus(a, 1, 1, 1, 1, 0, 1, 0, 100, 50, 0)));

    Thread refresher = new Thread(() -> metrics.refreshOnce(coordinator, Duration.ofSeconds(5)));
    refresher.start();
    assertTrue(coordinator.awaitQuery(Duration.ofSeconds(10)), "the refresher asked nothing within 10 s");
    assertEquals(new Query.ListLimits(), coordinator.asked.get(0).query());
    assertTrue(coordinator.asked.get(0).stale(), "metrics never cost a ReadIndex");
    coordinator.asked.get(0).answer().complete(
        new QueryResult.LimitList(List.of(new LimitStatus(b, 7, 2, 7, 2, 0, 1, 0, 10, 5, 0))));
    refresher.join(10_000);
    assertFalse(refresher.isAlive());

    String body = get("/metrics").body();
    assertTrue(body.contains("ration_limit_counted_rate{resource=\"jobs\",tenant=\"beta\"} 7.0"), body);
    assertFalse(body.contains("tenant=\"acme\""), "a limit gone from the ledger leaves the metrics");
  }

  @Test
  void transferLeadershipIsAPostToTheLeaderNamingThePeer() throws Exception {
    assertEquals(405, get("/transfer-leadership?to=n2").statusCode());
    assertEquals(501, post(admin, "/transfer-leadership?to=n2").statusCode(), "no transfer wired");
    java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    AdminServer withTransfer = AdminServer.start("127.0.0.1:0", coordinator::status, metrics, draining::get,
        new Readiness(100), (to, timeout) -> {
          asked.add(to);
          return switch (to) {
            case "n2" -> "";
            case "n1" -> "not the leader (leader: n3)";
            default -> "unknown peer " + to;
          };
        });
    try {
      HttpResponse<String> ok = post(withTransfer, "/transfer-leadership?to=n2");
      assertEquals(200, ok.statusCode(), ok.body());
      assertEquals("leader: n2\n", ok.body());
      HttpResponse<String> notLeader = post(withTransfer, "/transfer-leadership?to=n1");
      assertEquals(409, notLeader.statusCode());
      assertTrue(notLeader.body().contains("leader: n3"), notLeader.body());
      assertEquals(400, post(withTransfer, "/transfer-leadership?to=n9").statusCode());
      assertEquals(400, post(withTransfer, "/transfer-leadership").statusCode());
      assertEquals(List.of("n2", "n1", "n9"), asked);
    } finally {
      withTransfer.close();
    }
  }

  private HttpResponse<String> post(AdminServer server, String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + server.localAddress().getPort() + path);
    return http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
