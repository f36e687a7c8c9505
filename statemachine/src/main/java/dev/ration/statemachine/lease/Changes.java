package dev.ration.statemachine.lease;

import dev.ration.statemachine.command.RequestKey;
import java.util.HashSet;
import java.util.Set;

/**
 * The keys one applied entry touched. The store writes, for each, the ledger's current value
 * (or a delete if it is gone) into the entry's single WriteBatch: only touched records are
 * re-encoded. Thread: confined to the applying thread.
 */
public final class Changes {
  public final Set<LimitKey> limits = new HashSet<>();
  public final Set<Long> leases = new HashSet<>();
  public final Set<RequestKey> idempotency = new HashSet<>();
  public final Set<ExpiryKey> expiry = new HashSet<>();

  public boolean isEmpty() {
    return limits.isEmpty() && leases.isEmpty() && idempotency.isEmpty() && expiry.isEmpty();
  }
}
