package dev.ration.statemachine.query;

import dev.ration.wire.quota.Aggregate;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;
import java.util.List;
import java.util.Optional;

/** Answers to {@link QuotaQuery}. */
public sealed interface QuotaAnswer {
  /** An entry and its usage as of the read time (windows rolled). */
  record QuotaRow(QuotaSpec spec, LevelUsage usage) {}

  record QuotaFound(Optional<QuotaRow> quota) implements QuotaAnswer {}

  record QuotaList(List<QuotaRow> quotas) implements QuotaAnswer {}

  record History(List<QuotaSpec> versions) implements QuotaAnswer {}

  record AuditList(List<AuditRecord> records) implements QuotaAnswer {}

  record ReservationList(List<Reservation> reservations) implements QuotaAnswer {}

  record BudgetList(List<Budget> budgets) implements QuotaAnswer {}

  /** {@code cursor}: the consumer's acknowledged sequence; {@code lastSequence}: the log's end. */
  record UsageBatch(List<UsageEvent> events, long cursor, long lastSequence)
      implements QuotaAnswer {}

  /**
   * A read that asked for usage records compaction already removed: the consumer's cursor (or
   * the requested start, less one) is before {@code firstSequence - 1}. {@code message} says
   * which records are gone and how to go on.
   */
  record UsageCompacted(String consumer, long cursor, long firstSequence, String message)
      implements QuotaAnswer {}

  record AggregateList(List<Aggregate> buckets, long total) implements QuotaAnswer {}

  record ReconcileAnswer(List<Drift> drifts) implements QuotaAnswer {}

  /**
   * {@code firstSequence}: the usage log's first kept record (1 until retention removed some);
   * {@code budgets}: the budgets' figures by the depth of their scope path (org, tenant, project;
   * always three, depths 1..3).
   */
  record QuotaStatusAnswer(long catalogVersion, long reservations, long lastSequence,
      long alertsRaised, long nextReservationId, long firstSequence, List<BudgetFigures> budgets)
      implements QuotaAnswer {
    public QuotaStatusAnswer {
      budgets = List.copyOf(budgets);
    }
  }

  /**
   * The budgets whose scope path has {@code depth} levels (1 org, 2 tenant, 3 project): how many
   * are held and how many lapsed (their holders stopped renewing: cut off or gone), what they hold
   * granted and not reported spent, and what soft budgets were overdrawn by (spend reported past
   * the grant while their holders were cut off).
   */
  record BudgetFigures(int depth, long held, long lapsed, long unspent, long overdrawn) {}
}
