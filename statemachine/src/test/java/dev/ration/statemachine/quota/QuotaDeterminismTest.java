package dev.ration.statemachine.quota;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.Overage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay determinism with quotas: replicas fed the same log (every entry through the log codec,
 * as Ratis would carry it) end with byte-equal state, including one restored from a checkpoint
 * half way; reservation ids, log sequences and versions come out the same everywhere.
 */
class QuotaDeterminismTest {
  @TempDir Path dir;

  /** A fixed-seed workload over all quota commands, with Ticks and time moving on. */
  private static List<Batch> log() {
    Random random = new Random(6);
    List<Batch> log = new ArrayList<>();
    long now = 1_000;
    long seq = 1;
    log.add(Batch.of(now, List.of(
        new Proposal(new RequestKey(1, 1, seq++), new SetQuota(new QuotaSpec("acme", "jobs", QuotaKind.CONCURRENT,
            Window.NONE, 40, "jobs", 30, Overage.ALLOW, 5, 0, 0, "ops", 0, "seed"))),
        new Proposal(new RequestKey(1, 1, seq++), new SetQuota(new QuotaSpec("acme/t1", "jobs",
            QuotaKind.CONCURRENT, Window.NONE, 20, "jobs", 0, Overage.REJECT, 0, 0, 0, "ops", 0, "seed"))),
        new Proposal(new RequestKey(1, 1, seq++), new SetQuota(new QuotaSpec("acme", "calls", QuotaKind.RATE,
            Window.SECOND, 50, "calls", 40, Overage.REJECT, 0, 0, 0, "ops", 0, "seed"))))));
    for (int i = 0; i < 300; i++) {
      now += random.nextInt(400);
      List<Proposal> proposals = new ArrayList<>();
      int n = 1 + random.nextInt(4);
      for (int j = 0; j < n; j++) {
        Command c = switch (random.nextInt(8)) {
          case 0, 1, 2 -> new Reserve(random.nextBoolean() ? "acme/t1/p" : "acme/t2",
              List.of(new Reserve.Item(random.nextBoolean() ? "jobs" : "calls", 1 + random.nextInt(6))),
              0, 500 + random.nextInt(5_000));
          case 3 -> new CompleteReservation(1 + random.nextInt(60), List.of((long) random.nextInt(3)));
          case 4 -> new CancelReservation(1 + random.nextInt(60));
          case 5 -> new IngestUsage("svc-" + random.nextInt(100), now - random.nextInt(10_000),
              "acme/t" + (1 + random.nextInt(2)), "bytes", random.nextInt(1000), "B", 0);
          case 6 -> new AckUsage("billing", random.nextInt(20));
          default -> new Reconcile("acme/t1/p", "", 0, now + 1, "ops", "nightly");
        };
        proposals.add(new Proposal(new RequestKey(1, 1, random.nextInt(10) == 0 ? seq - 1 : seq++), c));
      }
      if (random.nextInt(3) == 0) {
        proposals.add(new Proposal(RequestKey.NONE, new Tick(1 + random.nextInt(20))));
      }
      // Through the log format, as every replica receives it.
      log.add(BatchCodec.decode(BatchCodec.encode(Batch.of(now, proposals))));
    }
    return log;
  }

  private static void feed(RocksCoordinatorState s, List<Batch> log, int from, int to) {
    for (int i = from; i < to; i++) {
      s.apply(1, i, log.get(i));
    }
    s.verify();
  }

  @Test
  void replicasEndByteEqualIncludingOneRestoredFromACheckpoint() {
    List<Batch> log = log();
    StateOptions options = StateOptions.defaults();
    Path checkpoint = dir.resolve("cp");
    byte[] first;
    try (RocksCoordinatorState a = RocksCoordinatorState.open(dir.resolve("a"), options)) {
      feed(a, log, 0, 150);
      a.checkpoint(checkpoint);
      feed(a, log, 150, log.size());
      first = a.canonicalState();
      QuotaAnswer.QuotaStatusAnswer status = (QuotaAnswer.QuotaStatusAnswer)
          ((QueryResult.Quota) a.query(new Query.Quota(new QuotaQuery.QuotaStatus()), 0)).answer();
      assertTrue(status.lastSequence() > 20, "the workload writes the usage log: " + status);
      assertTrue(status.nextReservationId() > 20, "the workload reserves: " + status);
    }
    try (RocksCoordinatorState b = RocksCoordinatorState.open(dir.resolve("b"), options)) {
      feed(b, log, 0, log.size());
      assertArrayEquals(first, b.canonicalState());
    }
    RocksCoordinatorState.restoreCheckpoint(checkpoint, dir.resolve("c"));
    try (RocksCoordinatorState c = RocksCoordinatorState.open(dir.resolve("c"), options)) {
      assertEquals(149, c.appliedIndex());
      feed(c, log, 150, log.size());
      assertArrayEquals(first, c.canonicalState());
    }
  }
}
