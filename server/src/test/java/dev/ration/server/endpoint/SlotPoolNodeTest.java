package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.RationClient;
import dev.ration.client.transport.RawClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.pool.PoolOptions;
import dev.ration.client.pool.WorkerPool;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.slots.LeasedSlots;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.testkit.Waits;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two worker pools sharing one concurrency cap C through slot leases on a real single-node
 * cluster (TCP endpoint, Raft, RocksDB). The jobs count themselves in one counter, which is what
 * the downstream would see: it must never pass C, also while C is lowered under load.
 */
class SlotPoolNodeTest {
  static final int C = 6;
  static final int W = 5;

  static Limit limit(long version) {
    return new Limit("acme", "db", 0, 0, Mode.HARD, 2_000, 200, 0, Policy.FAIR_SHARE, version);
  }

  @Test
  void twoPoolsStayUnderTheCapAlsoWhenItShrinks(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    CountedJobs jobs = new CountedJobs(C);
    try (RationClient client = new RationClient(RationClientOptions.builder()
        .addresses(List.of(c.clientAddress())).requestDeadline(Duration.ofSeconds(20)).build())) {
      Response.SlotLimitReply set = Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(100))
          .until("the cap is set", () -> {
            try {
              Response r = RawClient.of(client).call(new Request.SetLimitConcurrency(limit(0), C)).join();
              return r instanceof Response.SlotLimitReply s && s.outcome() == Outcome.SUCCESS
                  ? s : null;
            } catch (RuntimeException e) {
              return null; // not elected yet
            }
          }, r -> r != null);
      assertEquals(C, set.slots().concurrency());

      LeasedSlots slotsA = client.leasedSlots("acme", "db", "pool-a", W);
      LeasedSlots slotsB = client.leasedSlots("acme", "db", "pool-b", W);
      WorkerPool a = new WorkerPool(PoolOptions.of(W, 200), slotsA);
      WorkerPool b = new WorkerPool(PoolOptions.of(W, 200), slotsB);
      try {
        Instant end = Instant.now().plusSeconds(4);
        jobs.feed(List.of(a, b), end);
        assertTrue(jobs.maxSeen.get() >= C - 1,
            "both pools together used the cap (max seen " + jobs.maxSeen.get() + ")");
        assertTrue(slotsA.share() + slotsB.share() <= C,
            "shares " + slotsA.share() + " + " + slotsB.share());

        // Lower C while both pools are busy. Until the pools have renewed and shrunk, the jobs
        // already running keep their slots (the ledger keeps counting them); once both shares
        // fit the new C and the jobs from before have ended, no more than the new C run. (Two
        // lease durations are usually enough for that, but renewals run late on a loaded
        // machine: the test waits for the state, not for the time.)
        Response.SlotsReply before = assertInstanceOf(Response.SlotsReply.class,
            RawClient.of(client).call(new Request.GetSlots("acme", "db", false)).join());
        Response.SlotLimitReply lowered = assertInstanceOf(Response.SlotLimitReply.class,
            RawClient.of(client).call(new Request.SetLimitConcurrency(limit(before.status().version()), 2))
                .join());
        assertEquals(Outcome.SUCCESS, lowered.outcome(), lowered.message());
        Instant settleBy = Instant.now().plusSeconds(60);
        jobs.feed(List.of(a, b), settleBy,
            () -> slotsA.share() + slotsB.share() <= 2 && jobs.running.get() <= 2);
        assertTrue(slotsA.share() + slotsB.share() <= 2 && jobs.running.get() <= 2,
            "not settled under the new cap within a minute: shares " + slotsA.share() + " + "
                + slotsB.share() + ", running " + jobs.running.get());
        jobs.cap.set(2);
        jobs.maxSeen.set(0);
        jobs.feed(List.of(a, b), Instant.now().plusSeconds(3));
        assertTrue(jobs.maxSeen.get() <= 2, "after the shrink settled, max seen " + jobs.maxSeen.get());
        assertTrue(jobs.maxSeen.get() >= 1, "work still ran under the smaller cap");
        assertEquals(0, jobs.violations.get(), "concurrency above the cap");
        Response.SlotsReply after = assertInstanceOf(Response.SlotsReply.class,
            RawClient.of(client).call(new Request.GetSlots("acme", "db", false)).join());
        assertTrue(after.status().countedSlots() <= 2, "counted " + after.status());
      } finally {
        a.shutdown(Instant.now().plusSeconds(5), dev.ration.client.pool.ShutdownPolicy.CANCEL_QUEUED);
        b.shutdown(Instant.now().plusSeconds(5), dev.ration.client.pool.ShutdownPolicy.CANCEL_QUEUED);
        slotsA.close();
        slotsB.close();
      }
      Response.SlotsReply returned = assertInstanceOf(Response.SlotsReply.class,
          RawClient.of(client).call(new Request.GetSlots("acme", "db", false)).join());
      assertEquals(0, returned.status().countedSlots(), "closing returned both leases");
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }
}
