package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.absent;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.nonEmptyStr;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;
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

  /**
   * Its fields in the log, in this order after the command code: the items come last there,
   * after the version and the time to live, though they are the second component.
   */
  public static final Shape<Reserve> SHAPE =
      Shape.reordered(
          Reserve.class,
          str("scope", Reserve::scope),
          i64("configVersion", Reserve::configVersion),
          i64("ttlMillis", Reserve::ttlMillis),
          list16("items", Reserve::items, Item.SHAPE),
          absent("idempotencyKey", ""));

  /** The fields of a keyed Reserve ({@link #KEYED_CODE}): those of {@link #SHAPE}, then the key. */
  public static final Shape<Reserve> KEYED_SHAPE =
      Shape.reordered(
          Reserve.class,
          str("scope", Reserve::scope),
          i64("configVersion", Reserve::configVersion),
          i64("ttlMillis", Reserve::ttlMillis),
          list16("items", Reserve::items, Item.SHAPE),
          nonEmptyStr("idempotencyKey", Reserve::idempotencyKey));

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

  public record Item(String resource, long amount) {
    /** Its fields in the log. */
    public static final Shape<Item> SHAPE =
        Shape.of(
            Item.class,
            str("resource", Item::resource),
            i64("amount", Item::amount));
  }

  @Override
  public int code() {
    return keyed() ? KEYED_CODE : CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.reserve(this);
  }
}
