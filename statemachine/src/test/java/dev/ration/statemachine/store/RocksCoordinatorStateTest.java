package dev.ration.statemachine.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.Fixtures;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.Workload;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Replay determinism, restart, checkpoint and restore on real RocksDB. */
class RocksCoordinatorStateTest {
  static final StateOptions OPTIONS = StateOptions.defaults();
  static final List<Batch> LOG = Workload.batches(42, 300);

  @TempDir Path dir;

  /** Applies LOG[from, to) at indexes from+1.., term 1; entries go through the codec like the log. */
  static void feed(RocksCoordinatorState state, int from, int to) {
    for (int i = from; i < to; i++) {
      Batch batch = BatchCodec.decode(BatchCodec.encode(LOG.get(i)));
      if (i % 50 == 7) {
        state.applyEmpty(1 + i / 100, i + 1);
      } else {
        state.apply(1 + i / 100, i + 1, batch);
      }
      state.verify();
    }
  }

  /** Goal: two replicas fed the same log are byte-equal; one restored half way agrees too. */
  @Test
  void replayDeterminismWithCheckpointHalfWay() {
    byte[] first;
    byte[] second;
    Path checkpoint = dir.resolve("cp");
    try (RocksCoordinatorState a = RocksCoordinatorState.open(dir.resolve("a"), OPTIONS)) {
      feed(a, 0, 150);
      CheckpointManifest manifest = a.checkpoint(checkpoint);
      assertEquals(150, manifest.index());
      assertEquals(manifest, RocksCoordinatorState.readManifest(checkpoint));
      feed(a, 150, LOG.size());
      first = a.canonicalState();
    }
    try (RocksCoordinatorState b = RocksCoordinatorState.open(dir.resolve("b"), OPTIONS)) {
      feed(b, 0, LOG.size());
      second = b.canonicalState();
      assertTrue(((QueryResult.StatusAnswer) b.query(new Query.Status(), 0)).leases() > 0,
          "the workload leaves leases behind");
    }
    assertArrayEquals(first, second);
    RocksCoordinatorState.restoreCheckpoint(checkpoint, dir.resolve("c"));
    try (RocksCoordinatorState c = RocksCoordinatorState.open(dir.resolve("c"), OPTIONS)) {
      assertEquals(150, c.appliedIndex());
      feed(c, 150, LOG.size());
      assertArrayEquals(first, c.canonicalState());
    }
  }

  /** Goal: close and reopen resumes index, term and now; nothing is applied twice. */
  @Test
  void restartResumes() {
    byte[] uninterrupted;
    try (RocksCoordinatorState u = RocksCoordinatorState.open(dir.resolve("u"), OPTIONS)) {
      feed(u, 0, LOG.size());
      uninterrupted = u.canonicalState();
    }
    long now;
    try (RocksCoordinatorState r = RocksCoordinatorState.open(dir.resolve("r"), OPTIONS)) {
      feed(r, 0, 100);
      now = r.nowMillis();
    }
    try (RocksCoordinatorState r = RocksCoordinatorState.open(dir.resolve("r"), OPTIONS)) {
      assertEquals(100, r.appliedIndex());
      assertEquals(1, r.appliedTerm());
      assertEquals(now, r.nowMillis());
      assertThrows(IllegalStateException.class, () -> r.apply(1, 100, LOG.get(99)));
      feed(r, 100, LOG.size());
      assertArrayEquals(uninterrupted, r.canonicalState());
    }
  }

