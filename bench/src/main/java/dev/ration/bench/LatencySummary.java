package dev.ration.bench;

import org.HdrHistogram.Histogram;

/** Percentiles of one histogram, in microseconds. {@code count} 0 means every field is 0. */
public record LatencySummary(long count, long p50Micros, long p90Micros, long p99Micros, long p999Micros,
    long maxMicros, double meanMicros) {

  static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0, 0, 0);

  static LatencySummary of(Histogram h) {
    if (h.getTotalCount() == 0) {
      return EMPTY;
    }
    return new LatencySummary(
        h.getTotalCount(),
        h.getValueAtPercentile(50.0),
        h.getValueAtPercentile(90.0),
        h.getValueAtPercentile(99.0),
        h.getValueAtPercentile(99.9),
        h.getMaxValue(),
        h.getMean());
  }
}
