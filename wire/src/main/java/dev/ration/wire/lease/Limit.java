package dev.ration.wire.lease;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

/**
 * A global limit's configuration: refill rate R per second, burst B, mode, lease duration,
 * grace, emergency allowance E, allocation policy, and the config version minted from the log.
 */
public record Limit(
    String tenant,
    String resource,
    long ratePerSecond,
    long burst,
    Mode mode,
    long leaseDurationMillis,
    long graceMillis,
    long emergency,
    Policy policy,
    long version) {}
