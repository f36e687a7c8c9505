package dev.ration.benchmarks;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.lease.Limit;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.Tick;
import dev.ration.wire.Policy;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one replica pays to apply a command: the state machine alone (ledger + RocksDB
 * WriteBatch, sync=false as on a node), without Raft, network or the endpoint. Every replica of
 * a cluster pays this for every command, so it bounds the cluster's throughput on shared cores.
 *
 * <p>Entries are shaped as a loaded leader proposes them: {@value #BATCH} commands, each with
 * its own request key (so each writes an idempotency record), plus a Tick when the leader would
 * propose one (drain mode while Ticks free something, else a due check every 250 ms of log
 * time), the log clock advancing {@value #MILLIS_PER_ENTRY} ms per entry. The state reaches its
 * steady size during warm-up (60 s idempotency retention: from 120 s of log time on, a
 * generation of records is range-deleted every 60 s; 2.5 s leases for acquire). Results are
 * per command (average time).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ApplyBenchmark}.
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 6)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgs = {"-Xmx512m", "-XX:+UseSerialGC"})
public class ApplyBenchmark {
  static final int BATCH = 32;
  static final long MILLIS_PER_ENTRY = 3;
  static final int LIMITS = 16;
  static final int HOLDERS = 64;
  static final int TENANTS = 8;

  @State(Scope.Thread)
  public static class Ledger {
    Path dir;
    RocksCoordinatorState state;
    long index;
    long timeMillis = 1_000;
    long sequence = 1;
    final long[] leaseIds = new long[HOLDERS];
    final long[] versions = new long[HOLDERS];
    int nextHolder;
    boolean draining;
    int entriesSinceCheck;

    @Setup(Level.Trial)
    public void open() throws IOException {
      dir = Files.createTempDirectory("ration-apply-bench-");
      state = RocksCoordinatorState.open(dir, StateOptions.defaults());
      List<Proposal> setup = new ArrayList<>();
      for (int i = 0; i < LIMITS; i++) {
        setup.add(new Proposal(RequestKey.NONE, new SetLimit(new Limit("bench", "renew-" + i,
            1_000_000_000_000L, 1_000_000_000_000L, dev.ration.wire.Mode.HARD,
            10_000, 1_000, 0, Policy.FREE_CAPACITY, 0))));
        setup.add(new Proposal(RequestKey.NONE, new SetLimit(new Limit("bench", "acquire-" + i,
            1_000_000_000_000L, 1_000_000_000_000L, dev.ration.wire.Mode.HARD,
            2_000, 500, 0, Policy.FREE_CAPACITY, 0))));
      }
      setup.add(quota("bench"));
      for (int t = 0; t < TENANTS; t++) {
        setup.add(quota("bench/t" + t));
        setup.add(quota("bench/t" + t + "/p"));
      }
      apply(setup);
      List<Proposal> acquires = new ArrayList<>();
      for (int h = 0; h < HOLDERS; h++) {
        acquires.add(new Proposal(key(), new AcquireLease("bench", "renew-" + (h % LIMITS),
            "holder-" + h, 1, 1)));
      }
      List<Result> granted = apply(acquires);
      for (int h = 0; h < HOLDERS; h++) {
        Result.LeaseGranted g = (Result.LeaseGranted) granted.get(h);
        leaseIds[h] = g.lease().leaseId();
        versions[h] = g.lease().version();
      }
    }

    private static Proposal quota(String scope) {
      return new Proposal(RequestKey.NONE, new SetQuota(new QuotaSpec(scope, "jobs", QuotaKind.CONCURRENT,
          Window.NONE, 1_000_000_000L, "jobs", 0, Overage.REJECT, 0, 0, 0, "bench", 0, "benchmark")));
    }

    RequestKey key() {
      return new RequestKey(0x5EED, 1, sequence++);
    }

