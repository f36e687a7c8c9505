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
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.Workload;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
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

  /**
   * Goal: a crash (no close, no flush) loses only the memtables, which hold no WAL copy: the
   * directory as the crash leaves it (copied while the store is open, after a checkpoint at
   * 150 flushed everything up to it) opens at the last flushed index, every family agreeing
   * with it (atomic flush), and replaying the rest of the log gives the uninterrupted state.
   */
  @Test
  void crashLosesOnlyTheMemtablesAndReplayRestoresTheState() throws IOException {
    byte[] uninterrupted;
    Path crashed = dir.resolve("crashed");
    try (RocksCoordinatorState a = RocksCoordinatorState.open(dir.resolve("a"), OPTIONS)) {
      feed(a, 0, 150);
      a.checkpoint(dir.resolve("cp")); // flushes every family at 150
      feed(a, 150, LOG.size());
      Files.createDirectories(crashed);
      try (java.util.stream.Stream<Path> files = Files.list(dir.resolve("a"))) {
        for (Path f : files.toList()) {
          if (!f.getFileName().toString().equals("LOCK")) {
            Files.copy(f, crashed.resolve(f.getFileName()));
          }
        }
      }
      uninterrupted = a.canonicalState();
    }
    try (RocksCoordinatorState c = RocksCoordinatorState.open(crashed, OPTIONS)) {
      assertEquals(150, c.appliedIndex(), "the last flush, not the last apply");
      c.verify();
      feed(c, 150, LOG.size());
      assertArrayEquals(uninterrupted, c.canonicalState());
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
      first = keyed(s, 1, 1_000, key, Fixtures.acquire("h", 10, 1));
      assertInstanceOf(Result.LeaseGranted.class, first);
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS)) {
      assertEquals(1, status(s).idempotencyRecords());
      Result again = keyed(s, 2, 1_500, key, Fixtures.acquire("h", 10, 1));
      assertEquals(first, again);
      assertEquals(1, status(s).leases(), "the retry changed nothing");
      assertEquals(1, status(s).idempotencyRecords());
      s.verify();
      // Tick frees the lease; the record is not Tick's: it stops answering at its expiry and
      // stays stored until its generation [60 s, 120 s) (on the retention grid) has expired whole.
      long expiry = 1_000 + OPTIONS.idempotencyRetentionMillis();
      assertEquals(1_000 + 1_100, s.nextDueMillis(), "the lease's countedUntil");
      assertEquals(List.of(new Result.Ticked(1)), s.apply(1, 3, Fixtures.batch(expiry, new Tick(10))));
      assertEquals(1, status(s).idempotencyRecords());
      assertEquals(Long.MAX_VALUE, s.nextDueMillis());
      s.verify();
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS)) {
      assertEquals(1, status(s).idempotencyRecords(), "the expired record, until its generation goes");
      Result fresh = keyed(s, 4, 70_000, key, Fixtures.acquire("other", 5, 0));
      assertEquals("other", assertInstanceOf(Result.LeaseGranted.class, fresh).lease().holder(),
          "expired at 61 s, so the retry at 70 s ran anew");
      assertEquals(2, status(s).idempotencyRecords());
      s.verify();
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(dir.resolve("s"), OPTIONS)) {
      s.apply(1, 5, Fixtures.batch(2 * OPTIONS.idempotencyRetentionMillis() - 1, new Tick(0)));
      assertEquals(1, status(s).idempotencyRecords(), "the first generation went in one range delete");
      s.verify();
      Result again = keyed(s, 6, 125_000, key, Fixtures.acquire("other", 5, 0));
      assertEquals("other", assertInstanceOf(Result.LeaseGranted.class, again).lease().holder(),
          "the new record answers from the second generation");
    }
  }

  /** Applies one entry at {@code timeMillis} holding one proposal under {@code key}; its result. */
  private static Result keyed(RocksCoordinatorState s, long index, long timeMillis, RequestKey key,
      Command command) {
    return s.apply(1, index, Batch.of(timeMillis, List.of(new Proposal(key, command)))).get(0);
  }

  /**
   * Goal: a checkpoint written by the last build of store format 2 (210a28c; generator in
   * src/test/fixtures/MakeFormatTwo.java.txt: a limit with 600 s leases; h1 acquired at 1 s
   * under key (5, 6, 1), h2 at 2 s under (5, 6, 2), h1 renewed at 30 s under (5, 6, 3)) is
   * restored and opened by this build: migrated in place once, verified, its records still
   * answer retries, and the lease index, no longer stored, is rebuilt from the leases.
   */
  @Test
  void formatTwoCheckpointIsMigratedAtOpen() throws Exception {
    Path cp = dir.resolve("cp");
    Files.createDirectories(cp);
    Path fixture = Path.of(getClass().getResource("/format2-checkpoint").toURI());
    try (java.util.stream.Stream<Path> files = Files.list(fixture)) {
      for (Path f : files.toList()) {
        Files.copy(f, cp.resolve(f.getFileName()));
      }
    }
    Path state = dir.resolve("state");
    RocksCoordinatorState.restoreCheckpoint(cp, state);
    RequestKey k1 = new RequestKey(5, 6, 1);
    try (RocksCoordinatorState s = RocksCoordinatorState.open(state, OPTIONS)) {
      assertEquals(java.util.OptionalLong.of(3), s.migratedFromFormatTwo(), "three records kept");
      assertEquals(3, s.appliedIndex());
      assertEquals(2, status(s).leases());
      assertEquals(3, status(s).idempotencyRecords());
      s.verify();
      assertEquals(603_000, s.nextDueMillis(), "h2's countedUntil, from the rebuilt lease index");
      Result again = keyed(s, 4, 40_000, k1, Fixtures.acquire("other", 99, 9));
      Result.LeaseGranted first = assertInstanceOf(Result.LeaseGranted.class, again);
      assertEquals("h1", first.lease().holder(), "the first answer, from the migrated record");
      assertEquals(2, first.lease().version());
      assertEquals(2, status(s).leases(), "the retry changed nothing");
      assertEquals(List.of(new Result.Ticked(1)),
          s.apply(1, 5, Fixtures.batch(603_000, new Tick(10))), "h2 freed at its countedUntil");
      assertEquals(1, status(s).leases());
      assertEquals(0, status(s).idempotencyRecords(), "generation [60 s, 120 s) expired whole");
      s.verify();
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(state, OPTIONS)) {
      assertTrue(s.migratedFromFormatTwo().isEmpty(), "migrated once");
      assertEquals(5, s.appliedIndex());
      assertEquals(631_000, s.nextDueMillis(), "h1's countedUntil after its renewal at 30 s");
      s.verify();
    }
  }

  /**
   * Goal: changing the idempotency retention between restarts (it is node configuration) keeps
   * generations disjoint and counts exact: a record that falls on the new grid inside a live
   * generation joins it; one whose grid cell overlaps a live generation gets a cell cut to fit;
   * a retried key whose expired record sits in the very generation its new record goes to is
   * overwritten, not counted twice. Answers follow each record's own expiry throughout.
   */
  @Test
  void retentionChangesKeepGenerationsDisjointAndCountsExact() {
    Path path = dir.resolve("retention");
    RequestKey k1 = new RequestKey(8, 8, 1);
    RequestKey k2 = new RequestKey(8, 8, 2);
    RequestKey k3 = new RequestKey(8, 8, 3);
    StateOptions r60 = new StateOptions(60_000, 100, 100, 64, QuotaOptions.defaults());
    StateOptions r100 = new StateOptions(100_000, 100, 100, 64, QuotaOptions.defaults());
    StateOptions r10 = new StateOptions(10_000, 100, 100, 64, QuotaOptions.defaults());
    try (RocksCoordinatorState s = RocksCoordinatorState.open(path, r60)) {
      s.apply(1, 0, Fixtures.batch(1_000, Fixtures.setLimit("t", "r", 1_000, 100, 600_000, 100)));
      keyed(s, 1, 1_000, k1, Fixtures.acquire("a", 1, 1)); // 61 s: [60 s, 120 s)
      assertEquals(1, status(s).idempotencyRecords());
      s.verify();
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(path, r100)) {
      // 25 s + 100 s = 125 s: grid cell [100 s, 200 s) overlaps [60 s, 120 s), so [120 s, 200 s).
      keyed(s, 2, 25_000, k2, Fixtures.acquire("b", 1, 1));
      // k3 at the same time expires at 125 s too and joins that generation.
      keyed(s, 3, 25_000, k3, Fixtures.acquire("c", 1, 1));
      assertEquals(3, status(s).idempotencyRecords());
      s.verify();
    }
    try (RocksCoordinatorState s = RocksCoordinatorState.open(path, r10)) {
      Result retried = keyed(s, 4, 61_500, k1, Fixtures.acquire("a2", 1, 1));
      assertEquals("a2", assertInstanceOf(Result.LeaseGranted.class, retried).lease().holder(),
          "k1's record expired at 61 s, so the retry ran anew");
      // Its new record (71.5 s) lands in [60 s, 120 s), where the expired one is: overwritten.
      assertEquals(3, status(s).idempotencyRecords(), "overwritten, not counted twice");
      s.verify();
      Result again = keyed(s, 5, 70_000, k1, Fixtures.acquire("a2", 1, 1));
      assertEquals(retried, again, "the new record answers until 71.5 s");
      Result k2Again = keyed(s, 6, 120_000, k2, Fixtures.acquire("b", 1, 1));
      assertEquals("b", assertInstanceOf(Result.LeaseGranted.class, k2Again).lease().holder(),
          "k2's record (125 s) still answers");
      assertEquals(2, status(s).idempotencyRecords(), "[60 s, 120 s) dropped at 119.999 s");
      s.verify();
    }
  }

  /** Goal: a meta record of an unknown format is refused at open, naming it, changing nothing. */
  @Test
  void unknownMetaFormatIsRefused() throws Exception {
    Path path = dir.resolve("future");
    try (RocksCoordinatorState s = RocksCoordinatorState.open(path, OPTIONS)) {
      s.apply(1, 0, Fixtures.batch(1_000, Fixtures.setLimit("t", "r", 100, 10, 1000, 100)));
    }
    try (org.rocksdb.Options o = new org.rocksdb.Options();
         org.rocksdb.DBOptions dbo = new org.rocksdb.DBOptions();
         org.rocksdb.ColumnFamilyOptions cfo = new org.rocksdb.ColumnFamilyOptions()) {
      List<byte[]> names = org.rocksdb.RocksDB.listColumnFamilies(o, path.toString());
      List<org.rocksdb.ColumnFamilyDescriptor> descriptors = new java.util.ArrayList<>();
      for (byte[] name : names) {
        descriptors.add(new org.rocksdb.ColumnFamilyDescriptor(name, cfo));
      }
      List<org.rocksdb.ColumnFamilyHandle> handles = new java.util.ArrayList<>();
      try (org.rocksdb.RocksDB db = org.rocksdb.RocksDB.open(dbo, path.toString(), descriptors, handles)) {
        org.rocksdb.ColumnFamilyHandle metaCf = null;
        for (int i = 0; i < names.size(); i++) {
          if (new String(names.get(i), java.nio.charset.StandardCharsets.US_ASCII).equals("meta")) {
            metaCf = handles.get(i);
          }
        }
        byte[] key = "ledger".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] meta = db.get(metaCf, key);
        meta[0] = 9;
        db.put(metaCf, key, meta);
        handles.forEach(org.rocksdb.ColumnFamilyHandle::close);
      }
    }
    for (int attempt = 0; attempt < 2; attempt++) {
      StoreException refused =
          assertThrows(StoreException.class, () -> RocksCoordinatorState.open(path, OPTIONS));
      assertTrue(refused.getMessage().contains("unknown meta format version 9"), refused.getMessage());
      // Both versions are named: the directory's and the ones this build reads.
      assertTrue(refused.getMessage().contains("store format 9 was written by a newer release; this build reads"
          + " store formats 2 and 3"), refused.getMessage());
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
