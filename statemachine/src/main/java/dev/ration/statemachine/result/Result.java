package dev.ration.statemachine.result;

import dev.ration.wire.Outcome;

import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LeaseView;

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

  // --- ttl (issue 4): codes 20–29
  /** A put, compare-and-set or refresh took effect: the entry's version and expiry now. */
  record EntryWritten(String namespace, String key, long version, long expiresAtMillis)
      implements Result {
    public int code() {
      return 20;
    }
  }

  /** A delete: {@code existed} false when no live entry was there (version then 0). */
  record EntryDeleted(String namespace, String key, long version, boolean existed)
      implements Result {
    public int code() {
      return 21;
    }
  }

  record NamespaceSet(dev.ration.wire.ttl.NamespaceView namespace) implements Result {
    public int code() {
      return 22;
    }
  }
  // --- end ttl

  /**
   * A rejection. {@code retryAfterMillis} is 0 when no time is known; {@code currentVersion}
   * carries the current config or lease version where the outcome is about versions, else 0.
   */
  record Rejected(Outcome outcome, String message, long retryAfterMillis, long currentVersion)
      implements Result {
    public Rejected {
      if (outcome == Outcome.SUCCESS) {
        throw new IllegalArgumentException("a rejection cannot carry SUCCESS: " + message);
      }
    }

    public int code() {
      return 7;
    }
  }

  // --- quota (issue 6): codes 40-59 (QuotaResult, encoded by QuotaResultCodec)
  /** A quota ledger result; its code is the wrapped result's (40–59). */
  record Quota(QuotaResult result) implements Result {
    public int code() {
      return result.code();
    }
  }
  // --- end quota
}
