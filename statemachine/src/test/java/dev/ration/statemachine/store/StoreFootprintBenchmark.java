package dev.ration.statemachine.store;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
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
 * A measurement program (not a test): the disk and heap one kind of record costs in the state
 * machine, for capacity planning. Applies N leases (over N / 10,000 limits, the default
 * per-limit bound) into one fresh {@link RocksCoordinatorState}, then N usage log records
 * (ingested events, 16-byte ids, one scope) into another, each in batches of 1,000 on one
 * thread as a replica applies; after each it takes a checkpoint (a flushed, compacted-as-is copy
 * of the store: what a snapshot ships) and prints its size, per million records, and the heap
 * after GC. Run by hand:
 *
 * <pre>
 * java -Xmx1g -XX:+UseSerialGC -cp statemachine/target/test-classes:statemachine/target/classes:$(cat cp.txt) \
 *   dev.ration.statemachine.store.StoreFootprintBenchmark 200000 /tmp/footprint
 * </pre>
 *
 * Results go to docs/benchmarks.md ("Disk per million records").
 */
public final class StoreFootprintBenchmark {
  private StoreFootprintBenchmark() {}

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

  interface Maker {
    Proposal make(int i);
  }

  static void measure(String what, Path root, int n, List<Proposal> setup, Maker maker)
      throws Exception {
    Path data = root.resolve(what);
    long heapBefore = heapAfterGc();
    long index = 0;
    long time = 1_000;
    long t0 = System.nanoTime();
    try (RocksCoordinatorState state = RocksCoordinatorState.open(data, StateOptions.defaults())) {
      for (int from = 0; from < setup.size(); from += 1_000) {
        state.apply(1, index++, Batch.of(time, setup.subList(from, Math.min(setup.size(), from + 1_000))));
      }
      for (int done = 0; done < n; ) {
        List<Proposal> batch = new ArrayList<>(1_000);
        for (int i = 0; i < 1_000 && done < n; i++, done++) {
          batch.add(maker.make(done));
        }
        List<Result> results = state.apply(1, index++, Batch.of(time++, batch));
        if (results.get(0) instanceof Result.Rejected r) {
          throw new IllegalStateException(what + " refused: " + r);
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long heap = heapAfterGc();
      Path checkpoint = root.resolve(what + "-checkpoint");
      state.checkpoint(checkpoint);
      long bytes = sizeOf(checkpoint);
      System.out.printf(Locale.ROOT, "%-14s %,d records in %.1f s (%,.0f/s); checkpoint %.1f MiB = %.1f MiB "
              + "per million = %.0f B each; heap after GC %.1f -> %.1f MiB%n",
          what, n, seconds, n / seconds, bytes / 1048576.0, bytes / 1048576.0 * 1e6 / n,
          (double) bytes / n, heapBefore / 1048576.0, heap / 1048576.0);
    }
    delete(data);
    delete(root.resolve(what + "-checkpoint"));
  }

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    Path root = Path.of(args.length > 1 ? args[1] : "/tmp/footprint");
    delete(root);
    Files.createDirectories(root);
    int perLimit = StateOptions.defaults().maxLeasesPerLimit();
    int limits = (n + perLimit - 1) / perLimit;
    List<Proposal> setLimits = new ArrayList<>();
    for (int l = 0; l < limits; l++) {
      setLimits.add(new Proposal(RequestKey.NONE, new SetLimit(new Limit("bench", "r" + l,
          1_000_000_000L, 1_000_000_000L, Mode.HARD, 3_600_000, 10_000, 0, Policy.FAIR_SHARE, 0))));
    }
    measure("leases", root, n, setLimits, i -> new Proposal(RequestKey.NONE,
        new AcquireLease("bench", "r" + (i / perLimit), "holder-" + i, 1, 1)));
    measure("usage-records", root, n, List.of(), i -> new Proposal(RequestKey.NONE,
        new IngestUsage(String.format(Locale.ROOT, "event-%010d", i), 1_000, "acme/team-1",
            "requests", 1, "calls", 0)));
    delete(root);
  }
}
