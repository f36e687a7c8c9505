package dev.ration.statemachine.ttl;

import dev.ration.wire.Bytes;

import dev.ration.wire.CapacityPolicy;

import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A measurement program (not a test): N TTL entries applied through {@link RocksCoordinatorState}
 * in batches, then heap after GC, a checkpoint (time, size), restore + open (time, which includes
 * the full verify()), and point gets. Run by hand:
 *
 * <pre>
 * java -Xmx1g -cp statemachine/target/test-classes:statemachine/target/classes:$(cat cp.txt) \
 *   dev.ration.statemachine.ttl.TtlStoreBenchmark 1000000 /tmp/ttl-bench
 * </pre>
 *
 * Results go to docs/benchmarks.md ("TTL entries"). Single-threaded, like apply on a replica.
 */
public final class TtlStoreBenchmark {
  private TtlStoreBenchmark() {}

  static long heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  static long sizeOf(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    Path root = Path.of(args.length > 1 ? args[1] : "/tmp/ttl-store-bench");
    int batchSize = 1_000;
    int valueBytes = 64;
    delete(root);
    Files.createDirectories(root);
    Path data = root.resolve("data");
    byte[] value = new byte[valueBytes];
    long heapBefore = heapAfterGc();
    long index = 0;
    long t0 = System.nanoTime();
    try (RocksCoordinatorState state = RocksCoordinatorState.open(data, StateOptions.defaults())) {
      state.apply(1, index++, Batch.of(1_000, List.of(new Proposal(RequestKey.NONE,
          new SetNamespace("bench", 2L * entries, 1L << 40, CapacityPolicy.REJECT)))));
      long time = 1_000;
      for (int done = 0; done < entries; ) {
        List<Proposal> proposals = new ArrayList<>(batchSize);
        for (int i = 0; i < batchSize && done < entries; i++, done++) {
          proposals.add(new Proposal(RequestKey.NONE, new PutEntry("bench",
              String.format(Locale.ROOT, "key-%08d", done), new Bytes(value), 3_600_000)));
        }
        List<Result> results = state.apply(1, index++, Batch.of(time++, proposals));
        if (!(results.get(0) instanceof Result.EntryWritten)) {
          throw new IllegalStateException("put failed: " + results.get(0));
        }
      }
      double applySeconds = (System.nanoTime() - t0) / 1e9;
      long heapLoaded = heapAfterGc();
      long gets = Math.min(entries, 100_000);
      long g0 = System.nanoTime();
      long hits = 0;
      for (long i = 0; i < gets; i++) {
        long k = (i * 7_919) % entries;
        QueryResult.EntryAnswer a = (QueryResult.EntryAnswer) state.query(new Query.GetEntry("bench",
            String.format(Locale.ROOT, "key-%08d", k)), 0);
        hits += a.entry().isPresent() ? 1 : 0;
      }
      double getMicros = (System.nanoTime() - g0) / 1e3 / gets;
      long v0 = System.nanoTime();
      state.verify();
      double verifySeconds = (System.nanoTime() - v0) / 1e9;
      Path checkpoint = root.resolve("checkpoint");
      long c0 = System.nanoTime();
      CheckpointManifest manifest = state.checkpoint(checkpoint);
      double checkpointSeconds = (System.nanoTime() - c0) / 1e9;
      long checkpointBytes = sizeOf(checkpoint);
      System.out.printf(Locale.ROOT, "entries            %d (value %d B, key 12 B, batches of %d)%n",
          entries, valueBytes, batchSize);
      System.out.printf(Locale.ROOT, "apply              %.1f s = %.0f puts/s (state machine only, one thread)%n",
          applySeconds, entries / applySeconds);
      System.out.printf(Locale.ROOT, "heap after GC      before %.1f MiB, loaded %.1f MiB (max %.0f MiB)%n",
          heapBefore / 1048576.0, heapLoaded / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576.0);
      System.out.printf(Locale.ROOT, "get (state query)  %.1f us each, %d/%d hits%n", getMicros, hits, gets);
      System.out.printf(Locale.ROOT, "verify()           %.2f s%n", verifySeconds);
      System.out.printf(Locale.ROOT, "checkpoint         %.2f s (includes verifyAtSnapshot: in-memory invariants), %.1f MiB on disk, index %d%n",
          checkpointSeconds, checkpointBytes / 1048576.0, manifest.index());
    }
    Path restored = root.resolve("restored");
    long r0 = System.nanoTime();
    RocksCoordinatorState.restoreCheckpoint(root.resolve("checkpoint"), restored);
    double restoreSeconds = (System.nanoTime() - r0) / 1e9;
    long o0 = System.nanoTime();
    try (RocksCoordinatorState state = RocksCoordinatorState.open(restored, StateOptions.defaults())) {
      double openSeconds = (System.nanoTime() - o0) / 1e9;
      QueryResult.NamespaceAnswer ns = (QueryResult.NamespaceAnswer) state.query(new Query.GetNamespace("bench"), 0);
      long heapRestored = heapAfterGc();
      System.out.printf(Locale.ROOT, "restore            %.2f s (verify manifest + swap dirs)%n", restoreSeconds);
      System.out.printf(Locale.ROOT, "open restored      %.2f s (load + full verify), %d entries, heap %.1f MiB%n",
          openSeconds, ns.namespace().orElseThrow().entries(), heapRestored / 1048576.0);
    }
    delete(root);
  }
}
