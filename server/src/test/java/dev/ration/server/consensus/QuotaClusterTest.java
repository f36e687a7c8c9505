package dev.ration.server.consensus;

import dev.ration.wire.quota.QuotaSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.statemachine.query.Reservation;
import dev.ration.wire.quota.UsageEvent;
import dev.ration.wire.Window;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reservations on a real 3-node cluster (Ratis over gRPC on 127.0.0.1, RocksDB): a stream of
 * reservations with the leader killed in the middle. Goal: no acknowledged reservation is lost,
 * none is doubled (a retried request id gets its first reservation back), and the held amount
 * at every level equals the acknowledged reservations.
 */
class QuotaClusterTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private long sequence = 1;

  @TempDir Path dir;

  private RequestKey key() {
    return new RequestKey(0xC0FFEE, 6, sequence++);
  }

  private static QuotaAnswer quota(InProcessCluster cluster, QuotaQuery q) {
    QueryResult r = cluster.query(new Query.Quota(q), WAIT);
    return ((QueryResult.Quota) r).answer();
  }

  @Test
  void leaderKillDuringAStreamOfReservationsLosesAndDoublesNothing() {
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> o).startAll()) {
      cluster.awaitLeader(WAIT);
      cluster.submit(key(), new SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT, Window.NONE, 1_000,
          "jobs", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")), WAIT);
      cluster.submit(key(), new SetQuota(new QuotaSpec("acme/t1", "jobs", QuotaKind.CONCURRENT, Window.NONE,
          500, "jobs", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")), WAIT);
      Map<RequestKey, Reserve> sent = new LinkedHashMap<>();
      Map<RequestKey, Long> acknowledged = new LinkedHashMap<>();
      long amount = 0;
      for (int i = 0; i < 60; i++) {
        if (i == 20) {
          String leader = cluster.idOf(cluster.awaitLeader(WAIT));
          cluster.stop(leader); // mid-stream: the next reservations go through a new leader
        }
        String scope = i % 2 == 0 ? "acme/t1/p" + (i % 3) : "acme/t2";
        Reserve reserve = new Reserve(scope, List.of(new Reserve.Item("jobs", 1 + i % 4)), 0,
            600_000);
        RequestKey key = key();
        Result r = cluster.submit(key, reserve, WAIT);
        QuotaResult.Reserved ok = (QuotaResult.Reserved) ((Result.Quota) r).result();
        sent.put(key, reserve);
        acknowledged.put(key, ok.reservationId());
        amount += 1 + i % 4;
      }
      // Retries of every request id (as a client would after an indeterminate failure).
      for (Map.Entry<RequestKey, Reserve> e : sent.entrySet()) {
        Result again = cluster.submit(e.getKey(), e.getValue(), WAIT);
        assertEquals(acknowledged.get(e.getKey()),
            ((QuotaResult.Reserved) ((Result.Quota) again).result()).reservationId(),
            "retried request " + e.getKey() + " must get its first reservation");
      }
      List<Reservation> outstanding = ((QuotaAnswer.ReservationList) quota(cluster,
          new QuotaQuery.ListReservations(""))).reservations();
      Set<Long> ids = new HashSet<>();
      outstanding.forEach(r -> ids.add(r.reservationId()));
      assertEquals(new HashSet<>(acknowledged.values()), ids, "no acknowledged reservation lost");
      assertEquals(60, outstanding.size(), "none doubled");
      QuotaAnswer.QuotaFound org = (QuotaAnswer.QuotaFound) quota(cluster,
          new QuotaQuery.GetQuota("acme", "jobs"));
      assertEquals(amount, org.quota().orElseThrow().usage().held());
      // Settle one through the new leader: exactly one usage event.
      long first = acknowledged.values().iterator().next();
      RequestKey complete = key();
      cluster.submit(complete, new CompleteReservation(first, List.of(1L)), WAIT);
      cluster.submit(complete, new CompleteReservation(first, List.of(1L)), WAIT);
      List<UsageEvent> log = ((QuotaAnswer.UsageBatch) quota(cluster,
          new QuotaQuery.ReadUsage("", 1, 1_000))).events();
      assertEquals(1, log.size());
      assertEquals(first, log.get(0).reservationId());
      assertTrue(cluster.fatalErrors.isEmpty(), cluster.fatalErrors.toString());
    }
  }

  /** Eight clients race for the last unit through the group-commit pipeline: exactly one wins. */
  @Test
  void concurrentReservationsRaceForTheLastUnit() throws Exception {
    try (InProcessCluster cluster = new InProcessCluster(dir, 3, o -> o).startAll()) {
      cluster.awaitLeader(WAIT);
      cluster.submit(key(), new SetQuota(new QuotaSpec("race", "slots", QuotaKind.CONCURRENT, Window.NONE, 1,
          "slots", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")), WAIT);
      java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
      try {
        List<java.util.concurrent.Future<QuotaResult>> answers = new java.util.ArrayList<>();
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        for (int i = 0; i < 8; i++) {
          RequestKey k = key();
          answers.add(pool.submit(() -> {
            go.await();
            return ((Result.Quota) cluster.submit(k, new Reserve("race/t" + k.sequence(),
                List.of(new Reserve.Item("slots", 1)), 0, 600_000), WAIT)).result();
          }));
        }
        go.countDown();
        int won = 0;
        int refused = 0;
        for (java.util.concurrent.Future<QuotaResult> f : answers) {
          QuotaResult r = f.get(60, java.util.concurrent.TimeUnit.SECONDS);
          if (r instanceof QuotaResult.Reserved) {
            won++;
          } else if (r instanceof QuotaResult.QuotaRejected no && no.levelScope().equals("race")) {
            refused++;
          }
        }
        assertEquals(1, won, "exactly one reservation gets the last unit");
        assertEquals(7, refused, "the others are refused at the org level");
      } finally {
        pool.shutdownNow();
      }
      assertTrue(cluster.fatalErrors.isEmpty(), cluster.fatalErrors.toString());
    }
  }
}
