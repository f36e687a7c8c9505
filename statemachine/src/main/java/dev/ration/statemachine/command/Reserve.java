package dev.ration.statemachine.command;

import java.util.List;

/**
 * checkAndReserve: reserve every item, all or nothing, at every level of {@code scope} that has
 * a catalog entry for the item's resource. {@code configVersion} is the catalog version the
 * caller last saw for these entries (0 = do not check); if it is not the current one the answer
 * is STALE_CONFIG with the current version. The request key of the proposal is the request id:
 * a retry gets the first decision back. The reservation expires {@code ttlMillis} after it is
 * made (ledger time).
 *
 * <p>{@code idempotencyKey} (empty = none) is the application's key for this reservation,
 * scoped to {@code scope}: a Reserve with a key that already made a reservation gets that
 * reservation's decision again, for the reservation's lifetime plus the settled retention,
 * from any client and long after the transport key expired. A keyed Reserve is logged under
 * {@link #KEYED_CODE}, so entries written before keys existed keep their encoding.
 */
public record Reserve(String scope, List<Item> items, long configVersion, long ttlMillis,
    String idempotencyKey) implements QuotaCommand {
  public static final int CODE = 41;
  /** A Reserve with an idempotency key: the fields of {@link #CODE}, then str idempotencyKey. */
  public static final int KEYED_CODE = 47;

  public Reserve {
    items = List.copyOf(items);
    if (idempotencyKey == null) {
      throw new IllegalArgumentException("idempotencyKey is null (use \"\" for none)");
    }
  }

  /** A Reserve without an application idempotency key. */
  public Reserve(String scope, List<Item> items, long configVersion, long ttlMillis) {
    this(scope, items, configVersion, ttlMillis, "");
  }

  public boolean keyed() {
    return !idempotencyKey.isEmpty();
  }

  public record Item(String resource, long amount) {}

  @Override
  public int code() {
    return keyed() ? KEYED_CODE : CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.reserve(this);
  }
}
