package dev.ration.server.endpoint;

import dev.ration.client.ttl.Entry;
import dev.ration.client.ttl.WriteResult;
import dev.ration.client.ttl.DeleteResult;
import dev.ration.client.ttl.NamespaceSpec;
import dev.ration.testkit.FreePorts;
import dev.ration.wire.CapacityPolicy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.wire.Outcome;
import dev.ration.protocol.TtlResponse;
import dev.ration.client.ttl.Lock;
import dev.ration.client.ttl.TtlEntries;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Goal: TTL entries end to end on real parts — RationNode (single-node Ratis over RocksDB,
 * Netty endpoint), the Java client's TtlEntries over TCP: put/get/cas/refresh/delete/list, a
 * lock with fencing tokens, a capacity rejection, and the eviction metric on /metrics.
 */
class TtlEndToEndTest {
  private static ServerConfig config(Path dir) {
    String client = "127.0.0.1:" + FreePorts.next();
    String admin = "127.0.0.1:" + FreePorts.next();
    Peer self = new Peer("n1", "127.0.0.1:" + FreePorts.next(), client, admin);
    ConsensusOptions consensus = new ConsensusOptions(
        "n1", UUID.nameUUIDFromBytes("ttl-e2e".getBytes()).toString(), List.of(self), dir,
        Duration.ofMillis(300), Duration.ofMillis(600), Duration.ofSeconds(3),
        10_000, 0, 1 << 20, 256, 64 << 10, Duration.ofMillis(2), 4, 1_000,
        Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint =
        new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 256);
    return new ServerConfig(consensus, client, admin, endpoint, Duration.ofSeconds(2));
  }

  private static String metrics(ServerConfig c) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://" + c.adminAddress() + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void entriesLocksAndMetricsThroughTheClient(@TempDir Path dir) throws Exception {
    ServerConfig c = config(dir);
    RationNode node = RationNode.start(c);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .addresses(List.of(c.clientAddress())).requestDeadline(Duration.ofSeconds(20)).build())) {
      TtlEntries ttl = client.ttl();
      WriteResult put = ttl.put("app", "flag", "on".getBytes(StandardCharsets.UTF_8), Duration.ofMillis(60_000));
      assertEquals(Outcome.SUCCESS, put.outcome(), put.message());
      Entry got = ttl.get("app", "flag").orElseThrow();
      assertArrayEquals("on".getBytes(StandardCharsets.UTF_8), got.value());
      assertEquals(put.version(), got.version());

      WriteResult stale = ttl.compareAndSet("app", "flag", put.version() + 100, new byte[0], Duration.ofMillis(1_000));
      assertEquals(Outcome.VERSION_MISMATCH, stale.outcome());
      assertEquals(put.version(), stale.currentVersion());
      WriteResult refreshed = ttl.refresh("app", "flag", Duration.ofMillis(120_000), put.version());
      assertEquals(put.version(), refreshed.version(), "refresh keeps the version");
      assertTrue(refreshed.expiresAt().compareTo(put.expiresAt()) > 0);
      assertEquals(List.of("flag"), ttl.list("app", "", 10).entries().stream().map(Entry::key).toList());
      DeleteResult deleted = ttl.deleteAsync("app", "flag", 0).get();
      assertTrue(deleted.existed());
      assertEquals(Optional.empty(), ttl.get("app", "flag"));
      assertEquals(Outcome.SUCCESS, ttl.put("app", "gone", new byte[0], Duration.ofMillis(0)).outcome());
      assertEquals(Optional.empty(), ttl.get("app", "gone"), "ttl 0 is already expired");

      // Locks: the second holder waits; the token of every later holder is larger.
      Lock first = ttl.tryLock("jobs", "worker-1", Duration.ofMillis(60_000)).orElseThrow();
      assertEquals(Optional.empty(), ttl.tryLock("jobs", "worker-2", Duration.ofMillis(60_000)));
      assertTrue(first.refresh(Duration.ofMillis(60_000)));
      assertTrue(first.release());
      assertFalse(first.release(), "a released lock is not released twice");
      Lock second = ttl.tryLock("jobs", "worker-2", Duration.ofMillis(60_000)).orElseThrow();
      assertTrue(second.fencingToken() > first.fencingToken(),
          second.fencingToken() + " > " + first.fencingToken());
      assertFalse(first.refresh(Duration.ofMillis(60_000)), "the old holder cannot extend the new holder's lock");
      // A lock of the same name in a tenant's own namespace is another lock, released there.
      Lock own = ttl.tryLock("acme/locks", "jobs", "worker-3", Duration.ofMillis(60_000)).orElseThrow();
      assertEquals("acme/locks", own.namespace());
      assertTrue(ttl.get("acme/locks", "jobs").isPresent());
      assertTrue(own.release());
      assertEquals(Optional.empty(), ttl.get("acme/locks", "jobs"));
      assertTrue(ttl.get(TtlEntries.LOCK_NAMESPACE, "jobs").isPresent(), "the shared lock is untouched");

      // Capacity: a full REJECT namespace refuses; an EVICT one evicts and counts it.
      assertEquals(Outcome.SUCCESS, ttl.setNamespace(NamespaceSpec.builder("small").maxEntries(1).maxBytes(1_000).whenFull(CapacityPolicy.EVICT_SOONEST_EXPIRING).build()).outcome());
      ttl.put("small", "a", new byte[1], Duration.ofMillis(60_000));
      ttl.put("small", "b", new byte[1], Duration.ofMillis(60_000));
      assertEquals(1, ttl.namespaces("small").get(0).evictedCapacity());
      assertEquals(Outcome.SUCCESS, ttl.setNamespace(NamespaceSpec.builder("strict").maxEntries(1).maxBytes(1_000).whenFull(CapacityPolicy.REJECT).build()).outcome());
      ttl.put("strict", "a", new byte[1], Duration.ofMillis(60_000));
      assertEquals(Outcome.NAMESPACE_FULL, ttl.put("strict", "b", new byte[1], Duration.ofMillis(60_000)).outcome());

      // The namespace figures reach /metrics through a periodic refresh: wait until both show,
      // not for the first of them (a scrape once showed the eviction without the entry gauges).
      String evicted = "ration_ttl_evictions_total{namespace=\"small\",reason=\"capacity\"} 1.0";
      String entries = "ration_ttl_entries{namespace=\"small\"} 1.0";
      Waits.upTo(Duration.ofSeconds(30)).every(Duration.ofMillis(100))
          .until("the capacity eviction and the entry count on /metrics", () -> metrics(c),
              text -> text.contains(evicted) && text.contains(entries));
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }
}
