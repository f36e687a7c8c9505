package dev.ration.bench;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.client.tls.ClientTls;
import dev.ration.wire.Policy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Does a busy region stall in steady state? Three regions (each its own {@link RationClient}
 * and {@link RateLimiter}) share one fair-share limit of {@code R}/s with short leases: region
 * A is offered {@code 2·R}/s (one permit every {@code 1/(2R)} s, paced per millisecond), B and C
 * one request a second. After a warm-up, A's admissions are counted per 100 ms; the probe prints
 * the worst whole second and the worst 100 ms of A against R, and what A's limiter saw: lease
 * states entered, suspensions, resumptions, and the slowest renewal.
 *
 * <p>Usage: {@code java -cp "cli/target/lib/*" dev.ration.bench.StallProbe SERVERS CERTS_DIR
 * [RATE] [LEASE_SECONDS] [SECONDS]} against a running cluster (scripts/cluster.sh start).
 * Bounded by the seconds given (default 60, after 10 s of warm-up).
 */
public final class StallProbe {
  private StallProbe() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: StallProbe HOST:PORT[,HOST:PORT...] CERTS_DIR [RATE] [LEASE_SECONDS] [SECONDS]");
      System.exit(1);
    }
    List<String> servers = List.of(args[0].split(","));
    Path certs = Path.of(args[1]);
    long rate = args.length > 2 ? Long.parseLong(args[2]) : 1_000;
    int leaseSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    int seconds = args.length > 4 ? Integer.parseInt(args[4]) : 60;
    ClientTls admin = ClientTls.trusting(certs.resolve("ca.crt"))
        .withKeyPair(certs.resolve("client.admin.crt"), certs.resolve("client.admin.key"));
    RationClientOptions options = RationClientOptions.builder().addresses(servers).tls(admin)
        .requestDeadline(Duration.ofSeconds(5)).build();
    String tenant = "stall-probe";
    List<RationClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        clients.add(new RationClient(options));
      }
      clients.get(0).setLimit(LimitSpec.builder(tenant, "api").ratePerSecond(rate).burst(rate / 5)
          .leaseDuration(Duration.ofSeconds(leaseSeconds)).policy(Policy.FAIR_SHARE).build());
      List<RateLimiter> limiters = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        limiters.add(clients.get(i).rateLimiter(tenant, "api", "region-" + (char) ('a' + i)));
      }
      RateLimiter a = limiters.get(0);
      List<String> states = new java.util.concurrent.CopyOnWriteArrayList<>();
      long[] slowestRenewMillis = {0};
      java.util.Map<dev.ration.wire.Outcome, Long> renewOutcomes =
          new java.util.concurrent.ConcurrentSkipListMap<>();
      a.addListener(new dev.ration.client.limiter.LeaseListener() {
        @Override
        public void onLeaseStateChanged(RateLimiter l, dev.ration.client.limiter.LeaseState from,
            dev.ration.client.limiter.LeaseState to) {
          states.add(String.format("%.1fs %s>%s", (System.nanoTime() - START) / 1e9, from, to));
        }

        @Override
        public void onRenewAnswered(RateLimiter l, dev.ration.wire.Outcome outcome, Duration latency) {
          slowestRenewMillis[0] = Math.max(slowestRenewMillis[0], latency.toMillis());
          renewOutcomes.merge(outcome, 1L, Long::sum);
        }
      });
      int warmup = 10;
      int buckets = seconds * 10;
      AtomicLongArray admitted = new AtomicLongArray(buckets);
      long start = System.nanoTime();
      long measureFrom = start + Duration.ofSeconds(warmup).toNanos();
      long end = measureFrom + Duration.ofSeconds(seconds).toNanos();
      Thread idle = new Thread(() -> {
        while (System.nanoTime() < end) {
          limiters.get(1).tryAcquire(1);
          limiters.get(2).tryAcquire(1);
          sleepMillis(1_000);
        }
      }, "idle-regions");
      idle.setDaemon(true);
      idle.start();
      double perMilli = 2.0 * rate / 1_000;
      double owed = 0;
      while (true) {
        long now = System.nanoTime();
        if (now >= end) {
          break;
        }
        owed += perMilli;
        while (owed >= 1) {
          owed -= 1;
          if (a.tryAcquire(1) && now >= measureFrom) {
            int b = (int) ((now - measureFrom) / 100_000_000L);
            if (b < buckets) {
              admitted.incrementAndGet(b);
            }
          }
        }
        sleepMillis(1);
      }
      long worstSecond = Long.MAX_VALUE;
      long worstTenth = Long.MAX_VALUE;
      for (int s = 0; s + 10 <= buckets; s++) {
        long sum = 0;
        for (int k = 0; k < 10; k++) {
          sum += admitted.get(s + k);
        }
        worstSecond = Math.min(worstSecond, sum);
      }
      for (int b = 0; b < buckets; b++) {
        worstTenth = Math.min(worstTenth, admitted.get(b));
      }
      System.out.printf("rate=%d/s lease=%ds measured=%ds: region A admitted, worst second %d (%.0f%% of R),"
              + " worst 100 ms %d (%.0f%% of R/10); suspensions=%d resumptions=%d slowest renewal=%d ms;"
              + " renewals answered %s; states %s%n", rate, leaseSeconds, seconds, worstSecond,
          100.0 * worstSecond / rate, worstTenth, 1000.0 * worstTenth / rate, a.suspensionsTotal(),
          a.resumptionsTotal(), slowestRenewMillis[0], renewOutcomes, states);
      for (RateLimiter l : limiters) {
        l.close();
      }
    } finally {
      for (RationClient c : clients) {
        c.close();
      }
    }
  }

  private static final long START = System.nanoTime();

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
