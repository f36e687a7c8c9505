package dev.ration.compare;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Closed-loop comparison of Ration and etcd on one machine, alternating, printing ops/s, p50/p99
 * and the servers' CPU per operation for each (shape, in-flight) cell. Started by
 * {@code scripts/compare-etcd.sh}, which starts and stops both clusters and passes their pids.
 *
 * <p>Shapes (Ration / etcd): {@code renew} (a renewal of the slot's own lease, durable / a
 * {@code LeaseKeepAliveOnce}, answered by etcd's leader from memory), {@code acquire} (a new
 * lease, 2 s, left to expire / {@code LeaseGrant} 2 s TTL, left to expire), {@code reserve}
 * (checkAndReserve of one unit then complete, on {@code bench/t<slot mod 8>/p} / a get then a
 * txn compare-and-set of the slot's own key), {@code reserve-hot} (the same on one project for
 * every slot / on one key for every slot; a CAS that loses the race is retried from the get).
 *
 * <p>etcd is driven in this process with jetcd; Ration by a {@code ration bench} process (its
 * own load generator), so each side uses its own usual client. CPU per operation is the
 * utime + stime of the given server pids (from {@code /proc/<pid>/stat}) over the measured
 * window divided by the operations completed in it: the load generators' CPU is not in it.
 */
public final class Compare {
  private static final long CLK_TCK = 100; // USER_HZ on Linux

  record Cell(String system, String shape, int inFlight, int run, double opsPerSecond,
      long p50Micros, long p99Micros, long errors, double cpuMicrosPerOp, double cores) {}

  private final Map<String, String> args;
  private final List<Cell> cells = new ArrayList<>();

