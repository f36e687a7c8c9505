package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;

/**
 * A catalog entry and its usage as of the read (windows rolled).
 *
 * @param spec the entry's configuration, the version in force
 * @param windowStart the start of the current window or billing period (ledger time)
 * @param windowUsed admitted in the current window or period
 * @param held held by outstanding reservations
 * @param allocated allocated by completed reservations (allocation entries)
 * @param alerted whether the soft limit has been crossed
 */
public record QuotaStatus(QuotaEntry spec, LedgerTime windowStart, long windowUsed, long held,
    long allocated, boolean alerted) {}
