package dev.ration.bench;

import java.util.Locale;
import java.util.Map;

/**
 * Prints a run as a table for people or as one JSON object for scripts. The JSON field names
 * are a stable interface (docs/benchmarks.md shows them): add fields, never rename. Latencies
 * are integer microseconds; rates are per second with one decimal. Stateless.
 */
public final class BenchReport {
  private BenchReport() {}

  /** The run's settings, as printed at the top of a report. */
  public record Settings(String workload, double renewRatio, int inFlight, int connections, int limits,
      double warmupSeconds, double durationSeconds, String servers, long leaseDurationMillis, long graceMillis) {}

  public static String json(Settings s, LoadGenerator.Run run) {
    Accounting.Results r = run.results();
    StringBuilder b = new StringBuilder(1024);
    b.append('{');
    field(b, "op", s.workload()).append(',');
    b.append("\"renewRatio\":").append(s.renewRatio()).append(',');
    field(b, "inFlight", s.inFlight()).append(',');
    field(b, "connections", s.connections()).append(',');
    field(b, "limits", s.limits()).append(',');
    field(b, "servers", s.servers()).append(',');
    field(b, "leaseDurationMillis", s.leaseDurationMillis()).append(',');
    field(b, "graceMillis", s.graceMillis()).append(',');
    field(b, "warmupSeconds", s.warmupSeconds()).append(',');
    field(b, "durationSeconds", s.durationSeconds()).append(',');
    field(b, "windowSeconds", r.windowSeconds()).append(',');
    field(b, "throughputPerSecond", r.throughputPerSecond()).append(',');
    field(b, "repliesPerSecond", r.repliesPerSecond()).append(',');
    field(b, "succeeded", r.succeeded()).append(',');
    field(b, "replies", r.replies()).append(',');
    field(b, "errors", r.errors()).append(',');
    field(b, "warmupCompletions", r.warmupCompletions()).append(',');
    field(b, "setupLeases", run.setupLeases()).append(',');
    field(b, "setupFailures", run.setupFailures()).append(',');
    field(b, "abandoned", run.abandoned()).append(',');
    field(b, "maxOutstanding", run.maxOutstanding()).append(',');
    b.append("\"latencyMicros\":");
    latency(b, r.latency()).append(',');
    b.append("\"ops\":{");
    boolean first = true;
    for (Accounting.KindResults k : r.kinds()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      b.append('"').append(k.kind().label()).append("\":{");
      field(b, "replies", k.replies()).append(',');
      field(b, "succeeded", k.succeeded()).append(',');
      field(b, "succeededPerSecond", k.succeededPerSecond()).append(',');
      field(b, "errors", k.errors()).append(',');
      field(b, "indeterminate", k.indeterminate()).append(',');
      b.append("\"outcomes\":");
      counts(b, k.outcomes()).append(',');
      b.append("\"errorCodes\":");
      counts(b, k.errorCodes()).append(',');
      b.append("\"latencyMicros\":");
      latency(b, k.latency());
      b.append('}');
    }
    b.append("}}");
    return b.toString();
  }

  public static String table(Settings s, LoadGenerator.Run run) {
    Accounting.Results r = run.results();
    StringBuilder b = new StringBuilder(1024);
    b.append(String.format(Locale.ROOT,
        "op %s%s, in-flight %d, connections %d, limits %d, warm-up %.0fs, window %.1fs, servers %s%n",
        s.workload(), s.workload().equals("mixed") ? String.format(Locale.ROOT, " (renew ratio %.2f)", s.renewRatio()) : "",
        s.inFlight(), s.connections(), s.limits(), s.warmupSeconds(), r.windowSeconds(), s.servers()));
    if (run.setupLeases() + run.setupFailures() > 0) {
      b.append(String.format(Locale.ROOT, "initial leases: %d acquired, %d failed%n", run.setupLeases(), run.setupFailures()));
    }
    b.append(String.format(Locale.ROOT, "%-10s %10s %12s %10s %10s %10s %10s %10s %8s%n",
        "op", "replies", "success/s", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "errors", "indet."));
    for (Accounting.KindResults k : r.kinds()) {
      if (k.replies() + k.errors() == 0) {
        continue;
      }
      LatencySummary l = k.latency();
      b.append(String.format(Locale.ROOT, "%-10s %10d %12.1f %10.2f %10.2f %10.2f %10.2f %10d %8d%n",
          k.kind().label(), k.replies(), k.succeededPerSecond(), l.p50Micros() / 1000.0, l.p99Micros() / 1000.0,
          l.p999Micros() / 1000.0, l.maxMicros() / 1000.0, k.errors(), k.indeterminate()));
    }
    LatencySummary l = r.latency();
    b.append(String.format(Locale.ROOT, "%-10s %10d %12.1f %10.2f %10.2f %10.2f %10.2f %10d%n",
        "all", r.replies(), r.throughputPerSecond(), l.p50Micros() / 1000.0, l.p99Micros() / 1000.0,
        l.p999Micros() / 1000.0, l.maxMicros() / 1000.0, r.errors()));
    for (Accounting.KindResults k : r.kinds()) {
      if (!k.outcomes().isEmpty() || !k.errorCodes().isEmpty()) {
        b.append(k.kind().label()).append(": outcomes ").append(k.outcomes())
            .append(", errors ").append(k.errorCodes()).append(System.lineSeparator());
      }
    }
    if (run.abandoned() > 0) {
      b.append(String.format(Locale.ROOT, "%d requests were still outstanding when the drain time ran out%n",
          run.abandoned()));
    }
    return b.toString();
  }

  private static StringBuilder latency(StringBuilder b, LatencySummary l) {
    b.append('{');
    field(b, "count", l.count()).append(',');
    field(b, "p50", l.p50Micros()).append(',');
    field(b, "p90", l.p90Micros()).append(',');
    field(b, "p99", l.p99Micros()).append(',');
    field(b, "p999", l.p999Micros()).append(',');
    field(b, "max", l.maxMicros()).append(',');
    field(b, "mean", l.meanMicros());
    return b.append('}');
  }

  private static StringBuilder counts(StringBuilder b, Map<String, Long> m) {
    b.append('{');
    boolean first = true;
    for (Map.Entry<String, Long> e : m.entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      field(b, e.getKey(), e.getValue());
    }
    return b.append('}');
  }

  private static StringBuilder field(StringBuilder b, String name, long v) {
    return b.append('"').append(name).append("\":").append(v);
  }

  private static StringBuilder field(StringBuilder b, String name, double v) {
    return b.append('"').append(name).append("\":").append(String.format(Locale.ROOT, "%.1f", v));
  }

  private static StringBuilder field(StringBuilder b, String name, String v) {
    b.append('"').append(name).append("\":\"");
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"');
  }
}
