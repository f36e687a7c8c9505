package dev.ration.client.quota;

import java.util.List;

/**
 * The answer to {@link QuotaClient#aggregateUsage}.
 *
 * @param buckets the hour buckets with usage, in time order (per resource when no resource was
 *     named)
 * @param total the sum of their quantities
 */
public record UsageAggregates(List<UsageAggregate> buckets, long total) {
  /**
   * The aggregates; {@code buckets} is copied.
   *
   * @param buckets the hour buckets
   * @param total their sum
   */
  public UsageAggregates {
    buckets = List.copyOf(buckets);
  }
}
