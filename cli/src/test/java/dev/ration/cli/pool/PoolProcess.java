package dev.ration.cli.pool;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.pool.Attempt;
import dev.ration.client.pool.CancellationToken;
import dev.ration.client.pool.Job;
import dev.ration.client.pool.JobHandle;
import dev.ration.client.pool.JobResult;
import dev.ration.client.pool.PoolOptions;
import dev.ration.client.pool.ShutdownPolicy;
import dev.ration.client.pool.ShutdownReport;
import dev.ration.client.pool.SubmitResult;
import dev.ration.client.pool.WorkerPool;
import dev.ration.client.slots.LeasedSlots;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One service replica for {@link PoolRollingRestartTest}, in a JVM of its own: a {@link
 * WorkerPool} of W workers whose concurrency is a slot lease on (acme, db), kept busy until a
 * stop file appears (or a bound passes), then drained.
 *
 * <p>Every job writes a line when it starts and when it ends, with {@link System#nanoTime()}
 * (CLOCK_MONOTONIC on Linux: one clock for every process of the machine), so the test can sweep
 * the jobs of all replicas in time order. The lines are written inside the job, after the pool
 * started it and before the pool frees its slot, so they never over-state concurrency. After the
 * drain it writes each accepted job's terminal result, then {@code DONE}.
 *
 * <p>Lines: {@code S <job> <attempt> <nanos>}, {@code E <job> <attempt> <nanos> <cancelled>},
 * {@code A <job>} (accepted), {@code R <job> <state> <attempts> <overrun>}, {@code STATS ...},
 * {@code DONE}.
 *
 * <p>Arguments: servers (comma-separated host:port), holder name, W, stop file, max run millis,
 * output file.
 */
public final class PoolProcess {
  private PoolProcess() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println("usage: PoolProcess <servers> <holder> <workers> <stop-file> <max-millis> <out>");
      System.exit(2);
    }
    List<String> servers = Arrays.asList(args[0].split(","));
    String holder = args[1];
    int workers = Integer.parseInt(args[2]);
    Path stop = Path.of(args[3]);
    long maxMillis = Long.parseLong(args[4]);
    Path out = Path.of(args[5]);
    try (BufferedWriter bw = Files.newBufferedWriter(out, StandardCharsets.UTF_8);
         PrintWriter w = new PrintWriter(bw, true);
         RationClient client = new RationClient(RationClientOptions.builder().addresses(servers)
             .requestDeadline(Duration.ofSeconds(2)).build())) {
      run(client, holder, workers, stop, maxMillis, w);
    }
    System.exit(0);
  }

  private static void run(RationClient client, String holder, int workers, Path stop, long maxMillis,
      PrintWriter w) throws Exception {
    LeasedSlots slots = client.leasedSlots("acme", "db", holder, workers);
    WorkerPool pool = new WorkerPool(PoolOptions.of(workers, 2 * workers)
        .withRetries(1, Duration.ofMillis(50), Duration.ofMillis(500)), slots);
    Job<Integer> job = a -> work(a, w);
    List<JobHandle<Integer>> handles = new ArrayList<>();
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
    while (!Files.exists(stop) && System.nanoTime() < end) {
      SubmitResult<Integer> r = pool.submit(job, Instant.now().plusSeconds(20));
      if (r instanceof SubmitResult.Accepted<Integer> acc) {
        handles.add(acc.handle());
        line(w, "A " + acc.handle().id());
      } else if (r instanceof SubmitResult.Overloaded<Integer> o) {
        Thread.sleep(Math.max(2, Math.min(50, o.retryAfter().toMillis())));
      } else {
        line(w, "REJECTED " + r);
        Thread.sleep(10);
      }
    }
    ShutdownReport report = pool.shutdown(Instant.now().plusSeconds(20), ShutdownPolicy.DRAIN);
    for (JobHandle<Integer> h : handles) {
      JobResult<Integer> res = h.result().get(10, TimeUnit.SECONDS);
      line(w, "R " + res.jobId() + " " + res.state() + " " + res.attempts() + " " + res.overrun());
    }
    slots.close();
    line(w, "STATS finished=" + report.finished().size() + " cancelled=" + report.cancelled().size()
        + " abandoned=" + report.abandoned().size() + " overruns=" + pool.stats().overruns());
    line(w, "DONE");
  }

  /** 10–60 ms of work in 1 ms steps, returning early once the token is cancelled. */
  private static int work(Attempt a, PrintWriter w) throws InterruptedException {
    CancellationToken token = a.token();
    line(w, "S " + a.jobId() + " " + a.number() + " " + System.nanoTime());
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10 + ThreadLocalRandom.current().nextInt(51));
    try {
      while (!token.isCancelled() && System.nanoTime() < until) {
        Thread.sleep(1);
      }
    } finally {
      line(w, "E " + a.jobId() + " " + a.number() + " " + System.nanoTime() + " " + token.isCancelled());
    }
    return a.number();
  }

  private static void line(PrintWriter w, String s) {
    synchronized (w) {
      w.println(s);
      if (w.checkError()) {
        throw new IllegalStateException(new IOException("could not write " + s));
      }
    }
  }
}
