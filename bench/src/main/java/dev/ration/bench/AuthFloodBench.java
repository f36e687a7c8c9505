package dev.ration.bench;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.tls.ClientTls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Failed authentications against the time a valid identity needs to connect: for
 * {@code seconds}, {@code flooders} threads open connections to the client port with a bad
 * token (each HELLO is refused and closes its connection), while the main thread, every 200 ms,
 * connects with the administrator's client certificate and makes one call, timing connect +
 * call. The same probe runs first without the flood, as the baseline. Prints one line per phase:
 * refusals per second and the probe's p50/p99/max in milliseconds, and how many probes failed.
 *
 * <p>Usage: {@code java -cp "cli/target/lib/*" dev.ration.bench.AuthFloodBench SERVERS CERTS_DIR
 * [FLOODERS] [SECONDS]} against a secure cluster (scripts/cluster.sh start). Every loop is
 * bounded by the seconds given.
 */
public final class AuthFloodBench {
  private AuthFloodBench() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: AuthFloodBench HOST:PORT[,HOST:PORT...] CERTS_DIR [FLOODERS] [SECONDS]");
      System.exit(1);
    }
    List<String> servers = List.of(args[0].split(","));
    Path certs = Path.of(args[1]);
    int flooders = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 15;
    ClientTls trust = ClientTls.trusting(certs.resolve("ca.crt"));
    ClientTls admin = trust.withKeyPair(certs.resolve("client.admin.crt"), certs.resolve("client.admin.key"));
    System.out.println(phase("baseline", servers, trust, admin, 0, seconds));
    System.out.println(phase("flood", servers, trust, admin, flooders, seconds));
  }

  private static String phase(String name, List<String> servers, ClientTls trust, ClientTls admin,
      int flooders, int seconds) throws Exception {
    long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    AtomicLong refused = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < flooders; i++) {
      Thread t = new Thread(() -> {
        RationClientOptions bad = RationClientOptions.builder().addresses(servers).tls(trust)
            .token("rtn_0000000000000001_" + "x".repeat(43)).maxRetries(0)
            .connectTimeout(Duration.ofSeconds(2)).requestDeadline(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < end) {
          try (RationClient c = new RationClient(bad)) {
            c.clusterStatus();
          } catch (RationException e) {
            refused.incrementAndGet();
          } catch (RuntimeException e) {
            refused.incrementAndGet();
          }
        }
      }, "flood-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    List<Long> micros = new ArrayList<>();
    int failed = 0;
    long started = System.nanoTime();
    RationClientOptions good = RationClientOptions.builder().addresses(servers).tls(admin)
        .connectTimeout(Duration.ofSeconds(5)).requestDeadline(Duration.ofSeconds(5)).build();
    while (System.nanoTime() < end) {
      long t0 = System.nanoTime();
      try (RationClient c = new RationClient(good)) {
        c.clusterStatus();
        micros.add((System.nanoTime() - t0) / 1_000);
      } catch (RuntimeException e) {
        failed++;
      }
      Thread.sleep(200);
    }
    for (Thread t : threads) {
      t.join(10_000);
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    Collections.sort(micros);
    return String.format("%-8s flooders=%d refusals/s=%.0f probes=%d failed=%d connect+call ms p50=%.1f p99=%.1f max=%.1f",
        name, flooders, refused.get() / elapsed, micros.size(), failed, pct(micros, 0.50) / 1e3,
        pct(micros, 0.99) / 1e3, micros.isEmpty() ? Double.NaN : micros.get(micros.size() - 1) / 1e3);
  }

  private static double pct(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size())));
  }
}
