package dev.ration.statemachine.result;

import dev.ration.statemachine.lease.Limit;
import dev.ration.statemachine.lease.LeaseView;

/**
 * The outcome of applying one proposal. Results are replicated data: a retried request gets the
 * stored result back byte for byte. Codes are explicit and append-only.
 */
public sealed interface Result {
  int code();

  record LimitSet(Limit limit) implements Result {
    public int code() {
      return 1;
    }
  }

  /** A new lease; {@code startBalance} tokens come from the returned-token pool (often 0). */
  record LeaseGranted(LeaseView lease, long startBalance) implements Result {
    public int code() {
      return 2;
    }
  }

  record LeaseRenewed(LeaseView lease) implements Result {
    public int code() {
      return 3;
    }
  }

  /** {@code credited} tokens went to the pool; {@code alreadyGone}: returned or expired before. */
  record LeaseReturned(long leaseId, long credited, boolean alreadyGone) implements Result {
    public int code() {
      return 4;
    }
  }

  record EpochStarted(long epoch, long epochStartMillis) implements Result {
    public int code() {
      return 5;
    }
  }

  record Ticked(int freed) implements Result {
    public int code() {
      return 6;
    }
  }

  /**
   * A rejection. {@code retryAfterMillis} is 0 when no time is known; {@code currentVersion}
   * carries the current config or lease version where the outcome is about versions, else 0.
   */
  record Rejected(Outcome outcome, String message, long retryAfterMillis, long currentVersion)
      implements Result {
    public int code() {
      return 7;
    }
  }
}
