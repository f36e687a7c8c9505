package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.quota.BudgetGrant;
import dev.ration.client.quota.BudgetInfo;
import dev.ration.client.quota.BudgetReport;
import dev.ration.client.quota.BudgetReportResult;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.QuotaLimiter;
import dev.ration.client.quota.QuotaLimiterOptions;
import dev.ration.client.quota.QuotaStatus;
import dev.ration.client.time.LedgerTime;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.limiter.ThreeNodes;
import dev.ration.testkit.Waits;
import dev.ration.wire.Outcome;
import dev.ration.wire.Window;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Budgets and the quota limiter on a real three-node cluster (in-process {@link RationNode}s:
 * Ratis, RocksDB, the Netty endpoint on loopback): two holders on their own clients spend one
 * project's quota, which its tenant and organisation also limit; together they never admit more
 * than the tightest level allows, they get close to it, and once they closed, the usage log bills
 * exactly what they admitted and every level counts exactly that. The budget calls answer each
 * report alone and refuse what budgets cannot count.
 */
class QuotaLimiterNodeTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final List<RationNode> nodes = new ArrayList<>();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    Collections.reverse(closing);
    for (AutoCloseable c : closing) {
      c.close();
    }
    for (RationNode n : nodes) {
      n.shutdown();
    }
  }

  private RationClient cluster(Path dir) throws Exception {
    List<ServerConfig> configs = ThreeNodes.configs(dir, "quota-limiter-");
    for (ServerConfig c : configs) {
      nodes.add(RationNode.start(c));
    }
    return client(configs.stream().map(ServerConfig::clientAddress).toList());
  }

  private final List<String> addresses = new ArrayList<>();

  private RationClient client(List<String> to) {
    if (addresses.isEmpty()) {
      addresses.addAll(to);
    }
    RationClient c = new RationClient(RationClientOptions.builder().addresses(addresses)
        .requestDeadline(Duration.ofSeconds(15)).build());
    closing.add(c);
    return c;
  }

  /** The catalog, set through the first leader that takes it. */
  private static void setRate(RationClient c, String scope, long limit) {
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).until("quota " + scope, () -> {
      try {
        return c.quotas().setQuota(QuotaDefinition.rate(scope, "api", limit, Window.DAY)
            .actor("test").reason("setup").build());
      } catch (RationException e) {
        return null; // no leader yet
      }
    }, r -> r != null);
  }

  /**
   * Goal: two holders admitting through budgets never exceed the tightest level together, come
   * within a budget's cushion of it, and once closed are billed exactly what they admitted, with
   * every level counting exactly that.
   */
  @Test
  void holdersNeverExceedTheTightestLevelAndAreBilledExactly(@TempDir Path dir) throws Exception {
    RationClient admin = cluster(dir);
    setRate(admin, "acme", 500);
    setRate(admin, "acme/shop", 300);
    setRate(admin, "acme/shop/web", 200);
    QuotaLimiterOptions options = QuotaLimiterOptions.defaults().withLease(Duration.ofSeconds(2))
        .withAmounts(20, 20);
    QuotaLimiter eu = client(addresses).quotaLimiter("eu", options);
    QuotaLimiter us = client(addresses).quotaLimiter("us", options);
    assertTrue(eu.awaitReady("acme/shop/web", "api", WAIT));
    assertTrue(us.awaitReady("acme/shop/web", "api", WAIT));
    List<BudgetInfo> held = admin.quotas().listBudgets("acme");
    assertEquals(List.of("eu", "us"), held.stream().map(BudgetInfo::holder).sorted().toList());

    AtomicLong admitted = new AtomicLong();
    List<Thread> spenders = new ArrayList<>();
    for (QuotaLimiter l : List.of(eu, us)) {
      Thread t = new Thread(() -> {
        long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        for (int i = 0; i < 2_000_000 && System.nanoTime() < end; i++) {
          if (l.tryAcquire("acme/shop/web", "api", 1)) {
            admitted.incrementAndGet();
          } else {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // pacing, bounded loop
          }
        }
      }, "spender-" + l.holder());
      t.start();
      spenders.add(t);
    }
    for (Thread t : spenders) {
      t.join();
    }
    long total = admitted.get();
    assertTrue(total <= 200, "admitted " + total + " > the project's 200");
    assertTrue(total >= 160, "admitted only " + total + " of 200: budgets did not grow to demand");
    assertEquals(total, eu.admittedTotal() + us.admittedTotal());
    eu.close();
    us.close();

    assertEquals(List.of(), admin.quotas().listBudgets("acme"), "every budget returned");
    for (String level : List.of("acme", "acme/shop", "acme/shop/web")) {
      QuotaStatus s = admin.quotas().getQuota(level, "api").orElseThrow();
      assertEquals(total, s.windowUsed(), "window usage at " + level + " is what was admitted");
    }
    long billed = admin.quotas().aggregateUsage("acme/shop/web", "api", LedgerTime.ofMillis(0),
        LedgerTime.ofMillis(Long.MAX_VALUE - 1)).total();
    assertEquals(total, billed, "the usage log bills exactly what was admitted");
  }

  /**
   * Goal: demand moving from one project to another of the same tenant: once the first
   * project's holder goes idle, the hot project's holder gets at least 90 % of what the tenant
   * still allows (its limit less what the idle one spent) within one lease, and the tenant never
   * admits more than its limit.
   */
  @Test
  void aHotProjectGrowsFromWhatItsTenantHasFreeWithinOneLease(@TempDir Path dir) throws Exception {
    RationClient admin = cluster(dir);
    setRate(admin, "gamma", 1_000);
    Duration lease = Duration.ofSeconds(3);
    QuotaLimiterOptions options = QuotaLimiterOptions.defaults().withLease(lease).withAmounts(20, 20);
    QuotaLimiter a = client(addresses).quotaLimiter("holder-a", options);
    QuotaLimiter b = client(addresses).quotaLimiter("holder-b", options);
    assertTrue(a.awaitReady("gamma/a", "api", WAIT));
    assertTrue(b.awaitReady("gamma/b", "api", WAIT));
    // Project a is hot first: it spends 300 as fast as its budget grows.
    long spentA = 0;
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (spentA < 300 && System.nanoTime() < end) {
      if (a.tryAcquire("gamma/a", "api", 1)) {
        spentA++;
      } else {
        java.util.concurrent.locks.LockSupport.parkNanos(200_000); // bounded by the deadline
      }
    }
    assertEquals(300, spentA, "project a could not spend 300 of 1,000 in 20 s");
    // Then all demand moves to project b.
    long allowed = 1_000 - spentA;
    long start = System.nanoTime();
    long spentB = 0;
    long reached = -1;
    end = start + Duration.ofSeconds(15).toNanos();
    while (System.nanoTime() < end) {
      if (b.tryAcquire("gamma/b", "api", 1)) {
        spentB++;
        if (reached < 0 && spentB >= allowed * 9 / 10) {
          reached = System.nanoTime() - start;
        }
      } else {
        java.util.concurrent.locks.LockSupport.parkNanos(200_000); // bounded by the deadline
      }
    }
    assertTrue(reached >= 0, "project b reached only " + spentB + " of the " + allowed + " left");
    assertTrue(Duration.ofNanos(reached).compareTo(lease) <= 0,
        "project b took " + Duration.ofNanos(reached) + " to reach 90 % of " + allowed);
    assertTrue(spentA + spentB <= 1_000, "the tenant admitted " + (spentA + spentB));
    a.close();
    b.close();
    assertEquals(spentA + spentB, admin.quotas().getQuota("gamma", "api").orElseThrow().windowUsed());
  }

  /**
   * Goal: the budget calls themselves: a grant takes what every level has free; a batch of
   * reports answers each alone (an unknown budget fails only its own); a return gives the rest
   * back; a grant whose levels mix concurrency and windows is refused.
   */
  @Test
  void theBudgetCallsAnswerEachReportAlone(@TempDir Path dir) throws Exception {
    RationClient c = cluster(dir);
    setRate(c, "beta", 10);
    c.quotas().setQuota(QuotaDefinition.concurrent("beta/jobs", "api", 3).build());
    BudgetGrant g = c.quotas().grantBudget("h1", "beta/x", "api", 50, Duration.ofSeconds(30));
    assertTrue(g.succeeded(), g.message());
    assertEquals(10, g.granted());
    List<BudgetReportResult> answers = c.quotas().reportBudgets(List.of(
        new BudgetReport(g.budgetId(), 4, 1, 6, Duration.ofSeconds(30)),
        new BudgetReport(987_654, 1, 1, 1, Duration.ofSeconds(30))));
    assertEquals(Outcome.SUCCESS, answers.get(0).outcome(), answers.get(0).message());
    assertEquals(6, answers.get(0).granted());
    assertFalse(answers.get(0).ended());
    assertEquals(Outcome.BUDGET_UNKNOWN, answers.get(1).outcome());
    assertEquals(6, c.quotas().getQuota("beta", "api").orElseThrow().windowUsed());
    assertEquals(5, c.quotas().returnBudget(g.budgetId(), 5, 2).spent(), "the final spend");
    assertEquals(5, c.quotas().getQuota("beta", "api").orElseThrow().windowUsed());
    BudgetGrant refused = c.quotas().grantBudget("h1", "beta/jobs", "api", 1, Duration.ofSeconds(30));
    assertEquals(Outcome.INVALID_ARGUMENT, refused.outcome());
  }
}
