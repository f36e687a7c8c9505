package dev.ration.server.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.limiter.Decision;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.wire.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A limiter's warm start on a real 3-node cluster (in-process {@link RationNode}s: Ratis,
 * RocksDB, the Netty endpoint, on loopback). Goal: a service can wait, bounded, for its first
 * lease instead of refusing its first requests with NO_LEASE, and the wait ends false (not
 * hangs) when no lease can come. No timed assertion: bounds are generous and only checked as
 * upper limits of a wait that must end.
 */
class WarmStartClusterTest {
  @TempDir static Path dir;
  static final List<RationNode> nodes = new ArrayList<>();
  static RationClient client;

  @BeforeAll
  static void startCluster() throws Exception {
    List<ServerConfig> configs = RegionalLimiterClusterTest.configs(dir);
    for (ServerConfig c : configs) {
      nodes.add(RationNode.start(c));
    }
    client = new RationClient(RationClientOptions.builder()
        .addresses(configs.stream().map(ServerConfig::clientAddress).toList())
        .requestDeadline(Duration.ofSeconds(5)).build());
    for (String resource : List.of("api", "timed")) {
      assertEquals(Outcome.SUCCESS, RegionalLimiterClusterTest.awaitSetLimit(client,
          LimitSpec.builder("acme", resource).ratePerSecond(1_000).burst(100)
              .leaseDuration(Duration.ofSeconds(5)).grace(Duration.ofMillis(500)).build()).outcome());
    }
  }

  @AfterAll
  static void stopCluster() {
    if (client != null) {
      client.close();
    }
    for (RationNode n : nodes) {
      n.shutdown();
    }
  }

  @Test
  void awaitReadyReturnsOnceTheFirstLeaseIsHeld() {
    try (RateLimiter limiter = client.rateLimiter("acme", "api", "warm-1",
        LimiterOptions.builder().demand(1_000, 100).build())) {
      assertFalse(limiter.ready(), "nothing sent before first use");
      assertTrue(limiter.awaitReady(Duration.ofSeconds(20)), "a lease within the bound");
      assertTrue(limiter.lease().isPresent());
      Decision d = limiter.decide(1);
      assertTrue(d.allowed() || d.reason() == Decision.Reason.NO_TOKENS,
          "past warm-up the answer is about tokens, never NO_LEASE: " + d);
      assertTrue(limiter.awaitReady(Duration.ZERO), "already ready: no wait");
    }
  }

  @Test
  void tryAcquireWithTimeoutAdmitsTheFirstRequestOfAFreshLimiter() {
    try (RateLimiter limiter = client.rateLimiter("acme", "api", "warm-2")) {
      // Default options: the first lease asks for demand 1/s, so its share may be 1 token/s
      // and the first token a second away; the wait covers both the lease and the refill.
      assertTrue(limiter.tryAcquire(1, Duration.ofSeconds(20)));
      assertEquals(1, limiter.admittedTotal());
    }
  }

  @Test
  void waitsEndFalseWhenNoLeaseCanCome() {
    try (RateLimiter limiter = client.rateLimiter("acme", "no-such-limit", "warm-3")) {
      assertFalse(limiter.awaitReady(Duration.ofMillis(500)), "LIMIT_UNKNOWN: no lease");
      assertFalse(limiter.tryAcquire(1, Duration.ofMillis(300)));
      assertEquals(Decision.Reason.NO_LEASE, limiter.decide(1).reason());
    }
  }

  @Test
  void closeEndsAWaitInProgress() throws Exception {
    RateLimiter limiter = client.rateLimiter("acme", "no-such-limit", "warm-4");
    java.util.concurrent.CompletableFuture<Boolean> waited = new java.util.concurrent.CompletableFuture<>();
    Thread waiter = new Thread(() -> waited.complete(limiter.awaitReady(Duration.ofMinutes(10))));
    waiter.start();
    // Close once the waiter is blocked in awaitReady (it cannot succeed either way).
    dev.ration.testkit.Waits.upTo(Duration.ofSeconds(20)).every(Duration.ofMillis(5)).until(
        "the waiter blocked in awaitReady", waiter::getState,
        s -> s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING);
    limiter.close();
    assertFalse(waited.get(20, java.util.concurrent.TimeUnit.SECONDS), "woken by close, false");
    assertFalse(limiter.tryAcquire(1, Duration.ofMinutes(10)), "closed: false at once");
  }

  @Test
  void aWaitForTokensEndsWithTheRefill() {
    try (RateLimiter limiter = client.rateLimiter("acme", "timed", "warm-6",
        LimiterOptions.builder().demand(1_000, 100).build())) {
      assertTrue(limiter.awaitReady(Duration.ofSeconds(20)));
      long burst = limiter.lease().orElseThrow().burstShare();
      assertTrue(burst > 0, "a burst share");
      // Drain the bucket, then ask for one more: admitted once refill covers it.
      for (int i = 0; i < 1_000_000 && limiter.tryAcquire(1); i++) {
        // taking what the bucket holds
      }
      assertTrue(limiter.tryAcquire(1, Duration.ofSeconds(20)));
    }
  }

  @Test
  void badTimeoutsAreRefused() {
    try (RateLimiter limiter = client.rateLimiter("acme", "api", "warm-5")) {
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
          IllegalArgumentException.class, () -> limiter.awaitReady(Duration.ofMillis(-1)));
      assertTrue(e.getMessage().contains("PT-0.001S"), e.getMessage());
      org.junit.jupiter.api.Assertions.assertThrows(
          IllegalArgumentException.class, () -> limiter.tryAcquire(1, null));
    }
  }
}
