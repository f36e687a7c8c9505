package dev.ration.statemachine.quota;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudgets;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The quota ledger, as the replica sees it: a versioned catalog keyed by (scope path, resource),
 * atomic check-and-reserve at every level of a scope path, the reservation lifecycle with
 * exactly one usage event per settled item, the append-only usage log with event-id
 * deduplication, aggregates by event time, consumer cursors, reconciliation and an audit log.
 * This class only routes: each command, expiry record and query goes to the one collaborator
 * that owns it ({@link QuotaCatalog}, {@link Reservations}, {@link UsageLog},
 * {@link Reconciliation}, {@link AuditTrail}, {@link QuotaVerifier}), and the counters record
 * is written after every change.
 *
 * <p>Role: a pure function of (state, command, ledger now). Time is only the {@code nowMillis}
 * the replica passes (the batch's log time); catalog versions come from the replica's global
 * version counter; reservation ids, log sequences and audit sequences from counters in this
 * ledger's state ({@link QuotaCounters}). All state is in two store-only column families,
 * {@code quota} (catalog, history, usage per level, reservations, settlements, event-id
 * records, aggregates, consumer cursors, audit, counters; a tag byte starts each key, see
 * {@link QuotaKeys}) and {@code usage} (the append-only log keyed by sequence), read through
 * this entry's pending writes ({@link QuotaRecords}); only the counters are cached. Lifetimes
 * (reservation expiry, settlement and event-id retention) are records of the replica's shared
 * expiry index, kinds 5–7.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants (docs/INVARIANTS.md, Q1–Q8): checked incrementally where a command changes
 * them (Q1 admission never takes a level past its capacity, Q2 held never negative, Q8 what
 * retention removes) and all of them by {@link #verify()}; {@link #verifyAtSnapshot()} checks
 * the in-memory counters and retention bounds only. A violation throws {@link InvariantViolation}: the replica must
 * stop.
 */
public final class QuotaLedger implements Ledger {
  public static final String FAMILY_QUOTA = "quota";
  public static final String FAMILY_USAGE = "usage";

  public static final long MAX_AMOUNT = 1_000_000_000_000_000L;
  public static final int MAX_TEXT_BYTES = 512;
  public static final int MAX_REPAIRS = 1_000;
  /** Most rows a list query answers (quotas, versions, reservations): one reply frame's worth. */
  public static final int LIST_MAX = 1_000;

  private final ApplyContext context;
  private final QuotaCounters counters;
  private final AuditTrail audit;
  private final QuotaCatalog catalog;
  private final UsageLog usageLog;
  private final Reservations reservations;
  private final Budgets budgets;
  private final int maxScanRecords;
  private final Reconciliation reconciliation;
  private final QuotaVerifier verifier;
  private final Retention retention;

  public QuotaLedger(StateOptions stateOptions, ApplyContext context) {
    this.context = context;
    QuotaOptions options = stateOptions.quota();
    Arguments.NameBound names = new Arguments.NameBound(stateOptions.maxNameBytes());
    QuotaRecords records = new QuotaRecords(context);
    this.counters = new QuotaCounters(records);
    this.audit = new AuditTrail(options, records, counters);
    this.catalog = new QuotaCatalog(options, names, records, counters, audit, context::mintVersion);
    this.retention = new Retention(options, records, counters);
    this.usageLog = new UsageLog(options, names, records, counters, catalog, retention);
    BudgetTally tally = new BudgetTally(records);
    this.reservations = new Reservations(options, names, records, counters, catalog, usageLog, tally);
    this.budgets = new Budgets(names, records, counters, catalog, usageLog, tally);
    this.maxScanRecords = options.maxScanRecords();
    this.reconciliation =
        new Reconciliation(options, names, records, catalog, usageLog, reservations, audit,
            retention::firstSequence);
    this.verifier = new QuotaVerifier(options, records, counters, catalog, retention);
  }

  @Override
  public String name() {
    return "quota";
  }

  @Override
  public void load() {
    counters.load();
    retention.load();
  }

  /** Compacts the usage and audit logs past their retentions (log time), at most maxItems. */
  @Override
  public int housekeep(int maxItems) {
    return retention.compact(context.nowMillis(), maxItems);
  }

  @Override
  public long housekeepingDueMillis() {
    return retention.dueMillis();
  }

  @Override
  public void endEntry() {
    retention.refreshDue();
  }

  public long alertsRaised() {
    return counters.alertsRaised();
  }

  @Override
  public Class<QuotaCommand> commands() {
    return QuotaCommand.class;
  }

  @Override
  public Result apply(Command command) {
    return new Result.Quota(apply((QuotaCommand) command, context.nowMillis()));
  }

  /**
   * The tenant of reservation {@code id}: of its scope while it is outstanding, and with
   * {@code orSettled} of its settlement's scope while the settled answer is kept (so a retried
   * complete or cancel reaches its caller's own answer); nothing once both are gone.
   */
  @Override
  public Optional<String> tenantOfId(long id, boolean orSettled) {
    Optional<String> scope = reservations.reservation(id).map(r -> r.scope());
    if (scope.isEmpty()) {
      scope = budgets.budget(id).map(b -> b.scope());
    }
    if (scope.isEmpty() && orSettled) {
      scope = reservations.settlement(id).map(Settlement::scope);
    }
    return scope.map(dev.ration.wire.security.Tenants::ofPath);
  }

  @Override
  public boolean ownsExpiryKind(int kind) {
    return kind == QuotaKeys.EXPIRY_RESERVATION || kind == QuotaKeys.EXPIRY_SETTLEMENT
        || kind == QuotaKeys.EXPIRY_EVENT_ID || kind == QuotaKeys.EXPIRY_BUDGET;
  }

  @Override
  public Optional<QueryResult> query(Query query, long readNowMillis) {
    if (query instanceof Query.Quota q) {
      return Optional.of(new QueryResult.Quota(
          query(q.query(), Math.max(context.nowMillis(), readNowMillis))));
    }
    return Optional.empty();
  }

  /**
   * The one exhaustive dispatch over {@link QuotaCommand}: {@link QuotaCommand.Handler} has a
   * method per command, each handing it to the collaborator that owns it.
   */
  QuotaResult apply(QuotaCommand command, long nowMillis) {
    QuotaResult result = command.accept(new QuotaCommand.Handler<>() {
      @Override
      public QuotaResult setQuota(SetQuota c) {
        return catalog.set(c, nowMillis);
      }

      @Override
      public QuotaResult reserve(Reserve c) {
        return reservations.reserve(c, nowMillis);
      }

      @Override
      public QuotaResult complete(CompleteReservation c) {
        return reservations.complete(c, nowMillis);
      }

      @Override
      public QuotaResult cancel(CancelReservation c) {
        return reservations.cancel(c, nowMillis);
      }

      @Override
      public QuotaResult ingest(IngestUsage c) {
        return usageLog.ingest(c, nowMillis);
      }

      @Override
      public QuotaResult ack(AckUsage c) {
        return usageLog.ack(c);
      }

      @Override
      public QuotaResult reconcile(Reconcile c) {
        return reconciliation.reconcile(c, nowMillis);
      }

      @Override
      public QuotaResult grantBudget(GrantBudget c) {
        return budgets.grant(c, nowMillis);
      }

      @Override
      public QuotaResult reportBudget(ReportBudget c) {
        return budgets.report(c, nowMillis);
      }

      @Override
      public QuotaResult returnBudget(ReturnBudget c) {
        return budgets.giveBack(c, nowMillis);
      }

      @Override
      public QuotaResult reportBudgets(ReportBudgets c) {
        return budgets.reportAll(c, nowMillis);
      }

      @Override
      public QuotaResult reserveBatch(QuotaCommand.ReserveBatch c) {
        return reservations.reserveAll(c, nowMillis);
      }
    });
    writeMeta();
    return result;
  }

  private void writeMeta() {
    counters.write();
  }

  @Override
  public void mintSlottedIds() {
    counters.mintSlottedIds();
    writeMeta();
  }

  /**
   * Tick popped {@code due}: expire a reservation (one usage event per item), forget a settlement
   * or an event id past its retention — only if the record is still current.
   */
  @Override
  public boolean expire(ExpiryKey due) {
    long id = due.a();
    long now = context.nowMillis();
    boolean freed;
    if (due.kind() == QuotaKeys.EXPIRY_RESERVATION) {
      freed = reservations.expire(id, due.dueAtMillis(), now);
    } else if (due.kind() == QuotaKeys.EXPIRY_SETTLEMENT) {
      freed = reservations.forgetSettlement(id);
    } else if (due.kind() == QuotaKeys.EXPIRY_EVENT_ID) {
      freed = usageLog.forgetEventId(id);
    } else if (due.kind() == QuotaKeys.EXPIRY_BUDGET) {
      freed = budgets.expire(id, due.dueAtMillis(), now);
    } else {
      throw new InvariantViolation("I6 quota ledger handed expiry kind " + due.kind() + " " + due);
    }
    if (freed) {
      writeMeta();
    }
    return freed;
  }

  public QuotaAnswer query(QuotaQuery query, long readNowMillis) {
    if (query instanceof QuotaQuery.GetQuota q) {
      return catalog.find(q.scope(), q.resource(), readNowMillis);
    } else if (query instanceof QuotaQuery.ListQuotas q) {
      return catalog.list(q.scopePrefix(), readNowMillis);
    } else if (query instanceof QuotaQuery.QuotaHistory q) {
      return catalog.history(q.scope(), q.resource());
    } else if (query instanceof QuotaQuery.ReadAudit q) {
      return audit.read(q.fromSequence(), q.max());
    } else if (query instanceof QuotaQuery.ListReservations q) {
      return reservations.list(q.scopePrefix(), readNowMillis);
    } else if (query instanceof QuotaQuery.ListBudgets q) {
      return budgets.list(q.scopePrefix(), maxScanRecords);
    } else if (query instanceof QuotaQuery.ReadUsage q) {
      return usageLog.read(q.consumer(), q.fromSequence(), q.max());
    } else if (query instanceof QuotaQuery.AggregateUsage q) {
      return usageLog.aggregateUsage(q.scope(), q.resource(), q.fromMillis(), q.toMillis());
    } else if (query instanceof QuotaQuery.ReconcileReport q) {
      return reconciliation.report(q.scope(), q.resource(), q.fromMillis(), q.toMillis());
    } else if (query instanceof QuotaQuery.QuotaStatus) {
      return counters.status(retention.firstSequence(), budgets.figures(maxScanRecords));
    }
    throw new IllegalStateException("unhandled quota query " + query);
  }

  /**
   * Recomputes every quota invariant from the store (expensive: open, restore, snapshot install
   * and tests); see {@link QuotaVerifier#verify}.
   */
  @Override
  public void verify() {
    verifier.verify(context.nextVersion());
  }

  /**
   * Only what this ledger holds in memory, its counters and retention bounds (see {@link
   * QuotaVerifier#verifyInMemory}): every quota record is stored, and scanning the reservations,
   * levels and usage log under the snapshot's apply lock would stall every request. Stored
   * records are verified in full when a snapshot is opened.
   */
  @Override
  public void verifyAtSnapshot() {
    verifier.verifyInMemory(context.nextVersion());
  }

  /**
   * Q3: every outstanding reservation, every kept settlement and every remembered event id has
   * its record in the shared expiry index at its due time (so nothing outlives its lifetime).
   */
  @Override
  public void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {
    verifier.verifyStoredExpiries(walk);
  }
}
