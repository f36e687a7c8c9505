package dev.ration.server.observability;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.impl.RatisMetricRegistryImpl;
import org.apache.ratis.thirdparty.com.codahale.metrics.Counter;
import org.apache.ratis.thirdparty.com.codahale.metrics.Gauge;
import org.apache.ratis.thirdparty.com.codahale.metrics.Metric;
import org.apache.ratis.thirdparty.com.codahale.metrics.Snapshot;
import org.apache.ratis.thirdparty.com.codahale.metrics.Timer;

/**
 * Ratis's own metrics (leader election, the log worker, the log appender, the server's request
 * counters) in the node's Prometheus scrape, under {@code ratis_*} names in base units.
 *
 * <p>Ratis 3.3 keeps its metrics in Dropwizard registries of its own, one per component and
 * group member, named {@code ratis.<component>.<member>@group-<id>.<metric>}. They are read at
 * scrape time, so registries Ratis creates or replaces later (a restarted division) are seen.
 * Only metrics of this node's member are exported (tests run several nodes in one JVM), and only
 * the curated list below: Ratis has about a hundred, most of them internal; these are the ones
 * an operator acts on. Per-follower appender and peer figures carry the peer as a label.
 *
 * <p>Thread-safe: it holds no state but the member id; Dropwizard metrics are thread-safe.
 */
final class RatisMetrics implements MultiCollector {
  private static final Pattern KEY = Pattern.compile("ratis\\.([a-z_]+)\\.([^.@]+)@group-[^.]+\\.(.+)");
  private static final Pattern FOLLOWER = Pattern.compile("follower_(.+)_(match_index|next_index)");
  private static final Pattern PEER_COMMIT = Pattern.compile("(.+)_peerCommitIndex");

  private enum Kind { COUNTER, GAUGE, MILLIS_GAUGE, TIMER }

  private record Export(String name, Kind kind, String help) {}

  /** (component, Ratis metric name) → what to export. */
  private static final Map<String, Export> EXPORTS = new LinkedHashMap<>();

  static {
    export("leader_election", "electionCount", "ratis_leader_elections", Kind.COUNTER, "Elections this node started as a candidate");
    export("leader_election", "timeoutCount", "ratis_leader_election_timeouts", Kind.COUNTER, "Election timeouts: this node heard no leader in time");
    export("leader_election", "transferLeadershipCount", "ratis_leadership_transfers", Kind.COUNTER, "Leadership transfers this node took part in");
    export("leader_election", "electionTime", "ratis_leader_election_duration_seconds", Kind.TIMER, "Time elections took");
    export("leader_election", "lastLeaderElapsedTime", "ratis_leader_last_heard_seconds", Kind.MILLIS_GAUGE, "Time since this node last heard from a leader");
    export("log_worker", "flushCount", "ratis_log_flushes", Kind.COUNTER, "Raft log flushes (fsync batches)");
    export("log_worker", "appendEntryCount", "ratis_log_appended_entries", Kind.COUNTER, "Entries appended to the Raft log");
    export("log_worker", "syncTime", "ratis_log_sync_seconds", Kind.TIMER, "Time of Raft log fsyncs");
    export("log_worker", "appendEntryLatency", "ratis_log_append_seconds", Kind.TIMER, "Time to append an entry to the Raft log");
    export("log_worker", "closedSegmentsSizeInBytes", "ratis_log_closed_segments_bytes", Kind.GAUGE, "Bytes in closed Raft log segments");
    export("log_worker", "openSegmentSizeInBytes", "ratis_log_open_segment_bytes", Kind.GAUGE, "Bytes in the open Raft log segment");
    export("log_worker", "closedSegmentsNum", "ratis_log_closed_segments", Kind.GAUGE, "Closed Raft log segments");
    export("log_worker", "dataQueueSize", "ratis_log_worker_queue_entries", Kind.GAUGE, "Entries queued for the Raft log worker");
    export("server", "numRequestQueueLimitHits", "ratis_request_queue_limit_hits", Kind.COUNTER, "Requests Ratis refused because its pending-request queue was full");
    export("server", "numFailedClientWriteOnServer", "ratis_failed_writes", Kind.COUNTER, "Writes Ratis failed on this node");
    export("server", "follower_append_entry_latency", "ratis_follower_append_entry_seconds", Kind.TIMER, "Follower: time to handle an append-entries request");
  }

  private static void export(String component, String metric, String name, Kind kind, String help) {
    EXPORTS.put(component + "/" + metric, new Export(name, kind, help));
  }

  private final String memberId;

