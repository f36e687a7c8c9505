package dev.ration.statemachine.command;

import java.util.List;

/**
 * checkAndReserve: reserve every item, all or nothing, at every level of {@code scope} that has
 * a catalog entry for the item's resource. {@code configVersion} is the catalog version the
 * caller last saw for these entries (0 = do not check); if it is not the current one the answer
 * is STALE_CONFIG with the current version. The request key of the proposal is the request id:
 * a retry gets the first decision back. The reservation expires {@code ttlMillis} after it is
 * made (ledger time).
 */
public record Reserve(String scope, List<Item> items, long configVersion, long ttlMillis)
    implements QuotaCommand {
  public static final int CODE = 41;

  public Reserve {
    items = List.copyOf(items);
  }

  public record Item(String resource, long amount) {}

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.reserve(this);
  }
}
