package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.ttl.Change;
import dev.ration.client.ttl.Entry;
import dev.ration.client.ttl.NamespaceSpec;
import dev.ration.client.ttl.NearCache;
import dev.ration.client.ttl.TtlWatch;
import dev.ration.client.ttl.TtlWatchListener;
import dev.ration.client.ttl.WriteResult;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.limiter.ThreeNodes;
import dev.ration.testkit.Waits;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Outcome;
import dev.ration.wire.ChangeKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Watches and the near cache on a real three-node cluster (in-process {@link RationNode}s:
 * Ratis, RocksDB, the Netty endpoint on loopback), a writer on one client and the watcher or
 * cache on another: every change told in log order and resumable; the coherence rule (never
 * older than a change told, never expired, never staler than its bound) through writes and a
 * leader kill; a cache that missed changes across a restart of every node resyncs, and a
 * restarted reader starts empty and serves from memory again.
 */
class NearCacheNodeTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration SHORT_TTL = Duration.ofMillis(300);
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

  private List<String> start(List<ServerConfig> configs) throws Exception {
    for (ServerConfig c : configs) {
      nodes.add(RationNode.start(c));
    }
    return configs.stream().map(ServerConfig::clientAddress).toList();
  }

  private RationClient client(List<String> addresses, Duration deadline) {
    RationClient c = new RationClient(RationClientOptions.builder().addresses(addresses)
        .requestDeadline(deadline).build());
    closing.add(c);
    return c;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A put retried until the cluster has a leader that takes it. */
  private static WriteResult firstWrite(RationClient writer, String ns, String key, String value) {
    return ok(Waits.upTo(WAIT).every(Duration.ofMillis(100)).until("a write to " + ns + "/" + key,
        () -> {
          try {
            return writer.ttl().put(ns, key, utf8(value), Duration.ofMinutes(5));
          } catch (RationException e) {
            return null; // no leader yet
          }
        }, w -> w != null));
  }

  private static WriteResult ok(WriteResult w) {
    assertEquals(Outcome.SUCCESS, w.outcome(), w.message());
    return w;
  }

  /** Collects what a watch tells. */
  static final class Collected implements TtlWatchListener {
    final List<Change> changes = new CopyOnWriteArrayList<>();
    final List<Long> compacted = new CopyOnWriteArrayList<>();

    @Override
    public void onChanges(List<Change> c, long throughIndex) {
      changes.addAll(c);
    }

    @Override
    public void onCompacted(long throughIndex) {
      compacted.add(throughIndex);
    }

    List<String> kinds(String key) {
      return changes.stream().filter(c -> c.key().equals(key))
          .map(c -> c.kind() + "@" + c.version()).toList();
    }
  }

  /**
   * Goal: a watch tells puts, updates, refreshes, deletes, expiries and evictions of its
   * namespace only, in log order, with the versions the writes returned; a second watch started
   * from a position in the middle is told exactly the rest.
   */
  @Test
  void aWatchTellsEveryChangeInLogOrderAndResumesFromItsPosition(@TempDir Path dir) throws Exception {
    List<ServerConfig> configs = ThreeNodes.configs(dir, "near-cache-");
    List<String> addresses = start(configs);
    RationClient writer = client(addresses, Duration.ofSeconds(15));
    RationClient watcher = client(addresses, Duration.ofSeconds(15));
    firstWrite(writer, "w", "warm", "x");
    Collected all = new Collected();
    TtlWatch watch = watcher.ttl().watch("w", -1, all);
    closing.add(watch);
    watch.awaitStarted(30, TimeUnit.SECONDS);

    WriteResult p1 = ok(writer.ttl().put("w", "k", utf8("one"), Duration.ofMinutes(1)));
    WriteResult u = ok(writer.ttl().update("w", "k", utf8("two"), p1.version()));
    WriteResult r = ok(writer.ttl().refresh("w", "k", Duration.ofMinutes(2), u.version()));
    ok(writer.ttl().put("other", "k", utf8("elsewhere"), Duration.ofMinutes(1)));
    assertTrue(writer.ttl().delete("w", "k", 0).existed());
    WriteResult s = ok(writer.ttl().put("w", "short", utf8("s"), Duration.ofMillis(200)));
    assertEquals(Outcome.SUCCESS, writer.ttl().setNamespace(new NamespaceSpec("w-small", 1, 1 << 20,
        CapacityPolicy.EVICT_SOONEST_EXPIRING)).outcome());
    Collected small = new Collected();
    TtlWatch smallWatch = watcher.ttl().watch("w-small", -1, small);
    closing.add(smallWatch);
    smallWatch.awaitStarted(30, TimeUnit.SECONDS);
    WriteResult e1 = ok(writer.ttl().put("w-small", "e1", utf8("a"), Duration.ofMinutes(1)));
    WriteResult e2 = ok(writer.ttl().put("w-small", "e2", utf8("b"), Duration.ofMinutes(1)));

    Waits.upTo(WAIT).every(Duration.ofMillis(50)).until("the short entry's expiry told",
        () -> all.kinds("short"), k -> k.contains("EXPIRE@" + s.version()));
    assertEquals(List.of("PUT@" + p1.version(), "PUT@" + u.version(), "REFRESH@" + u.version(),
        "DELETE@" + u.version()), all.kinds("k"));
    assertEquals(r.expiresAt(), all.changes.stream().filter(c -> c.kind() == ChangeKind.REFRESH)
        .findFirst().orElseThrow().expiresAt());
    assertEquals("two", new String(all.changes.get(1).value(), StandardCharsets.UTF_8));
    assertTrue(all.changes.stream().allMatch(c -> c.namespace().equals("w")), "namespace w only");
    List<Long> indexes = all.changes.stream().map(Change::index).toList();
    List<Long> sorted = new ArrayList<>(indexes);
    Collections.sort(sorted);
    assertEquals(sorted, indexes, "log order");
    Waits.upTo(WAIT).every(Duration.ofMillis(50)).until("the eviction told",
        () -> small.kinds("e1"), k -> k.contains("EVICT@" + e1.version()));
    assertEquals(List.of("PUT@" + e1.version(), "EVICT@" + e1.version()), small.kinds("e1"));
    assertEquals(List.of("PUT@" + e2.version()), small.kinds("e2"));

    // Resume after the update: told exactly the refresh, the delete, and what came after.
    long after = all.changes.get(1).index();
    Collected resumed = new Collected();
    TtlWatch second = watcher.ttl().watch("w", after, resumed);
    closing.add(second);
    Waits.upTo(WAIT).every(Duration.ofMillis(50)).until("the resumed watch caught up",
        () -> resumed.changes.size(), n -> n >= all.changes.size() - 2);
    assertEquals(all.changes.subList(2, all.changes.size()), resumed.changes);
    assertTrue(all.compacted.isEmpty() && resumed.compacted.isEmpty(), "nothing was missed");
    // A position this cluster never reached (another cluster's, or from before a restore):
    // told "compacted" after one poll's wait, and continued from the cluster's own index.
    Collected foreign = new Collected();
    TtlWatch fromElsewhere = watcher.ttl().watch("w", 1_000_000_000L, foreign);
    closing.add(fromElsewhere);
    Waits.upTo(WAIT).every(Duration.ofMillis(50)).until("the foreign position told compacted",
        () -> foreign.compacted, c -> !c.isEmpty());
    assertTrue(foreign.compacted.get(0) < 1_000_000_000L, foreign.compacted.toString());
    assertEquals(foreign.compacted.get(0), fromElsewhere.position());
    // The leader shows the polls waiting at it and every node the changes it holds.
    Waits.upTo(WAIT).every(Duration.ofMillis(100)).until("polls waiting on /metrics",
        () -> metricSum(configs, "ration_ttl_watch_polls_waiting"), n -> n >= 1);
    for (ServerConfig c : configs) {
      assertTrue(metricSum(List.of(c), "ration_ttl_watch_changes_held") >= all.changes.size(),
          c.adminAddress());
    }
  }

  private static double metricSum(List<ServerConfig> configs, String name) throws Exception {
    double sum = 0;
    for (ServerConfig c : configs) {
      String body = java.net.http.HttpClient.newHttpClient().send(
          java.net.http.HttpRequest.newBuilder(java.net.URI.create(
              "http://" + c.adminAddress() + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      for (String line : body.split("\n")) {
        if (line.startsWith(name + " ")) {
          sum += Double.parseDouble(line.substring(name.length() + 1).trim());
        }
      }
    }
    return sum;
  }

  /**
   * Goal: the coherence rule through writes and a leader kill. A writer puts versions of one key
   * (and, every 25 puts, a key with a TTL of 300 ms); a reader's near cache is read in a loop.
   * Every get returns a version at least the newest the cache told its listener of before the
   * get began, at least the newest acknowledged more than maxStaleness before it began, and never
   * a version of the short key once its TTL has passed since that put was acknowledged (unless
   * the leader died in between: ledger time pauses for the election, and the entry lives on for
   * it). After the leader dies, reads go to the cluster until the cache is current again, then
   * are answered from memory again.
   */
  @Test
  void theCoherenceRuleHoldsThroughWritesAndALeaderKill(@TempDir Path dir) throws Exception {
    List<ServerConfig> configs = ThreeNodes.configs(dir, "near-cache-");
    List<String> addresses = start(configs);
    RationClient writer = client(addresses, Duration.ofSeconds(15));
    RationClient reader = client(addresses, Duration.ofSeconds(3));
    firstWrite(writer, "c", "k", "0");
    AtomicLong told = new AtomicLong();
    Duration staleness = Duration.ofMillis(1_500);
    NearCache cache = reader.ttl().cached("c", NearCache.Options.defaults()
        .withStaleness(Duration.ofMillis(500), staleness)
        .withListener((changes, through) -> changes.stream().filter(ch -> ch.key().equals("k"))
            .forEach(ch -> told.accumulateAndGet(ch.version(), Math::max))));
    closing.add(cache);
    cache.awaitCurrent(30, TimeUnit.SECONDS);

    // Acknowledged writes of k: (ack nanos, version), appended by the writer thread.
    List<long[]> acked = new CopyOnWriteArrayList<>();
    // Versions of the short-lived key and when each put of it was acknowledged.
    Map<Long, Long> shortAcks = new ConcurrentHashMap<>();
    AtomicLong killNanos = new AtomicLong(Long.MAX_VALUE);
    long runNanos = TimeUnit.SECONDS.toNanos(14);
    long start = System.nanoTime();
    Thread writing = new Thread(() -> {
      int i = 1;
      while (System.nanoTime() - start < runNanos) {
        try {
          WriteResult w = writer.ttl().put("c", "k", utf8("v" + i++), Duration.ofMinutes(5));
          if (w.outcome() == Outcome.SUCCESS) {
            acked.add(new long[] {System.nanoTime(), w.version()});
          }
          if (i % 25 == 0) {
            WriteResult sw = writer.ttl().put("c", "short", utf8("s"), SHORT_TTL);
            if (sw.outcome() == Outcome.SUCCESS) {
              shortAcks.put(sw.version(), System.nanoTime());
            }
          }
          // Pacing, not a wait for a condition: about 50 writes a second leave the reader's
          // gets room on two cores, so what is measured is the cache, not a starved machine.
          Thread.sleep(20);
        } catch (RationException e) {
          // during the election: the next write goes on
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "near-cache-writer");
    writing.start();

    String killed = null;
    long gets = 0;
    long failed = 0;
    long hitsAfterKill = -1;
    boolean shortSeenLive = false;
    while (System.nanoTime() - start < runNanos) {
      if (killed == null && System.nanoTime() - start > TimeUnit.SECONDS.toNanos(5)) {
        killNanos.set(System.nanoTime());
        killed = killLeader(writer, configs);
        hitsAfterKill = cache.stats().memoryHits();
      }
      long began = System.nanoTime();
      long toldBefore = told.get();
      long ackedBefore = 0;
      for (long[] a : acked) {
        if (a[0] < began - staleness.toNanos()) {
          ackedBefore = Math.max(ackedBefore, a[1]);
        }
      }
      try {
        Entry e = cache.get("k").orElseThrow(() -> new AssertionError("k is never absent"));
        gets++;
        assertTrue(e.version() >= toldBefore, "get returned version " + e.version()
            + " after the cache told of " + toldBefore);
        assertTrue(e.version() >= ackedBefore, "get returned version " + e.version()
            + " though " + ackedBefore + " was acknowledged more than " + staleness + " before");
        Optional<Entry> s = cache.get("short");
        Long ack = s.map(x -> shortAcks.get(x.version())).orElse(null);
        if (ack != null) {
          shortSeenLive = true;
          // Ledger time runs with real time except across a leader change (it pauses for the
          // election, so an entry then lives longer than its TTL): judged only without one.
          boolean leaderChanged = ack < killNanos.get() && killNanos.get() < began;
          assertTrue(leaderChanged || began - ack < SHORT_TTL.toNanos(),
              "the short entry " + s.get() + " was served " + (began - ack) / 1_000_000
                  + " ms after its put was acknowledged, past its TTL of " + SHORT_TTL + "; "
                  + cache.stats());
        }
      } catch (RationException e) {
        failed++; // the cluster had to be asked during the election and could not answer
      }
      Thread.sleep(2); // pacing of the bounded read loop (runNanos), as the writer's
    }
    writing.join(TimeUnit.SECONDS.toMillis(20));
    NearCache.Stats st = cache.stats();
    assertTrue(killed != null);
    assertTrue(gets > 100, "reads were served: " + gets + " ok, " + failed + " failed, " + st);
    assertTrue(shortSeenLive, "the short entry was read while live at least once: " + st);
    assertTrue(st.memoryHits() > hitsAfterKill, "memory answered again after the kill: " + st);
    assertTrue(st.changesApplied() > 10, "changes were applied: " + st);
    Waits.upTo(WAIT).every(Duration.ofMillis(50)).until("the cache is current",
        cache::isCurrent, c -> c);
    long last = acked.get(acked.size() - 1)[1];
    Waits.upTo(WAIT).every(Duration.ofMillis(20)).until("the last write visible in the cache",
        () -> cache.get("k").orElseThrow().version(), v -> v >= last);
  }

  /**
   * Goal: a cache that fell behind while every node restarted (their buffers begin at the index
   * they opened at) is told "compacted", drops what it held, and reads the current value.
   */
  @Test
  void aCacheThatMissedChangesAcrossARestartResyncs(@TempDir Path dir) throws Exception {
    List<ServerConfig> configs = ThreeNodes.configs(dir, "near-cache-");
    List<String> addresses = start(configs);
    RationClient writer = client(addresses, Duration.ofSeconds(15));
    RationClient reader = client(addresses, Duration.ofSeconds(5));
    firstWrite(writer, "r", "k", "v1");
    CountDownLatch blocked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Set<String> armed = ConcurrentHashMap.newKeySet();
    Collected seen = new Collected();
    NearCache cache = reader.ttl().cached("r", NearCache.Options.defaults().withListener(
        new TtlWatchListener() {
          @Override
          public void onChanges(List<Change> changes, long throughIndex) {
            seen.onChanges(changes, throughIndex);
            if (armed.remove("block")) {
              blocked.countDown();
              try {
                release.await(60, TimeUnit.SECONDS); // holds the cache's watch back
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }

          @Override
          public void onCompacted(long throughIndex) {
            seen.onCompacted(throughIndex);
          }
        }));
    closing.add(cache);
    cache.awaitCurrent(30, TimeUnit.SECONDS);
    assertEquals("v1", new String(cache.get("k").orElseThrow().value(), StandardCharsets.UTF_8));

    armed.add("block");
    ok(writer.ttl().put("r", "k", utf8("v2"), Duration.ofMinutes(5)));
    assertTrue(blocked.await(30, TimeUnit.SECONDS), "the cache's watch saw v2");
    WriteResult v3 = ok(writer.ttl().put("r", "k", utf8("v3"), Duration.ofMinutes(5)));
    // Every node applies v3 before it stops, so each reopens past it: a node that had not would
    // replay v3 from its log into its buffer, and the cache would simply be told of it.
    long commit = nodes.stream().mapToLong(n -> n.consensus().status().commitIndex()).max()
        .orElseThrow();
    Waits.upTo(WAIT).every(Duration.ofMillis(20)).until("every node applied " + commit,
        () -> nodes.stream().mapToLong(n -> n.consensus().status().appliedIndex()).min()
            .orElseThrow(), a -> a >= commit);
    for (RationNode n : nodes) {
      n.shutdown();
    }
    nodes.clear();
    start(configs);
    firstWrite(writer, "r", "other", "x");
    release.countDown();

    Waits.upTo(WAIT).every(Duration.ofMillis(50)).until("the cache resynced",
        () -> cache.stats().resyncs(), n -> n >= 1);
    assertTrue(!seen.compacted.isEmpty(), "its listener was told");
    Waits.upTo(WAIT).every(Duration.ofMillis(50)).until("the cache is current",
        cache::isCurrent, c -> c);
    Entry now = cache.get("k").orElseThrow();
    assertEquals(v3.version(), now.version());
    assertEquals("v3", new String(now.value(), StandardCharsets.UTF_8));
    Set<Long> versions = new HashSet<>();
    seen.changes.forEach(c -> versions.add(c.version()));
    assertTrue(!versions.contains(v3.version()), "v3 was never told as a change: it was missed");

    // The reader restarts: a new client and cache start empty, load, and answer from memory.
    cache.close();
    RationClient restarted = client(addresses, Duration.ofSeconds(5));
    NearCache again = restarted.ttl().cached("r", NearCache.Options.defaults());
    closing.add(again);
    again.awaitCurrent(30, TimeUnit.SECONDS);
    assertEquals(v3.version(), again.get("k").orElseThrow().version());
    assertEquals(v3.version(), again.get("k").orElseThrow().version());
    assertEquals(1, again.stats().loads(), again.stats().toString());
    assertEquals(1, again.stats().memoryHits(), again.stats().toString());
  }

  private String killLeader(RationClient admin, List<ServerConfig> configs) {
    Set<String> ids = new HashSet<>();
    configs.forEach(c -> ids.add(c.consensus().nodeId()));
    String leader = Waits.upTo(Duration.ofSeconds(20)).every(Duration.ofMillis(50)).until(
        "a leader named by " + ids, () -> admin.clusterStatus().leaderId(), ids::contains);
    for (int i = 0; i < configs.size(); i++) {
      if (configs.get(i).consensus().nodeId().equals(leader)) {
        nodes.get(i).abort();
        return leader;
      }
    }
    throw new AssertionError("leader " + leader + " is not one of " + ids);
  }
}
