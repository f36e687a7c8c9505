package dev.ration.client.limiter;

/**
 * Where a {@link RateLimiter} stands with its lease, as its listeners and metrics see it.
 */
public enum LeaseState {
  /** No lease yet: nothing sent, or the first acquire is pending or refused. */
  NONE,
  /** A lease is held: requests are decided against its bucket. */
  HELD,
  /**
   * Hard mode: the lease's local validity ran out while its renewal was still unanswered (a
   * slow answer, a failover). Nothing is admitted, the balance is kept, and the renewal is
   * resent; its SUCCESS returns to {@link #HELD} with that balance, a refusal or the end of the
   * time the ledger counts the lease moves to {@link #LOST}.
   */
  SUSPENDED,
  /**
   * The lease was lost (expired locally without renewal, or the ledger no longer knows it) and
   * a new one is being acquired; hard mode admits nothing meanwhile.
   */
  LOST,
  /** Best-effort mode, lease lost: admitting from the one-off emergency budget. */
  EMERGENCY,
  /** Closed: admits nothing, ever again. */
  CLOSED
}
