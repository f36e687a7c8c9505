package dev.ration.client.quota.internal;

import dev.ration.client.quota.QuotaEntry;
import dev.ration.client.time.LedgerTime;
import dev.ration.wire.quota.QuotaSpec;

/**
 * Not API: the one conversion of the wire's catalog entry into {@link QuotaEntry}: ledger-time
 * milliseconds become {@link LedgerTime}.
 */
public final class QuotaViews {
  private QuotaViews() {}

  /**
   * The public form of a stored catalog entry.
   *
   * @param s the entry as the wire carries it
   * @return the entry
   */
  public static QuotaEntry entry(QuotaSpec s) {
    return new QuotaEntry(s.scope(), s.resource(), s.kind(), s.window(), s.limit(), s.unit(),
        s.softLimit(), s.overage(), s.overageMax(), LedgerTime.ofMillis(s.periodStartMillis()),
        s.version(), s.actor(), LedgerTime.ofMillis(s.changedAtMillis()), s.reason());
  }
}
