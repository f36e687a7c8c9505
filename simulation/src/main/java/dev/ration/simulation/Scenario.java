package dev.ration.simulation;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import java.util.List;

/**
 * One replayable run of the regional limiter: the limit, the regions' offered load, the network
 * and the faults. Everything is a value, and the seed fixes every random choice, so a scenario
 * replays identically (the simulation is single-threaded on manual clocks).
 *
 * @param regions number of regions, each with one limiter (holder "region-i")
 * @param policy allocation policy of the limit
 * @param durationMillis simulated (true) time
 * @param warmupMillis utilization is measured over [warmup, duration): the first acquire asks
 *     for the limiter's floor demand, and learning real demand takes one renewal
 * @param load offered permits per second of region i at true time t (requests of one permit)
 * @param shiftAtMillis when demand moves to {@code hotRegion} (−1: no shift measured)
 * @param network delays, drops, duplicates (reordering follows from jitter and duplicates)
 * @param partitions a region cut off from the coordinator (both directions) for a while
 * @param failoverAtMillis the coordinator stops answering at this time (−1: never) for
 *     {@code failoverGapMillis}; the new leader's log time continues from the last entry, and
 *     it commits NewEpoch before anything else
 * @param driftPpm per region: its monotonic clock runs at (1 + ppm/10^6) of true time
 * @param renewFraction limiter option (fraction of the lease duration before renewal)
 * @param ewmaAlpha limiter option (weight of the newest period in the demand report)
 */
public record Scenario(
    String name,
    int regions,
    long ratePerSecond,
    long burst,
    Mode mode,
    long leaseDurationMillis,
    long graceMillis,
    long emergency,
    Policy policy,
    long durationMillis,
    long warmupMillis,
    Load load,
    long shiftAtMillis,
    int hotRegion,
    Network network,
    List<Partition> partitions,
    long failoverAtMillis,
    long failoverGapMillis,
    long[] driftPpm,
    double renewFraction,
    double ewmaAlpha,
    long seed) {

  /** Offered load: permits per second that region {@code region} asks for at {@code tMillis}. */
  @FunctionalInterface
  public interface Load {
    long perSecond(int region, long tMillis);
  }

  /** Message faults: one-way delay base + uniform jitter; independent drop/duplicate chances. */
  public record Network(long baseDelayMillis, long jitterMillis, double dropProbability,
      double duplicateProbability, long requestTimeoutMillis) {
    public static Network calm() {
      return new Network(20, 10, 0, 0, 400);
    }
  }

  /** Region {@code region} cannot reach the coordinator in [fromMillis, toMillis). */
  public record Partition(int region, long fromMillis, long toMillis) {}

  public Scenario {
    if (regions < 1 || driftPpm.length != regions || hotRegion < 0 || hotRegion >= regions) {
      throw new IllegalArgumentException("regions " + regions + ", driftPpm " + driftPpm.length
          + ", hotRegion " + hotRegion + " do not agree");
    }
    if (warmupMillis >= durationMillis) {
      throw new IllegalArgumentException("warmupMillis " + warmupMillis + " >= durationMillis " + durationMillis);
    }
  }

  Scenario withPolicy(Policy p) {
    return new Scenario(name + "/" + p.name().toLowerCase().replace('_', '-'), regions,
        ratePerSecond, burst, mode, leaseDurationMillis, graceMillis, emergency, p,
        durationMillis, warmupMillis, load, shiftAtMillis, hotRegion, network, partitions,
        failoverAtMillis, failoverGapMillis, driftPpm, renewFraction, ewmaAlpha, seed);
  }

  Scenario withLimiter(double renew, double alpha, String suffix) {
    return new Scenario(name + suffix, regions, ratePerSecond, burst, mode, leaseDurationMillis,
        graceMillis, emergency, policy, durationMillis, warmupMillis, load, shiftAtMillis,
        hotRegion, network, partitions, failoverAtMillis, failoverGapMillis, driftPpm, renew,
        alpha, seed);
  }

  /** Regions that can be disconnected at once (each may spend E in best-effort mode). */
  int disconnectable() {
    if (failoverAtMillis >= 0) {
      return regions;
    }
    return (int) partitions.stream().mapToInt(Partition::region).distinct().count();
  }
}
