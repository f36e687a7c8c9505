package dev.ration.bench;

import java.time.Duration;
import java.util.List;

/**
 * What one run does: the workload, how many requests are outstanding at once (closed loop),
 * the warm-up and measured durations, the resources (limits) the load is spread over, and how
 * often a progress line is printed. {@code drain} bounds the wait for outstanding requests
 * after the window closes; {@code setupTimeout} bounds the initial acquires of renew/mixed runs.
 */
public record LoadPlan(
    Workload workload,
    double renewRatio,
    int inFlight,
    Duration warmup,
    Duration duration,
    List<String> resources,
    String holderPrefix,
    Duration progressInterval,
    Duration drain,
    Duration setupTimeout) {

  public static final int IN_FLIGHT_MAX = 100_000;

  public LoadPlan {
    resources = List.copyOf(resources);
    if (workload == null) {
      throw new IllegalArgumentException("workload is missing");
    }
    if (!(renewRatio >= 0 && renewRatio <= 1)) {
      throw new IllegalArgumentException("renewRatio " + renewRatio + " not in [0, 1]");
    }
    if (inFlight < 1 || inFlight > IN_FLIGHT_MAX) {
      throw new IllegalArgumentException("inFlight " + inFlight + " not in [1, " + IN_FLIGHT_MAX + "]");
    }
    if (warmup.isNegative() || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("warmup " + warmup + " must be >= 0 and duration " + duration + " > 0");
    }
    if (resources.isEmpty()) {
      throw new IllegalArgumentException("resources is empty: name at least one limit's resource");
    }
    if (progressInterval.isNegative() || progressInterval.isZero() || drain.isNegative() || setupTimeout.isNegative()) {
      throw new IllegalArgumentException("progressInterval " + progressInterval + " must be > 0, drain " + drain
          + " and setupTimeout " + setupTimeout + " >= 0");
    }
  }
}
