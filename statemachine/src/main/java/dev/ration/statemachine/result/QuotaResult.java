package dev.ration.statemachine.result;

import dev.ration.wire.Outcome;

import dev.ration.statemachine.quota.Drift;
import dev.ration.wire.EventType;
import dev.ration.wire.quota.QuotaSpec;
import java.util.List;

/**
 * Results of the quota ledger's commands. Codes 40–59 of the result format are theirs (see
 * {@link QuotaResultCodec}); like every result they are replicated values, stored in the
 * idempotency record so a retry gets the first decision back byte for byte.
 */
public sealed interface QuotaResult {
  int code();

  record QuotaSet(QuotaSpec spec) implements QuotaResult {
    public int code() {
      return 40;
    }
  }

  /** A reservation made at every level; {@code configVersion} is the version it was checked at. */
  record Reserved(long reservationId, String scope, long expiresAtMillis, long configVersion,
      List<Item> items) implements QuotaResult {
    public Reserved {
      items = List.copyOf(items);
    }

    /** {@code overage}: the billable part of {@code amount}, beyond a hard limit. */
    public record Item(String resource, long amount, long overage, String unit) {}

    public int code() {
      return 41;
    }
  }

  /**
   * How a reservation ended; {@code alreadySettled} when this request found it settled before
   * (then nothing new was emitted). {@code eventSequences}: the usage events of the settlement.
   */
  record ReservationSettled(long reservationId, EventType how, List<Long> quantities,
      List<Long> eventSequences, boolean alreadySettled) implements QuotaResult {
    public ReservationSettled {
      quantities = List.copyOf(quantities);
      eventSequences = List.copyOf(eventSequences);
    }

    public int code() {
      return 42;
    }
  }

  /** {@code duplicate}: the id was seen within the retention window; {@code sequence} is the first's. */
  record UsageIngested(long sequence, boolean duplicate) implements QuotaResult {
    public int code() {
      return 43;
    }
  }

  record UsageAcked(String consumer, long cursor) implements QuotaResult {
    public int code() {
      return 44;
    }
  }

  /** Drifts found; each reservation drift carries the compensating event that repaired it. */
  record Reconciled(List<Drift> drifts) implements QuotaResult {
    public Reconciled {
      drifts = List.copyOf(drifts);
    }

    public int code() {
      return 45;
    }
  }

  /**
   * A refusal. {@code levelScope}/{@code resource} name the level that refused (empty when the
   * refusal is not about a level); {@code retryAfterMillis} is 0 when no time is known (the
   * client then uses a bounded retry policy); {@code currentVersion} is the current catalog
   * version for STALE_CONFIG, else 0.
   */
  record QuotaRejected(Outcome outcome, String message, String levelScope, String resource,
      long retryAfterMillis, long currentVersion) implements QuotaResult {
    public int code() {
      return 46;
    }
  }
}
