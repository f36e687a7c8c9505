package dev.ration.client.quota;

/**
 * One item of a granted reservation.
 *
 * @param resource the resource reserved
 * @param amount how much was reserved
 * @param overage the billable part of {@code amount} beyond the hard limit (overage ALLOW)
 * @param unit the catalog entry's unit
 */
public record ReservedItem(String resource, long amount, long overage, String unit) {}