  /**
   * Goal: idempotency records live in RocksDB, not in memory: after close and reopen a retried
   * key gets its first answer (and changes nothing), and the record counter kept in meta agrees.
   */
  @Test
  void retriedKeyIsAnsweredFromRocksDbAfterReopen() {
    RequestKey key = new RequestKey(5, 6, 7);
    Result first;
    try (RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS)) {
      s.apply(1, 0, Fixtures.batch(1_000, Fixtures.setLimit("t", "r", 100, 10, 1000, 100)));
      first = s.apply(1, 1, Batch.of(1_000, List.of(new Proposal(key, Fixtures.acquire("h", 10, 1)))))
          .get(0);
      assertInstanceOf(Result.LeaseGranted.class, first);
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS)) {
      assertEquals(1, status(s).idempotencyRecords());
      Result again = s.apply(1, 2,
          Batch.of(1_500, List.of(new Proposal(key, Fixtures.acquire("other", 99, 9))))).get(0);
      assertEquals(first, again);
      assertEquals(1, status(s).leases(), "the retry changed nothing");
      assertEquals(1, status(s).idempotencyRecords());
      s.verify();
      // After the retention the record is dropped by Tick, and the key runs anew.
      long dropAt = 1_000 + OPTIONS.idempotencyRetentionMillis();
      assertEquals(1_000 + 1_100, s.nextDueMillis(), "the lease's countedUntil comes first");
      assertEquals(List.of(new Result.Ticked(2)), s.apply(1, 3, Fixtures.batch(dropAt, new Tick(10))),
          "the lease and the record");
      assertEquals(0, status(s).idempotencyRecords());
      assertEquals(Long.MAX_VALUE, s.nextDueMillis());
      s.verify();
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS)) {
      assertEquals(0, status(s).idempotencyRecords());
      Result fresh = s.apply(1, 4,
          Batch.of(70_000, List.of(new Proposal(key, Fixtures.acquire("other", 5, 0))))).get(0);
      assertEquals("other", assertInstanceOf(Result.LeaseGranted.class, fresh).lease().holder());
    }
  }

  private static QueryResult.StatusAnswer status(RocksCoordinatorState s) {
    return (QueryResult.StatusAnswer) s.query(new Query.Status(), 0);
  }

  /** Goal: a checkpoint restores into a dir that already holds a state, replacing it. */
  @Test
  void restoreReplacesExistingData() {
    Path cp = dir.resolve("cp");
    try (RocksCoordinatorState a = RocksCoordinatorState.open(dir.resolve("a"), OPTIONS)) {
      feed(a, 0, 20);
      a.checkpoint(cp);
      assertThrows(StoreException.class, () -> a.checkpoint(cp), "target exists");
    }
    try (RocksCoordinatorState b = RocksCoordinatorState.open(dir.resolve("b"), OPTIONS)) {
      feed(b, 0, 60);
    }
    RocksCoordinatorState.restoreCheckpoint(cp, dir.resolve("b"));
    assertFalse(Files.exists(dir.resolve("b.backup")));
    assertFalse(Files.exists(dir.resolve("b.restoring")));
    try (RocksCoordinatorState b = RocksCoordinatorState.open(dir.resolve("b"), OPTIONS)) {
      assertEquals(20, b.appliedIndex());
    }
  }

  /** Goal: a flipped byte in a checkpoint file is refused, naming the file, and data is untouched. */
  @Test
  void corruptedCheckpointIsRefused() throws IOException {
    Path cp = dir.resolve("cp");
    try (RocksCoordinatorState a = RocksCoordinatorState.open(dir.resolve("a"), OPTIONS)) {
      feed(a, 0, 40);
      a.checkpoint(cp);
    }
    CheckpointManifest manifest = RocksCoordinatorState.readManifest(cp);
    String sst = manifest.fileChecksums().keySet().stream()
        .filter(n -> n.endsWith(".sst")).findFirst().orElseThrow();
    Path file = cp.resolve(sst);
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x5a;
    Files.delete(file); // checkpoint SSTs are hard links: never write through them
    Files.write(file, bytes);
    StoreException e = assertThrows(StoreException.class,
        () -> RocksCoordinatorState.restoreCheckpoint(cp, dir.resolve("a")));
    assertTrue(e.getMessage().contains(sst) && e.getMessage().contains("CRC32C"), e.getMessage());
    try (RocksCoordinatorState a = RocksCoordinatorState.open(dir.resolve("a"), OPTIONS)) {
      assertEquals(40, a.appliedIndex(), "the data dir was not replaced");
    }
    // A missing file and a tampered manifest are refused too.
    Files.delete(file);
    assertTrue(assertThrows(StoreException.class,
        () -> RocksCoordinatorState.restoreCheckpoint(cp, dir.resolve("x"))).getMessage().contains("missing"));
    Path manifestFile = cp.resolve(CheckpointManifest.FILE_NAME);
    Files.writeString(manifestFile, Files.readString(manifestFile).replace("index 40", "index 41"));
    assertTrue(assertThrows(StoreException.class, () -> RocksCoordinatorState.readManifest(cp))
        .getMessage().contains("CRC32C"));
  }

  /** Goal: after a failed apply the state refuses further use (fail-stop). */
  @Test
  void closedStateRefusesUse() {
    RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS);
    s.close();
    s.close();
    assertThrows(IllegalStateException.class, () -> s.query(new Query.Status(), 0));
  }

  /** Goal: a batch applied in one entry equals the same results as the reference encoding says. */
  @Test
  void resultsCountMatchesProposals() {
    try (RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS)) {
      List<Result> results = s.apply(1, 0, LOG.get(0));
      assertEquals(LOG.get(0).proposals().size(), results.size());
      assertInstanceOf(Result.LimitSet.class, results.get(0));
      assertEquals(0, s.appliedIndex());
    }
  }
}
