package dev.ration.client.quota;

import java.time.Duration;
import java.util.List;

/**
 * One reservation of a batch ({@link QuotaClient#tryReserveAll}): the arguments of {@link
 * QuotaClient#tryReserve(String, List, long, Duration, String)}.
 *
 * @param scope the scope reserved in; every level up to the root is checked
 * @param items the resources and amounts
 * @param configVersion the catalog version the caller last read (0 = do not check)
 * @param ttl how long the reservation lasts unless settled
 * @param idempotencyKey the application's key for this reservation ("" = none)
 */
public record ReserveRequest(String scope, List<Item> items, long configVersion, Duration ttl,
    String idempotencyKey) {
  /**
   * A reservation request.
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @param idempotencyKey the application's key ("" = none)
   */
  public ReserveRequest {
    items = List.copyOf(items);
    if (scope == null || ttl == null || idempotencyKey == null) {
      throw new IllegalArgumentException("scope, ttl and idempotencyKey are required (\"\" = no key)");
    }
  }

  /**
   * A reservation of {@code amount} of one resource, without a key.
   *
   * @param scope the scope reserved in
   * @param resource the resource
   * @param amount how much
   * @param ttl how long the reservation lasts unless settled
   * @return the request
   */
  public static ReserveRequest of(String scope, String resource, long amount, Duration ttl) {
    return new ReserveRequest(scope, List.of(new Item(resource, amount)), 0, ttl, "");
  }
}
