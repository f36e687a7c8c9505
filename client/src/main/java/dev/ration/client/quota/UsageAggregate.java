package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import java.time.Duration;

/**
 * The usage of one resource at one scope level in one hour of event time.
 *
 * @param scope the scope level
 * @param resource the resource
 * @param bucketStart the start of the hour (ledger time); the bucket lasts {@link #BUCKET}
 * @param quantity the sum of the quantities of its events
 * @param events how many events it sums
 */
public record UsageAggregate(String scope, String resource, LedgerTime bucketStart, long quantity,
    long events) {
  /** The length of an aggregate bucket. */
  public static final Duration BUCKET = Duration.ofHours(1);
}
