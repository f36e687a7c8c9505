package dev.ration.statemachine.quota;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.replica.Replica;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A measurement program (not a test): N outstanding reservations and N usage records applied
 * through {@link RocksCoordinatorState}, then the quota ledger's {@code verify()} against its
 * {@code verifyAtSnapshot()}, each timed three times. Run by hand:
 *
 * <pre>
 * java -Xmx1g -cp statemachine/target/test-classes:statemachine/target/classes:$(cat cp.txt) \
 *   dev.ration.statemachine.quota.QuotaVerifyBenchmark 1000000 /tmp/quota-verify-bench
 * </pre>
 *
 * Results go to docs/benchmarks.md ("Quota verification at a snapshot"). Single-threaded, like
 * apply and a snapshot on a replica.
 */
public final class QuotaVerifyBenchmark {
  private QuotaVerifyBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    Path dir = Path.of(args.length > 1 ? args[1] : "/tmp/quota-verify-bench");
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    int batchSize = 1_000;
    long now = 1_000;
    long index = 1;
    long sequence = 1;
    try (RocksCoordinatorState state = RocksCoordinatorState.open(dir, StateOptions.defaults())) {
      long t0 = System.nanoTime();
      state.apply(1, index++, Batch.of(now, List.of(new Proposal(new RequestKey(1, 1, sequence++),
          QuotaHarness.concurrent("acme", "jobs", 1_000_000_000_000L)))));
      for (int kind = 0; kind < 2; kind++) {
        for (int done = 0; done < n; done += batchSize) {
          List<Proposal> proposals = new ArrayList<>(batchSize);
          for (int i = done; i < Math.min(n, done + batchSize); i++) {
            Command c = kind == 0
                // A day's TTL: every reservation is still outstanding when verified.
                ? new Reserve("acme/t" + (i % 100),
                    List.of(new Reserve.Item("jobs", 1)), 0, 86_400_000L)
                : new IngestUsage("ev-" + i, now, "acme/t" + (i % 100), "jobs", 1, "jobs", 0);
            proposals.add(new Proposal(new RequestKey(1, 1, sequence++), c));
          }
          for (dev.ration.statemachine.result.Result r : state.apply(1, index++, Batch.of(now, proposals))) {
            QuotaResult q = ((dev.ration.statemachine.result.Result.Quota) r).result();
            if (!(q instanceof QuotaResult.Reserved || q instanceof QuotaResult.UsageIngested)) {
              throw new IllegalStateException("not applied: " + q);
            }
          }
          now += 1;
        }
      }
      System.out.printf(Locale.ROOT, "applied %,d reservations and %,d usage records in %.1f s%n",
          n, n, (System.nanoTime() - t0) / 1e9);
      Field f = RocksCoordinatorState.class.getDeclaredField("replica");
      f.setAccessible(true);
      QuotaLedger quota = ((Replica) f.get(state)).ledger(QuotaLedger.class);
      for (int run = 1; run <= 3; run++) {
        long a = System.nanoTime();
        quota.verify();
        long b = System.nanoTime();
        quota.verifyAtSnapshot();
        long c = System.nanoTime();
        System.out.printf(Locale.ROOT, "run %d: verify() %.3f s, verifyAtSnapshot() %.1f µs%n",
            run, (b - a) / 1e9, (c - b) / 1e3);
      }
    }
  }
}
