package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.pool.PoolOptions;
import dev.ration.client.pool.ShutdownPolicy;
import dev.ration.client.pool.WorkerPool;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.slots.LeasedSlots;
import dev.ration.client.time.LedgerTime;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.testkit.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent quotas through slot budgets on a real node (TCP endpoint, Raft, RocksDB): two worker
 * pools on two projects of one tenant, whose CONCURRENT quota is the tightest level, each with a
 * {@link RationClient#quotaSlots} source. The jobs count themselves in one counter (what the
 * tenant's downstream sees): it never passes the tenant's cap, the pools together use it, and
 * once they closed, no slot is held at any level and the usage log bills exactly the attempts
 * that ran.
 */
class QuotaSlotsNodeTest {
  static final int TENANT_CAP = 3;
  static final int W = 3;

  @Test
  void twoPoolsStayUnderTheTenantsCapAndAreBilledPerAttempt(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    CountedJobs jobs = new CountedJobs(TENANT_CAP);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .addresses(List.of(c.clientAddress())).requestDeadline(Duration.ofSeconds(20)).build())) {
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(100)).until("the catalog", () -> {
        try {
          return client.quotas().setQuota(QuotaDefinition.concurrent("acme", "jobs", 10).build());
        } catch (RationException e) {
          return null; // not elected yet
        }
      }, r -> r != null);
      client.quotas().setQuota(QuotaDefinition.concurrent("acme/shop", "jobs", TENANT_CAP).build());
      client.quotas().setQuota(QuotaDefinition.concurrent("acme/shop/a", "jobs", W).build());

      Duration lease = Duration.ofSeconds(2);
      LeasedSlots slotsA = client.quotaSlots("pool-a", "acme/shop/a", "jobs", W, lease);
      LeasedSlots slotsB = client.quotaSlots("pool-b", "acme/shop/b", "jobs", W, lease);
      WorkerPool a = new WorkerPool(PoolOptions.of(W, 200), slotsA);
      WorkerPool b = new WorkerPool(PoolOptions.of(W, 200), slotsB);
      try {
        jobs.feed(List.of(a, b), Instant.now().plusSeconds(5));
        assertTrue(jobs.maxSeen.get() >= TENANT_CAP - 1,
            "both pools together used the tenant's cap (max seen " + jobs.maxSeen.get() + ")");
        assertTrue(slotsA.share() + slotsB.share() <= TENANT_CAP,
            "shares " + slotsA.share() + " + " + slotsB.share());
        assertTrue(client.quotas().getQuota("acme/shop", "jobs").orElseThrow().held() <= TENANT_CAP);
        assertEquals(0, jobs.violations.get(), "concurrency above the tenant's cap");
      } finally {
        a.shutdown(Instant.now().plusSeconds(5), ShutdownPolicy.CANCEL_QUEUED);
        b.shutdown(Instant.now().plusSeconds(5), ShutdownPolicy.CANCEL_QUEUED);
        slotsA.close();
        slotsB.close();
      }
      assertEquals(List.of(), client.quotas().listBudgets("acme"), "closing returned both budgets");
      // A source for a resource without a CONCURRENT quota holds nothing and says why.
      try (LeasedSlots none = client.quotaSlots("pool-c", "acme/shop/a", "no-such-quota", W, lease)) {
        Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(50)).until("a refusal",
            none::lastRefusal, r -> r.startsWith("LIMIT_UNKNOWN"));
        assertEquals(0, none.permits());
      }
      for (String level : List.of("acme", "acme/shop", "acme/shop/a")) {
        assertEquals(0, client.quotas().getQuota(level, "jobs").orElseThrow().held(),
            "slots still held at " + level);
      }
      long billed = 0;
      for (String project : List.of("acme/shop/a", "acme/shop/b")) {
        billed += client.quotas().aggregateUsage(project, "jobs", LedgerTime.ofMillis(0),
            LedgerTime.ofMillis(Long.MAX_VALUE - 1)).total();
      }
      assertTrue(jobs.attempts.get() > 0, "no job ran");
      assertEquals(jobs.attempts.get(), billed, "the usage log bills every attempt that ran, once");
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }
}