  RatisMetrics(String memberId) {
    this.memberId = memberId;
  }

  @Override
  public MetricSnapshots collect() {
    Map<String, MetricSnapshot> byName = new LinkedHashMap<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> matchIndex = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> nextIndex = new ArrayList<>();
    List<GaugeSnapshot.GaugeDataPointSnapshot> peerCommit = new ArrayList<>();
    for (RatisMetricRegistry registry : MetricRegistries.global().getMetricRegistries()) {
      if (!(registry instanceof RatisMetricRegistryImpl impl)) {
        continue;
      }
      for (Map.Entry<String, Metric> e : impl.getDropWizardMetricRegistry().getMetrics().entrySet()) {
        Matcher key = KEY.matcher(e.getKey());
        if (!key.matches() || !key.group(2).equals(memberId)) {
          continue;
        }
        String component = key.group(1);
        String metric = key.group(3);
        Metric m = e.getValue();
        Matcher follower = FOLLOWER.matcher(metric);
        Matcher peer = PEER_COMMIT.matcher(metric);
        if (component.equals("log_appender") && follower.matches()) {
          double v = number(m);
          if (!Double.isNaN(v)) {
            (follower.group(2).equals("match_index") ? matchIndex : nextIndex)
                .add(point(v, Labels.of("follower", follower.group(1))));
          }
          continue;
        }
        if (component.equals("server") && peer.matches()) {
          double v = number(m);
          if (!Double.isNaN(v)) {
            peerCommit.add(point(v, Labels.of("peer", peer.group(1))));
          }
          continue;
        }
        Export x = EXPORTS.get(component + "/" + metric);
        if (x == null || byName.containsKey(x.name())) {
          continue;
        }
        MetricSnapshot s = snapshot(x, m);
        if (s != null) {
          byName.put(x.name(), s);
        }
      }
    }
    List<MetricSnapshot> out = new ArrayList<>(byName.values());
    if (!matchIndex.isEmpty()) {
      out.add(new GaugeSnapshot(meta("ratis_log_appender_follower_match_index",
          "Leader: the highest log index known replicated on each follower"), matchIndex));
    }
    if (!nextIndex.isEmpty()) {
      out.add(new GaugeSnapshot(meta("ratis_log_appender_follower_next_index",
          "Leader: the next log index to send to each follower"), nextIndex));
    }
    if (!peerCommit.isEmpty()) {
      out.add(new GaugeSnapshot(meta("ratis_peer_commit_index", "Commit index each peer last reported"), peerCommit));
    }
    return new MetricSnapshots(out);
  }

  private static io.prometheus.metrics.model.snapshots.MetricMetadata meta(String name, String help) {
    return new io.prometheus.metrics.model.snapshots.MetricMetadata(name, help);
  }

  private static GaugeSnapshot.GaugeDataPointSnapshot point(double v, Labels labels) {
    return GaugeSnapshot.GaugeDataPointSnapshot.builder().value(v).labels(labels).build();
  }

  private static MetricSnapshot snapshot(Export x, Metric m) {
    switch (x.kind()) {
      case COUNTER -> {
        if (m instanceof Counter c) {
          return CounterSnapshot.builder().name(x.name()).help(x.help())
              .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(c.getCount()).build()).build();
        }
      }
      case GAUGE, MILLIS_GAUGE -> {
        double v = number(m);
        if (!Double.isNaN(v)) {
          double value = x.kind() == Kind.MILLIS_GAUGE ? v / 1e3 : v;
          return GaugeSnapshot.builder().name(x.name()).help(x.help()).dataPoint(point(value, Labels.EMPTY)).build();
        }
      }
      case TIMER -> {
        if (m instanceof Timer t) {
          Snapshot s = t.getSnapshot();
          // Dropwizard timers keep nanoseconds and no running sum: quantiles of their reservoir
          // and the count, no _sum.
          return SummarySnapshot.builder().name(x.name()).help(x.help())
              .dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder()
                  .count(t.getCount())
                  .quantiles(Quantiles.of(new Quantile(0.5, s.getMedian() / 1e9),
                      new Quantile(0.99, s.get99thPercentile() / 1e9)))
                  .build())
              .build();
        }
      }
      default -> throw new IllegalStateException("kind " + x.kind());
    }
    return null;
  }

  /** A gauge's numeric value, or NaN if it has none (not a gauge, or not a number). */
  private static double number(Metric m) {
    if (m instanceof Gauge<?> g) {
      Object v = g.getValue();
      if (v instanceof Number n) {
        return n.doubleValue();
      }
    }
    return Double.NaN;
  }
}
