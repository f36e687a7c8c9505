package dev.ration.client.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ration.client.quota.internal.QuotaViews;
import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import org.junit.jupiter.api.Test;

/**
 * Goal: a stored catalog entry reaches a service with every field in its place, its ledger-time
 * milliseconds as {@link LedgerTime}, and {@link QuotaEntry#toDefinition} proposes exactly the
 * entry again, guarded by the version read.
 */
class QuotaEntryTest {
  private static final QuotaSpec STORED = new QuotaSpec("acme/shop", "egress", QuotaKind.CUMULATIVE,
      Window.MONTH, 1_000, "bytes", 800, Overage.ALLOW, 50, 86_400_000, 17, "alice", 99_000, "launch");

  @Test
  void theWireEntryConvertsFieldByField() {
    assertEquals(new QuotaEntry("acme/shop", "egress", QuotaKind.CUMULATIVE, Window.MONTH, 1_000,
            "bytes", 800, Overage.ALLOW, 50, LedgerTime.ofMillis(86_400_000), 17, "alice",
            LedgerTime.ofMillis(99_000), "launch"),
        QuotaViews.entry(STORED));
    assertEquals(1_050, QuotaViews.entry(STORED).capacity());
  }

  @Test
  void toDefinitionProposesTheSameEntryReplacingTheVersionRead() {
    QuotaDefinition d = QuotaViews.entry(STORED).toDefinition();
    assertEquals(17, d.expectedVersion());
    // As SET_QUOTA carries it: the version read as the guard, no change time (the ledger stamps it).
    assertEquals(new QuotaSpec("acme/shop", "egress", QuotaKind.CUMULATIVE, Window.MONTH, 1_000,
        "bytes", 800, Overage.ALLOW, 50, 86_400_000, 17, "alice", 0, "launch"), d.toSpec());
  }
}