  private Compare(Map<String, String> args) {
    this.args = args;
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String k = argv[i];
      if (!k.startsWith("--") || i + 1 >= argv.length) {
        System.err.println("error: expected --name value pairs, got '" + k + "'");
        usage();
        System.exit(1);
      }
      a.put(k.substring(2), argv[++i]);
    }
    for (String required : List.of("etcd-endpoints", "etcd-pids", "ration-servers", "ration-pids",
        "ration-cli")) {
      if (!a.containsKey(required)) {
        System.err.println("error: --" + required + " is required");
        usage();
        System.exit(1);
      }
    }
    new Compare(a).run();
  }

  private static void usage() {
    System.err.println("usage: Compare --etcd-endpoints URL[,URL..] --etcd-pids P[,P..]"
        + " --ration-servers H:P[,H:P..] --ration-pids P[,P..] --ration-cli PATH"
        + " [--shapes renew,acquire,reserve,reserve-hot] [--in-flight 1,16,64] [--runs 3]"
        + " [--warmup-seconds 5] [--duration-seconds 15] [--prewarm-seconds 30] [--json FILE]");
  }

  private String arg(String name, String dflt) {
    return args.getOrDefault(name, dflt);
  }

  private void run() throws Exception {
    List<String> shapes = List.of(arg("shapes", "renew,acquire,reserve,reserve-hot").split(","));
    for (String s : shapes) {
      if (!List.of("renew", "acquire", "reserve", "reserve-hot").contains(s)) {
        throw new IllegalArgumentException("unknown shape '" + s + "'");
      }
    }
    int[] inFlights = Arrays.stream(arg("in-flight", "1,16,64").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int runs = Integer.parseInt(arg("runs", "3"));
    int warmup = Integer.parseInt(arg("warmup-seconds", "5"));
    int duration = Integer.parseInt(arg("duration-seconds", "15"));
    int prewarm = Integer.parseInt(arg("prewarm-seconds", "30"));
    long[] etcdPids = pids(arg("etcd-pids", ""));
    long[] rationPids = pids(arg("ration-pids", ""));
    try (Client etcd = Client.builder().endpoints(arg("etcd-endpoints", "").split(",")).build()) {
      if (prewarm > 0) {
        System.err.printf(Locale.ROOT,
            "prewarm: %d s per system, split over the shapes, 64 in flight, not measured%n", prewarm);
        for (String shape : shapes) {
          int each = Math.max(1, prewarm / shapes.size());
          etcdCell(etcd, shape, 64, 0, each, etcdPids, 0);
          rationCell(shape, 64, 0, each, rationPids, 0);
        }
      }
      for (int run = 1; run <= runs; run++) {
        for (String shape : shapes) {
          for (int n : inFlights) {
            // Alternate who goes first, so a drift of the machine within a run is shared.
            boolean etcdFirst = run % 2 == 1;
            for (int side = 0; side < 2; side++) {
              Cell c = (side == 0) == etcdFirst
                  ? etcdCell(etcd, shape, n, warmup, duration, etcdPids, run)
                  : rationCell(shape, n, warmup, duration, rationPids, run);
              cells.add(c);
              System.err.printf(Locale.ROOT,
                  "run %d %-6s %-11s %3d in flight: %9.1f ops/s p50 %7.2f ms p99 %7.2f ms"
                      + " cpu %8.1f us/op (%.2f cores) errors %d%n",
                  run, c.system(), shape, n, c.opsPerSecond(), c.p50Micros() / 1000.0,
                  c.p99Micros() / 1000.0, c.cpuMicrosPerOp(), c.cores(), c.errors());
            }
          }
        }
      }
    }
    System.out.print(table(cells, shapes, inFlights));
    String json = args.get("json");
    if (json != null) {
      StringBuilder sb = new StringBuilder();
      for (Cell c : cells) {
        sb.append(String.format(Locale.ROOT,
            "{\"system\":\"%s\",\"shape\":\"%s\",\"inFlight\":%d,\"run\":%d,\"opsPerSecond\":%.1f,"
                + "\"p50Micros\":%d,\"p99Micros\":%d,\"errors\":%d,\"cpuMicrosPerOp\":%.1f,"
                + "\"cores\":%.3f}%n",
            c.system(), c.shape(), c.inFlight(), c.run(), c.opsPerSecond(), c.p50Micros(),
            c.p99Micros(), c.errors(), c.cpuMicrosPerOp(), c.cores()));
      }
      Files.writeString(Path.of(json), sb.toString(), StandardCharsets.UTF_8);
    }
  }

  // ------------------------------------------------------------------ table

  static String table(List<Cell> cells, List<String> shapes, int[] inFlights) {
    StringBuilder sb = new StringBuilder();
    sb.append("medians over runs; CPU = the servers' utime+stime per operation\n");
    sb.append(String.format(Locale.ROOT,
        "| shape | in flight | etcd ops/s | etcd p50 / p99 ms | etcd CPU µs/op | Ration ops/s"
            + " | Ration p50 / p99 ms | Ration CPU µs/op | Ration ÷ etcd ops/s | runs |%n"));
    sb.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (String shape : shapes) {
      for (int n : inFlights) {
        List<Cell> e = select(cells, "etcd", shape, n);
        List<Cell> r = select(cells, "ration", shape, n);
        if (e.isEmpty() || r.isEmpty()) {
          continue;
        }
        double eo = median(e.stream().mapToDouble(Cell::opsPerSecond).toArray());
        double ro = median(r.stream().mapToDouble(Cell::opsPerSecond).toArray());
        sb.append(String.format(Locale.ROOT,
            "| %s | %d | %.0f | %.2f / %.2f | %.0f | %.0f | %.2f / %.2f | %.0f | %.2f | %d |%n",
            shape, n, eo,
            median(e.stream().mapToDouble(c -> c.p50Micros() / 1000.0).toArray()),
            median(e.stream().mapToDouble(c -> c.p99Micros() / 1000.0).toArray()),
            median(e.stream().mapToDouble(Cell::cpuMicrosPerOp).toArray()),
            ro,
            median(r.stream().mapToDouble(c -> c.p50Micros() / 1000.0).toArray()),
            median(r.stream().mapToDouble(c -> c.p99Micros() / 1000.0).toArray()),
            median(r.stream().mapToDouble(Cell::cpuMicrosPerOp).toArray()),
            eo > 0 ? ro / eo : Double.NaN, Math.min(e.size(), r.size())));
      }
    }
    return sb.toString();
  }

  private static List<Cell> select(List<Cell> cells, String system, String shape, int n) {
    return cells.stream().filter(c -> c.system().equals(system) && c.shape().equals(shape)
        && c.inFlight() == n && c.run() > 0).toList();
  }

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    int m = s.length / 2;
    return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
  }

  // ------------------------------------------------------------------ CPU of pids

  private static long[] pids(String list) {
    return Arrays.stream(list.split(",")).filter(s -> !s.isBlank()).mapToLong(Long::parseLong)
        .toArray();
  }

  /** utime + stime of the processes, in clock ticks. */
  static long cpuTicks(long[] pids) {
    long total = 0;
    for (long pid : pids) {
      try {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        total += Long.parseLong(f[11]) + Long.parseLong(f[12]);
      } catch (IOException e) {
        throw new IllegalStateException("server process " + pid + " is gone: " + e);
      }
    }
    return total;
  }

  // ------------------------------------------------------------------ etcd

  private Cell etcdCell(Client etcd, String shape, int inFlight, int warmupSeconds,
      int durationSeconds, long[] pids, int run) throws Exception {
    EtcdLoop loop = new EtcdLoop(etcd, shape, inFlight);
    loop.setUp();
    long start = System.nanoTime();
    long windowStart = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
    long windowEnd = windowStart + TimeUnit.SECONDS.toNanos(durationSeconds);
    loop.start(windowStart, windowEnd);
    sleepUntil(windowStart);
    long t0 = cpuTicks(pids);
    long n0 = System.nanoTime();
    sleepUntil(windowEnd);
    long t1 = cpuTicks(pids);
    long n1 = System.nanoTime();
    loop.awaitStopped(TimeUnit.SECONDS.toNanos(15));
    double seconds = (windowEnd - windowStart) / 1e9;
    double ops = loop.ok.get() / seconds;
    double cores = (t1 - t0) / (double) CLK_TCK / ((n1 - n0) / 1e9);
    long[] lat = loop.latencies();
    return new Cell("etcd", shape, inFlight, run, ops, percentile(lat, 0.50),
        percentile(lat, 0.99), loop.errors.get(), ops > 0 ? cores * 1e6 / ops : Double.NaN, cores);
  }

  static long percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long left;
    while ((left = nanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  /** N slots, one request outstanding each; a reply issues the slot's next request. */
  static final class EtcdLoop {
    private static final ScheduledExecutorService PAUSE =
        Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "etcd-loop-pause");
          t.setDaemon(true);
          return t;
        });
    final AtomicLong ok = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    private final Lease lease;
    private final KV kv;
    private final String shape;
    private final int inFlight;
    private final long[] leaseIds;
    private final ByteSequence[] keys;
    private final List<long[]> perSlot = new ArrayList<>();
    private final int[] counts;
    private final CountDownLatch stopped;
    private volatile long windowStart;
    private volatile long windowEnd;

    EtcdLoop(Client etcd, String shape, int inFlight) {
      this.lease = etcd.getLeaseClient();
      this.kv = etcd.getKVClient();
      this.shape = shape;
      this.inFlight = inFlight;
      this.leaseIds = new long[inFlight];
      this.keys = new ByteSequence[inFlight];
      this.counts = new int[inFlight];
      this.stopped = new CountDownLatch(inFlight);
      for (int i = 0; i < inFlight; i++) {
        perSlot.add(new long[1 << 16]);
      }
    }

    void setUp() throws Exception {
      for (int i = 0; i < inFlight; i++) {
        switch (shape) {
          case "renew" -> leaseIds[i] = lease.grant(60).get(10, TimeUnit.SECONDS).getID();
          case "reserve" -> keys[i] = bytes("compare/cas/" + i);
          case "reserve-hot" -> keys[i] = bytes("compare/cas/hot");
          default -> { }
        }
        if (keys[i] != null) {
          kv.put(keys[i], bytes("0")).get(10, TimeUnit.SECONDS);
        }
      }
    }

    void start(long windowStart, long windowEnd) {
      this.windowStart = windowStart;
      this.windowEnd = windowEnd;
      for (int i = 0; i < inFlight; i++) {
        next(i, System.nanoTime());
      }
    }

    private void next(int slot, long began) {
      if (System.nanoTime() - windowEnd >= 0) {
        stopped.countDown();
        return;
      }
      CompletableFuture<?> f = switch (shape) {
        case "renew" -> lease.keepAliveOnce(leaseIds[slot]);
        case "acquire" -> lease.grant(2);
        default -> cas(keys[slot]);
      };
      f.whenComplete((r, e) -> {
        long now = System.nanoTime();
        boolean inWindow = now - windowStart >= 0 && now - windowEnd < 0;
        if (e != null) {
          if (inWindow) {
            errors.incrementAndGet();
          }
          // A persistent fast failure must not spin: pause the slot briefly.
          PAUSE.schedule(() -> next(slot, System.nanoTime()), 10, TimeUnit.MILLISECONDS);
          return;
        }
        if (inWindow) {
          ok.incrementAndGet();
          record(slot, (now - began) / 1000);
        }
        next(slot, now);
      });
    }

    /** get, then put iff the key's mod revision is still the one read; lost races retry. */
    private CompletableFuture<Boolean> cas(ByteSequence key) {
      return kv.get(key).thenCompose((GetResponse g) -> {
        long rev = g.getKvs().isEmpty() ? 0 : g.getKvs().get(0).getModRevision();
        long value = g.getKvs().isEmpty() ? 0
            : Long.parseLong(g.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
        return kv.txn()
            .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(rev)))
            .Then(Op.put(key, bytes(Long.toString(value + 1)), PutOption.DEFAULT))
            .commit();
      }).thenCompose(t -> t.isSucceeded() || System.nanoTime() - windowEnd >= 0
          ? CompletableFuture.completedFuture(t.isSucceeded())
          : cas(key));
    }

    private synchronized void record(int slot, long micros) {
      long[] a = perSlot.get(slot);
      if (counts[slot] == a.length) {
        a = Arrays.copyOf(a, a.length * 2);
        perSlot.set(slot, a);
      }
      a[counts[slot]++] = micros;
    }

    synchronized long[] latencies() {
      int total = Arrays.stream(counts).sum();
      long[] all = new long[total];
      int at = 0;
      for (int i = 0; i < inFlight; i++) {
        System.arraycopy(perSlot.get(i), 0, all, at, counts[i]);
        at += counts[i];
      }
      Arrays.sort(all);
      return all;
    }

    void awaitStopped(long nanos) throws InterruptedException {
      if (!stopped.await(nanos, TimeUnit.NANOSECONDS)) {
        System.err.println("warning: etcd slots still outstanding after the window");
      }
      for (long id : leaseIds) {
        if (id != 0) {
          lease.revoke(id);
        }
      }
    }

    private static ByteSequence bytes(String s) {
      return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
  }

  // ------------------------------------------------------------------ Ration

  private static final Pattern NUMBER = Pattern.compile("\"%s\":(-?[0-9.]+)");

  private Cell rationCell(String shape, int inFlight, int warmupSeconds, int durationSeconds,
      long[] pids, int run) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(arg("ration-cli", ""), "bench",
        "--servers", arg("ration-servers", ""), "--in-flight", Integer.toString(inFlight),
        "--warmup", (warmupSeconds == 0 ? 1 : warmupSeconds) + "s",
        "--duration", durationSeconds + "s", "--output", "json", "--progress-interval", "1h"));
    switch (shape) {
      case "renew" -> cmd.addAll(List.of("--op", "renew"));
      case "acquire" -> cmd.addAll(List.of("--op", "acquire"));
      case "reserve" -> cmd.addAll(List.of("--op", "reserve"));
      case "reserve-hot" -> cmd.addAll(List.of("--op", "reserve", "--reserve-projects", "1"));
      default -> throw new IllegalArgumentException(shape);
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
    AtomicLong lastMark = new AtomicLong(0);
    StringBuilder errText = new StringBuilder();
    Thread errReader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          // The bench's set-up lines: the warm-up starts after the last of them.
          if (line.startsWith("bench:")) {
            lastMark.set(System.nanoTime());
          }
          synchronized (errText) {
            errText.append(line).append('\n');
          }
        }
      } catch (IOException ignored) {
        // the process ended
      }
    });
    errReader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (lastMark.get() == 0 && p.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    // Window: from half a second after the warm-up ends to half a second before it closes
    // (the last set-up line is seen a little after the bench printed it).
    long warm = TimeUnit.SECONDS.toNanos(warmupSeconds);
    long half = 500_000_000L;
    long mark;
    do {
      mark = lastMark.get();
      sleepUntil(mark + warm + half);
    } while (lastMark.get() != mark);
    long t0 = cpuTicks(pids);
    long n0 = System.nanoTime();
    sleepUntil(mark + warm + TimeUnit.SECONDS.toNanos(durationSeconds) - half);
    long t1 = cpuTicks(pids);
    long n1 = System.nanoTime();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroy();
    }
    errReader.join(5_000);
    if (out.isEmpty()) {
      throw new IllegalStateException("ration bench printed nothing; its stderr:\n" + errText);
    }
    String json = out.substring(out.lastIndexOf('\n') + 1);
    double ops = number(json, json.contains("\"okPerSecond\"") ? "okPerSecond" : "throughputPerSecond");
    String latency = json.substring(json.indexOf("\"latencyMicros\""));
    long p50 = (long) number(latency, "p50");
    long p99 = (long) number(latency, "p99");
    long errors = (long) number(json, "errors");
    double cores = (t1 - t0) / (double) CLK_TCK / ((n1 - n0) / 1e9);
    return new Cell("ration", shape, inFlight, run, ops, p50, p99, errors,
        ops > 0 ? cores * 1e6 / ops : Double.NaN, cores);
  }

  private static double number(String json, String field) {
    Matcher m = Pattern.compile(String.format(NUMBER.pattern(), Pattern.quote(field))).matcher(json);
    if (!m.find()) {
      throw new IllegalStateException("no \"" + field + "\" in " + json);
    }
    return Double.parseDouble(m.group(1));
  }
}
