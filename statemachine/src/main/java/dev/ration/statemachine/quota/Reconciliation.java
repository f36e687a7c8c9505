package dev.ration.statemachine.quota;

import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.quota.Aggregate;

import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.QuotaSpec;

import static dev.ration.statemachine.quota.Arguments.firstProblem;
import static dev.ration.statemachine.quota.Arguments.invalid;
import static dev.ration.statemachine.quota.Arguments.text;

import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.query.Budget;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.EventType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reconciliation of a scope over a period: finds settled reservations whose usage events do
 * not add up to the settled quantities, budgets (held, or lapsed and still kept) whose usage
 * events do not add up to the spend their holders reported, and hour aggregates that are not the
 * sum of the log's usage events in them. The report is a read; the command also repairs reservation drifts with
 * compensating events (never by rewriting the log) and audits what it did.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: the usage log is only appended to (Q4): a repair is a new COMPENSATION event
 * dated at the settlement, so it lands in the same billing period; at most
 * {@link QuotaLedger#MAX_REPAIRS} repairs per command, so one command's entry stays bounded.
 */
final class Reconciliation {
  private final QuotaOptions options;
  private final Arguments.NameBound names;
  private final QuotaRecords records;
  private final QuotaCatalog catalog;
  private final UsageLog usageLog;
  private final Reservations reservations;
  private final AuditTrail audit;

  private final java.util.function.LongSupplier firstSequence;

  Reconciliation(QuotaOptions options, Arguments.NameBound names, QuotaRecords records, QuotaCatalog catalog,
      UsageLog usageLog, Reservations reservations, AuditTrail audit,
      java.util.function.LongSupplier firstSequence) {
    this.firstSequence = firstSequence;
    this.names = names;
    this.options = options;
    this.records = records;
    this.catalog = catalog;
    this.usageLog = usageLog;
    this.reservations = reservations;
    this.audit = audit;
  }

  QuotaResult reconcile(Reconcile c, long now) {
    Optional<String> bad = problem(c.scope(), c.resource(), c.fromMillis(), c.toMillis());
    if (bad.isEmpty()) {
      bad = firstProblem(text("actor", c.actor()), text("reason", c.reason()));
    }
    if (bad.isPresent()) {
      return invalid(bad.get());
    }
    List<Drift> found = drifts(c.scope(), c.resource(), c.fromMillis(), c.toMillis());
    List<Drift> out = new ArrayList<>(found.size());
    int repaired = 0;
    for (Drift d : found) {
      if (d.kind().equals(Drift.AGGREGATE) || repaired >= QuotaLedger.MAX_REPAIRS) {
        out.add(d);
        continue;
      }
      // The compensation is dated at the settlement (a budget's: in its windows), so it lands
      // in the same period.
      long settledAt = d.kind().equals(Drift.BUDGET)
          ? budgetEventTime(d.reservationId()).orElse(now)
          : reservations.settlement(d.reservationId()).map(Settlement::settledAtMillis).orElse(now);
      long seq = usageLog.nextSequence();
      String unit = unitOf(d.scope(), d.resource());
      usageLog.append(new UsageEvent(seq, "comp:" + seq, EventType.COMPENSATION, settledAt, now,
          d.scope(), d.resource(), d.expected() - d.recorded(), unit, d.reservationId(), 0));
      out.add(new Drift(d.kind(), d.scope(), d.resource(), d.reservationId(), d.bucketStartMillis(),
          d.expected(), d.recorded(), seq));
      repaired++;
    }
    audit.append(now, c.actor(), "usage.reconcile", c.scope(), c.resource(), 0, c.reason(),
        found.size() + " drifts found, " + repaired + " repaired with compensating events, period ["
            + c.fromMillis() + ", " + c.toMillis() + ")");
    return new QuotaResult.Reconciled(out);
  }

  /** The drifts alone, changing nothing; a bad argument throws IllegalArgumentException. */
  QuotaAnswer.ReconcileAnswer report(String scope, String resource, long from, long to) {
    Optional<String> bad = problem(scope, resource, from, to);
    if (bad.isPresent()) {
      throw new IllegalArgumentException(bad.get());
    }
    return new QuotaAnswer.ReconcileAnswer(drifts(scope, resource, from, to));
  }

  /** The event time of a kept budget's spend, inside every window it was charged in. */
  private Optional<Long> budgetEventTime(long budgetId) {
    return records.get(QuotaRecords.Q, QuotaKeys.budget(budgetId))
        .map(v -> QuotaFormat.read(v, "budget " + budgetId, Budget.SHAPE::read))
        .filter(b -> !b.slots()) // slots bill at the report's time: the compensation at now
        .map(Budget::eventTimeMillis);
  }

  /** The unit of the deepest level of {@code scope} with an entry for {@code resource}. */
  private String unitOf(String scope, String resource) {
    String unit = "";
    for (String level : Scope.levels(scope)) {
      Optional<QuotaSpec> s = catalog.spec(level, resource);
      if (s.isPresent()) {
        unit = s.get().unit();
      }
    }
    return unit;
  }

  private Optional<String> problem(String scope, String resource, long from, long to) {
    return firstProblem(Scope.problem(scope),
        resource.isEmpty() ? Optional.empty() : names.check("resource", resource),
        from >= to ? Optional.of("period [" + from + ", " + to + ") is empty") : Optional.empty());
  }

  /**
   * Reservations settled in [from, to) at exactly {@code scope} whose usage events do not add up
   * to the settled quantity, and hour buckets of (scope, resource) whose stored aggregate is not
   * the sum of the log's usage events in them.
   */
  private List<Drift> drifts(String scope, String resource, long from, long to) {
    List<Drift> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e :
        records.scanTag(QuotaKeys.SETTLED, options.maxScanRecords())) {
      Settlement s = QuotaFormat.read(e.getValue(), "settlement", QuotaFormat::readSettlement);
      if (!s.scope().equals(scope) || s.settledAtMillis() < from || s.settledAtMillis() >= to) {
        continue;
      }
      Map<String, Long> recorded = new HashMap<>();
      for (UsageEvent event : usageLog.eventsOf(s.reservationId())) {
        if (event.type().isUsage()) {
          recorded.merge(event.resource(), event.quantity(), Long::sum);
        }
      }
      for (int i = 0; i < s.resources().size(); i++) {
        String res = s.resources().get(i);
        if (!resource.isEmpty() && !resource.equals(res)) {
          continue;
        }
        long expected = s.quantities().get(i);
        long got = recorded.getOrDefault(res, 0L);
        if (expected != got) {
          out.add(new Drift(Drift.RESERVATION, scope, res, s.reservationId(), 0, expected, got, 0));
        }
      }
    }
    // Aggregates: recompute every bucket in range from the log (bounded scan).
    TreeMap<String, Long> fromLog = new TreeMap<>();
    long firstBucket = Aggregate.bucketOf(from);
    for (UsageEvent event : usageLog.events(1, options.maxScanRecords())) {
      if (!event.type().isUsage() || (!resource.isEmpty() && !resource.equals(event.resource()))
          || !Scope.levels(event.scope()).contains(scope)) {
        continue;
      }
      long bucket = Aggregate.bucketOf(event.eventTimeMillis());
      if (bucket >= firstBucket && bucket < to) {
        fromLog.merge(event.resource() + "\n" + bucket, event.quantity(), Long::sum);
      }
    }
    // Events recorded before the first one retention kept may be gone.
    long first = firstSequence.getAsLong();
    long horizon = first <= 1 ? Long.MIN_VALUE
        : usageLog.event(first).map(UsageEvent::recordedAtMillis).orElse(Long.MAX_VALUE);
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET, options.maxScanRecords())) {
      Budget b = QuotaFormat.read(e.getValue(), "budget", Budget.SHAPE::read);
      if (!b.scope().equals(scope) || (!resource.isEmpty() && !resource.equals(b.resource()))
          || b.grantedAtMillis() < from || b.grantedAtMillis() >= to) {
        continue;
      }
      if (b.grantedAtMillis() < horizon) {
        continue; // retention may have removed some of its events: nothing to compare against
      }
      // Its spend events and any other usage recorded against its id, through the log's index.
      long got = 0;
      for (UsageEvent event : usageLog.eventsOf(b.budgetId())) {
        if (event.type().isUsage()) {
          got += event.quantity();
        }
      }
      if (got != b.spent()) {
        out.add(new Drift(Drift.BUDGET, scope, b.resource(), b.budgetId(), 0, b.spent(), got, 0));
      }
    }
    TreeMap<String, Long> stored = new TreeMap<>();
    for (Aggregate a : usageLog.aggregates(scope, resource, from, to)) {
      stored.put(a.resource() + "\n" + a.bucketStartMillis(), a.quantity());
    }
    Set<String> keys = new TreeSet<>(fromLog.keySet());
    keys.addAll(stored.keySet());
    for (String k : keys) {
      long expected = fromLog.getOrDefault(k, 0L);
      long got = stored.getOrDefault(k, 0L);
      if (expected != got) {
        String[] parts = k.split("\n");
        out.add(new Drift(Drift.AGGREGATE, scope, parts[0], 0, Long.parseLong(parts[1]),
            expected, got, 0));
      }
    }
    return out;
  }
}
