package dev.ration.statemachine.result;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list16;
import static dev.ration.wire.shape.Fields.longs16;
import static dev.ration.wire.shape.Fields.str;
import static dev.ration.wire.shape.Fields.struct;

import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;
import java.util.List;

/**
 * Results of the quota ledger's commands. Codes 40–59 of the result format are theirs (see
 * {@link ResultCodec}); like every result they are replicated values, stored in the
 * idempotency record so a retry gets the first decision back byte for byte.
 */
public sealed interface QuotaResult {
  int code();

  record QuotaSet(QuotaSpec spec) implements QuotaResult {
    public static final int CODE = 40;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<QuotaSet> SHAPE =
        Shape.of(
            QuotaSet.class,
            struct("spec", QuotaSet::spec, QuotaSpec.SHAPE));

    public int code() {
      return CODE;
    }
  }

  /** A reservation made at every level; {@code configVersion} is the version it was checked at. */
  record Reserved(long reservationId, String scope, long expiresAtMillis, long configVersion,
      List<Item> items) implements QuotaResult {
    public static final int CODE = 41;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<Reserved> SHAPE =
        Shape.of(
            Reserved.class,
            i64("reservationId", Reserved::reservationId),
            str("scope", Reserved::scope),
            i64("expiresAtMillis", Reserved::expiresAtMillis),
            i64("configVersion", Reserved::configVersion),
            list16("items", Reserved::items, Item.SHAPE));

    public Reserved {
      items = List.copyOf(items);
    }

    /** {@code overage}: the billable part of {@code amount}, beyond a hard limit. */
    public record Item(String resource, long amount, long overage, String unit) {
      /** Its stored fields. */
      public static final Shape<Item> SHAPE =
          Shape.of(
              Item.class,
              str("resource", Item::resource),
              i64("amount", Item::amount),
              i64("overage", Item::overage),
              str("unit", Item::unit));
    }

    public int code() {
      return CODE;
    }
  }

  /**
   * How a reservation ended; {@code alreadySettled} when this request found it settled before
   * (then nothing new was emitted). {@code eventSequences}: the usage events of the settlement.
   */
  record ReservationSettled(long reservationId, EventType how, List<Long> quantities,
      List<Long> eventSequences, boolean alreadySettled) implements QuotaResult {
    public static final int CODE = 42;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<ReservationSettled> SHAPE =
        Shape.of(
            ReservationSettled.class,
            i64("reservationId", ReservationSettled::reservationId),
            Fields.code("how", ReservationSettled::how, EventType::fromCode, EventType::code),
            longs16("quantities", ReservationSettled::quantities),
            longs16("eventSequences", ReservationSettled::eventSequences),
            bool("alreadySettled", ReservationSettled::alreadySettled));

    public ReservationSettled {
      quantities = List.copyOf(quantities);
      eventSequences = List.copyOf(eventSequences);
    }

    public int code() {
      return CODE;
    }
  }

  /** {@code duplicate}: the id was seen within the retention window; {@code sequence} is the first's. */
  record UsageIngested(long sequence, boolean duplicate) implements QuotaResult {
    public static final int CODE = 43;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<UsageIngested> SHAPE =
        Shape.of(
            UsageIngested.class,
            i64("sequence", UsageIngested::sequence),
            bool("duplicate", UsageIngested::duplicate));

    public int code() {
      return CODE;
    }
  }

  record UsageAcked(String consumer, long cursor) implements QuotaResult {
    public static final int CODE = 44;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<UsageAcked> SHAPE =
        Shape.of(
            UsageAcked.class,
            str("consumer", UsageAcked::consumer),
            i64("cursor", UsageAcked::cursor));

    public int code() {
      return CODE;
    }
  }

  /** Drifts found; each reservation drift carries the compensating event that repaired it. */
  record Reconciled(List<Drift> drifts) implements QuotaResult {
    public static final int CODE = 45;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<Reconciled> SHAPE =
        Shape.of(
            Reconciled.class,
            list16("drifts", Reconciled::drifts, Drift.SHAPE));

    public Reconciled {
      drifts = List.copyOf(drifts);
    }

    public int code() {
      return CODE;
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
    public static final int CODE = 46;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<QuotaRejected> SHAPE =
        Shape.of(
            QuotaRejected.class,
            Fields.code("outcome", QuotaRejected::outcome, Outcome::fromCode, Outcome::code),
            str("message", QuotaRejected::message),
            str("levelScope", QuotaRejected::levelScope),
            str("resource", QuotaRejected::resource),
            i64("retryAfterMillis", QuotaRejected::retryAfterMillis),
            i64("currentVersion", QuotaRejected::currentVersion));

    public int code() {
      return CODE;
    }
  }

