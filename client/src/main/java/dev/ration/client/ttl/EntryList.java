package dev.ration.client.ttl;

import dev.ration.client.time.LedgerTime;
import java.util.List;

/**
 * Live entries of a namespace whose keys start with a prefix, in key order.
 *
 * @param entries the entries returned
 * @param truncated whether more entries matched than the limit let through
 * @param readAt the ledger time the read was judged at (remaining TTL = {@code readAt.until(expiresAt)})
 */
public record EntryList(List<Entry> entries, boolean truncated, LedgerTime readAt) {
  /**
   * A list; {@code entries} is copied.
   *
   * @param entries the entries returned
   * @param truncated whether more matched
   * @param readAt the ledger time of the read
   */
  public EntryList {
    entries = List.copyOf(entries);
  }
}