    /**
     * One entry at the next log time, with a Tick when the leader would add one: while the last
     * Tick freed something (drain mode), or when its ticker (every 250 ms of log time here)
     * finds something due.
     */
    List<Result> apply(List<Proposal> proposals) {
      timeMillis += MILLIS_PER_ENTRY;
      boolean tick = draining;
      if (!tick && (entriesSinceCheck += 1) * MILLIS_PER_ENTRY >= 250) {
        entriesSinceCheck = 0;
        tick = state.nextDueMillis() <= timeMillis;
      }
      List<Proposal> entry = new ArrayList<>(proposals.size() + 1);
      if (tick) {
        entry.add(new Proposal(RequestKey.NONE, new Tick(1_000)));
      }
      entry.addAll(proposals);
      List<Result> results = state.apply(1, index++, Batch.of(timeMillis, entry));
      if (tick) {
        draining = ((Result.Ticked) results.get(0)).freed() > 0;
        return results.subList(1, results.size());
      }
      return results;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      state.close();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /**
   * A holder of many leases: {@value #MANY_LEASES} more leases on their own limits (of at most
   * 1,250 leases each, under the default bound per limit), renewed {@value #RENEWALS_PER_BATCH}
   * at a time in one RenewLeases command under one request key, as `ration bench --op
   * renew-batch` sends them. Each lease is renewed every 20 entries (60 ms of log time), well
   * inside its 10 s life.
   */
  @State(Scope.Thread)
  public static class ManyLeases extends Ledger {
    final long[] manyIds = new long[MANY_LEASES];
    final long[] manyVersions = new long[MANY_LEASES];
    int nextLease;

    @Setup(Level.Trial)
    public void acquireMany() {
      List<Proposal> limits = new ArrayList<>();
      for (int i = 0; i < MANY_LIMITS; i++) {
        limits.add(new Proposal(RequestKey.NONE, new SetLimit(new Limit("bench", "many-" + i,
            1_000_000_000_000L, 1_000_000_000_000L, dev.ration.wire.Mode.HARD,
            10_000, 1_000, 0, Policy.FREE_CAPACITY, 0))));
      }
      apply(limits);
      for (int from = 0; from < MANY_LEASES; from += RENEWALS_PER_BATCH) {
        List<Proposal> acquires = new ArrayList<>(RENEWALS_PER_BATCH);
        for (int i = from; i < from + RENEWALS_PER_BATCH; i++) {
          acquires.add(new Proposal(key(), new AcquireLease("bench", "many-" + (i % MANY_LIMITS),
              "region-" + i, 1, 1)));
        }
        List<Result> granted = apply(acquires);
        for (int i = from; i < from + RENEWALS_PER_BATCH; i++) {
          Result.LeaseGranted g = (Result.LeaseGranted) granted.get(i - from);
          manyIds[i] = g.lease().leaseId();
          manyVersions[i] = g.lease().version();
        }
      }
    }
  }

  static final int MANY_LEASES = 20_000;
  static final int MANY_LIMITS = 16;
  static final int RENEWALS_PER_BATCH = 1_000;

  /**
   * One RenewLeases command of {@value #RENEWALS_PER_BATCH} renewals, each presenting the
   * version it last got; the score is per renewal. Its answer (every renewed lease) is stored
   * under the batch's one request key, as a resent batch must get it back.
   */
  @Benchmark
  @OperationsPerInvocation(RENEWALS_PER_BATCH)
  public int renewBatch(ManyLeases l) {
    int from = l.nextLease;
    l.nextLease = (from + RENEWALS_PER_BATCH) % MANY_LEASES;
    List<RenewLease> renewals = new ArrayList<>(RENEWALS_PER_BATCH);
    for (int i = from; i < from + RENEWALS_PER_BATCH; i++) {
      renewals.add(new RenewLease(l.manyIds[i], l.manyVersions[i], 1, 1, 0, 0, 0));
    }
    Result.LeasesRenewed answer = (Result.LeasesRenewed) l.apply(
        List.of(new Proposal(l.key(), new RenewLeases(renewals)))).get(0);
    for (int i = from; i < from + RENEWALS_PER_BATCH; i++) {
      Result.Renewal r = answer.renewals().get(i - from);
      if (r.lease() == null) {
        throw new IllegalStateException("renewal refused: " + r.outcome() + " " + r.message());
      }
      l.manyVersions[i] = r.lease().version();
    }
    return answer.renewals().size();
  }

  /** 32 renewals of live leases, each presenting the version it last got. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int renew(Ledger l) {
    List<Proposal> renewals = new ArrayList<>(BATCH);
    int[] holders = new int[BATCH];
    for (int i = 0; i < BATCH; i++) {
      int h = l.nextHolder;
      l.nextHolder = (l.nextHolder + 1) % HOLDERS;
      holders[i] = h;
      renewals.add(new Proposal(l.key(), new RenewLease(l.leaseIds[h], l.versions[h], 1, 1, 0, 0, 0)));
    }
    List<Result> results = l.apply(renewals);
    for (int i = 0; i < BATCH; i++) {
      Result.LeaseRenewed r = (Result.LeaseRenewed) results.get(i);
      l.versions[holders[i]] = r.lease().version();
    }
    return results.size();
  }

  /** 32 fresh leases (2 s + 500 ms grace, freed by the entries' Ticks). */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int acquire(Ledger l) {
    List<Proposal> acquires = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      acquires.add(new Proposal(l.key(), new AcquireLease("bench", "acquire-" + (i % LIMITS),
          "holder-" + i, 1, 1)));
    }
    List<Result> results = l.apply(acquires);
    if (!(results.get(0) instanceof Result.LeaseGranted)) {
      throw new IllegalStateException("acquire refused: " + results.get(0));
    }
    return results.size();
  }

  /**
   * 16 reservations of 1 job, each checked and charged at three levels (bench, bench/tK,
   * bench/tK/p), then the next entry completes all 16: 32 commands, per-command time.
   */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int reserveAndComplete(Ledger l) {
    List<Proposal> reserves = new ArrayList<>(BATCH / 2);
    for (int i = 0; i < BATCH / 2; i++) {
      reserves.add(new Proposal(l.key(), new Reserve("bench/t" + (i % TENANTS) + "/p",
          List.of(new Reserve.Item("jobs", 1)), 0, 60_000)));
    }
    List<Result> reserved = l.apply(reserves);
    List<Proposal> completes = new ArrayList<>(BATCH / 2);
    for (Result r : reserved) {
      long id = ((QuotaResult.Reserved) ((Result.Quota) r).result()).reservationId();
      completes.add(new Proposal(l.key(), new CompleteReservation(id, List.of(1L))));
    }
    return l.apply(completes).size();
  }
}