  /**
   * A budget granted: {@code granted} (at most what was asked) is counted at every level until
   * {@code expiresAtMillis}; {@code windowEndMillis} is when its earliest window ends;
   * {@code atMillis} the ledger time of the grant (the holder measures its lease from it);
   * {@code overdraft} how much more the holder may admit from it in all while it cannot reach the
   * ledger (0 unless every level is a soft, OVERDRAFT quota), reported and billed as overage.
   */
  record BudgetGranted(long budgetId, String scope, String resource, long granted,
      long expiresAtMillis, long windowEndMillis, long configVersion, long atMillis,
      long overdraft)
      implements QuotaResult {
    public static final int CODE = 47;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<BudgetGranted> SHAPE =
        Shape.of(
            BudgetGranted.class,
            i64("budgetId", BudgetGranted::budgetId),
            str("scope", BudgetGranted::scope),
            str("resource", BudgetGranted::resource),
            i64("granted", BudgetGranted::granted),
            i64("expiresAtMillis", BudgetGranted::expiresAtMillis),
            i64("windowEndMillis", BudgetGranted::windowEndMillis),
            i64("configVersion", BudgetGranted::configVersion),
            i64("atMillis", BudgetGranted::atMillis),
            i64("overdraft", BudgetGranted::overdraft));

    public int code() {
      return CODE;
    }
  }

  /**
   * A report counted (or found resent: {@code resent}, nothing changed) and the budget as it
   * stands: {@code granted} after any resize, {@code spent} as counted, {@code expiresAtMillis}
   * after any renewal. {@code ended}: it admits nothing more (its lease lapsed or its window
   * ended); the holder stops and returns it. {@code eventSequence}: the usage event of this
   * report's spend, 0 when it spent nothing new. {@code atMillis}: the ledger time of the
   * answer.
   */
  record BudgetReported(long budgetId, long granted, long spent, long expiresAtMillis,
      long windowEndMillis, boolean ended, boolean resent, long eventSequence, long atMillis)
      implements QuotaResult {
    public static final int CODE = 48;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<BudgetReported> SHAPE =
        Shape.of(
            BudgetReported.class,
            i64("budgetId", BudgetReported::budgetId),
            i64("granted", BudgetReported::granted),
            i64("spent", BudgetReported::spent),
            i64("expiresAtMillis", BudgetReported::expiresAtMillis),
            i64("windowEndMillis", BudgetReported::windowEndMillis),
            bool("ended", BudgetReported::ended),
            bool("resent", BudgetReported::resent),
            i64("eventSequence", BudgetReported::eventSequence),
            i64("atMillis", BudgetReported::atMillis));

    public int code() {
      return CODE;
    }
  }

  /**
   * A budget returned: {@code spent} was its final spend, {@code released} the unspent amount
   * given back to levels still in the window it was charged in. {@code eventSequence}: the usage
   * event of the spend not reported before, 0 when there was none.
   */
  record BudgetReturned(long budgetId, long spent, long released, long eventSequence)
      implements QuotaResult {
    public static final int CODE = 49;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<BudgetReturned> SHAPE =
        Shape.of(
            BudgetReturned.class,
            i64("budgetId", BudgetReturned::budgetId),
            i64("spent", BudgetReturned::spent),
            i64("released", BudgetReturned::released),
            i64("eventSequence", BudgetReturned::eventSequence));

    public int code() {
      return CODE;
    }
  }

  /** The answers to {@code ReportBudgets}, one per report, in its order. */
  record BudgetsReported(List<BudgetReport> reports) implements QuotaResult {
    public static final int CODE = 50;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<BudgetsReported> SHAPE =
        Shape.of(BudgetsReported.class,
            list16("reports", BudgetsReported::reports, BudgetReport.SHAPE));

    public BudgetsReported {
      reports = List.copyOf(reports);
    }

    public int code() {
      return CODE;
    }
  }

  /** The answers to {@code ReserveBatch}, one per reservation, in its order. */
  record ReservedBatch(List<ReserveAnswer> answers) implements QuotaResult {
    public static final int CODE = 51;

    /** Its stored fields, in this order after the result code. */
    public static final Shape<ReservedBatch> SHAPE =
        Shape.of(ReservedBatch.class,
            list16("answers", ReservedBatch::answers, ReserveAnswer.SHAPE));

    public ReservedBatch {
      answers = List.copyOf(answers);
    }

    public int code() {
      return CODE;
    }
  }

  /**
   * One reservation's answer inside {@link ReservedBatch}: the reservation, or the refusal (of
   * the level that had no room, or of a bad argument), never both.
   */
  record ReserveAnswer(Reserved reserved, QuotaRejected refused) {
    public static final Shape<ReserveAnswer> SHAPE =
        Shape.of(
            ReserveAnswer.class,
            Fields.optional("reserved", ReserveAnswer::reserved, Reserved.SHAPE),
            Fields.optional("refused", ReserveAnswer::refused, QuotaRejected.SHAPE));

    public ReserveAnswer {
      if ((reserved == null) == (refused == null)) {
        throw new IllegalArgumentException("a reservation's answer is the reservation or the "
            + "refusal, exactly one");
      }
    }
  }

  /**
   * One report's answer inside {@link BudgetsReported}: SUCCESS with the budget as it stands, or
   * a refusal's outcome and message with none.
   */
  record BudgetReport(Outcome outcome, String message, BudgetReported budget) {
    public static final Shape<BudgetReport> SHAPE =
        Shape.of(
            BudgetReport.class,
            Fields.code("outcome", BudgetReport::outcome, Outcome::fromCode, Outcome::code),
            str("message", BudgetReport::message),
            Fields.optional("budget", BudgetReport::budget, BudgetReported.SHAPE));

    public BudgetReport {
      if ((outcome == Outcome.SUCCESS) != (budget != null)) {
        throw new IllegalArgumentException(
            "a report's answer carries the budget exactly when it succeeded: " + outcome);
      }
    }
  }
}
