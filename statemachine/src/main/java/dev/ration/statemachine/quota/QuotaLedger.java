package dev.ration.statemachine.quota;

import dev.ration.wire.EventType;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.command.AckUsage;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.CancelReservation;
import dev.ration.statemachine.command.CompleteReservation;
import dev.ration.statemachine.command.IngestUsage;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.Reconcile;
import dev.ration.statemachine.command.Reserve;
import dev.ration.statemachine.command.SetQuota;
import dev.ration.statemachine.lease.ExpiryKey;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.ByteReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The quota ledger (DESIGN §4): a versioned catalog keyed by (scope path, resource), atomic
 * check-and-reserve at every level of a scope path, the reservation lifecycle with exactly one
 * usage event per settled item, the append-only usage log with event-id deduplication,
 * aggregates by event time, consumer cursors, reconciliation and an audit log.
 *
 * <p>Role: a pure function of (state, command, ledger now). Time is only the {@code nowMillis}
 * the replica passes (the batch's log time); reservation ids, log sequences, catalog versions
 * come from the replica's global version counter; reservation ids, log sequences and audit
 * sequences from counters in this ledger's state. All state is in two store-only column
 * families, {@code quota} (catalog, history, usage per level, reservations, settlements,
 * event-id records, aggregates, consumer cursors, audit, counters; a tag byte starts each key)
 * and {@code usage} (the append-only log keyed by sequence), read through this entry's
 * pending writes; only the counters are cached. Lifetimes (reservation expiry, settlement and
 * event-id retention) are records of the replica's shared expiry index, kinds 5–7.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants (docs/INVARIANTS.md, Q1–Q7): checked incrementally where a command changes
 * them (Q1 admission never takes a level past its capacity, Q2 held never negative) and all of
 * them by {@link #verify()}. A violation throws {@link InvariantViolation}: the replica must
 * stop.
 */
public final class QuotaLedger implements Ledger {
  public static final String FAMILY_QUOTA = "quota";
  public static final String FAMILY_USAGE = "usage";

  public static final long MAX_AMOUNT = 1_000_000_000_000_000L;
  public static final int MAX_NAME_BYTES = 128;
  public static final int MAX_TEXT_BYTES = 512;
  public static final int MAX_REPAIRS = 1_000;
  /** Most rows a list query answers (quotas, versions, reservations): one reply frame's worth. */
  public static final int LIST_MAX = 1_000;

  private static final String Q = QuotaRecords.Q;
  private static final String LOG = QuotaRecords.LOG;

  private final QuotaOptions options;
  private final ApplyContext context;
  private final QuotaRecords records;
  private final QuotaCounters counters;

  public QuotaLedger(QuotaOptions options, ApplyContext context) {
    this.options = options;
    this.context = context;
    this.records = new QuotaRecords(context);
    this.counters = new QuotaCounters(records);
  }

  @Override
  public String name() {
    return "quota";
  }

  @Override
  public void load() {
    counters.load();
  }

  public long alertsRaised() {
    return counters.alertsRaised();
  }

  // ================================================================ apply

  @Override
  public boolean owns(Command command) {
    return command instanceof QuotaCommand;
  }

  @Override
  public Result apply(Command command) {
    return new Result.Quota(apply((QuotaCommand) command, context.nowMillis()));
  }

  @Override
  public boolean ownsExpiryKind(int kind) {
    return kind == QuotaKeys.EXPIRY_RESERVATION || kind == QuotaKeys.EXPIRY_SETTLEMENT || kind == QuotaKeys.EXPIRY_EVENT_ID;
  }

  @Override
  public Optional<QueryResult> query(Query query, long readNowMillis) {
    if (query instanceof Query.Quota q) {
      return Optional.of(new QueryResult.Quota(
          query(q.query(), Math.max(context.nowMillis(), readNowMillis))));
    }
    return Optional.empty();
  }

  /** The one exhaustive dispatch over {@link QuotaCommand}. */
  QuotaResult apply(QuotaCommand command, long nowMillis) {
    QuotaResult result;
    if (command instanceof SetQuota c) {
      result = setQuota(c, nowMillis);
    } else if (command instanceof Reserve c) {
      result = reserve(c, nowMillis);
    } else if (command instanceof CompleteReservation c) {
      result = complete(c, nowMillis);
    } else if (command instanceof CancelReservation c) {
      result = cancel(c, nowMillis);
    } else if (command instanceof IngestUsage c) {
      result = ingest(c, nowMillis);
    } else if (command instanceof AckUsage c) {
      result = ack(c);
    } else if (command instanceof Reconcile c) {
      result = reconcile(c, nowMillis);
    } else {
      throw new IllegalStateException("unhandled quota command " + command);
    }
    writeMeta();
    return result;
  }

  /**
   * Tick popped {@code due}: expire a reservation (one usage event per item), forget a settlement
   * or an event id past its retention — only if the record is still current.
   */
  @Override
  public boolean expire(ExpiryKey due) {
    long id = due.a();
    long now = context.nowMillis();
    boolean freed = false;
    if (due.kind() == QuotaKeys.EXPIRY_RESERVATION) {
      Optional<Reservation> r = reservation(id);
      if (r.isPresent() && r.get().expiresAtMillis() == due.dueAtMillis()) {
        List<Long> amounts = r.get().items().stream().map(ReservationItem::amount).toList();
        settle(r.get(), EventType.EXPIRED, amounts, now);
        freed = true;
      }
    } else if (due.kind() == QuotaKeys.EXPIRY_SETTLEMENT) {
      Optional<Settlement> s = settlement(id);
      if (s.isPresent()
          && s.get().settledAtMillis() + options.settledRetentionMillis() == due.dueAtMillis()) {
        records.delete(Q, QuotaKeys.settlement(id));
        freed = true;
      }
    } else if (due.kind() == QuotaKeys.EXPIRY_EVENT_ID) {
      Optional<UsageEvent> event = event(id);
      if (event.isPresent()) {
        byte[] idKey = QuotaKeys.eventId(event.get().eventId());
        Optional<byte[]> rec = records.get(Q, idKey);
        if (rec.isPresent() && readEventIdRecord(rec.get())[0] == id) {
          records.delete(Q, idKey);
          freed = true;
        }
      }
    } else {
      throw new InvariantViolation("I6 quota ledger handed expiry kind " + due.kind() + " " + due);
    }
    if (freed) {
      writeMeta();
    }
    return freed;
  }

  // ---------------------------------------------------------------- catalog

  private QuotaResult setQuota(SetQuota c, long now) {
    Optional<String> bad = Arguments.firstProblem(
        Scope.problem(c.scope()),
        Arguments.name("resource", c.resource()),
        Arguments.name("unit", c.unit()),
        Arguments.text("actor", c.actor()),
        Arguments.text("reason", c.reason()),
        Arguments.amount("limit", c.limit(), 0),
        c.softLimit() < 0 || c.softLimit() > c.limit()
            ? Optional.of("softLimit " + c.softLimit() + " outside [0, limit " + c.limit() + "]")
            : Optional.empty(),
        c.expectedVersion() < 0
            ? Optional.of("expectedVersion " + c.expectedVersion() + " < 0") : Optional.empty(),
        windowProblem(c.kind(), c.window()),
        c.overage() == Overage.REJECT && c.overageMax() != 0
            ? Optional.of("overageMax " + c.overageMax() + " with overage policy REJECT; must be 0")
            : Optional.empty(),
        c.overage() == Overage.ALLOW ? Arguments.amount("overageMax", c.overageMax(), 1) : Optional.empty(),
        c.kind() != QuotaKind.CUMULATIVE && c.periodStartMillis() != 0
            ? Optional.of("periodStartMillis " + c.periodStartMillis() + " is only for cumulative")
            : c.periodStartMillis() < 0
                ? Optional.of("periodStartMillis " + c.periodStartMillis() + " < 0")
                : Optional.empty());
    if (bad.isPresent()) {
      return Arguments.invalid(bad.get());
    }
    Optional<QuotaSpec> existing = spec(c.scope(), c.resource());
    long current = existing.map(QuotaSpec::version).orElse(0L);
    if (c.expectedVersion() != 0 && c.expectedVersion() != current) {
      return new QuotaResult.QuotaRejected(Outcome.STALE_CONFIG,
          "quota " + c.scope() + " " + c.resource() + " is at version " + current
              + ", request expected " + c.expectedVersion(),
          c.scope(), c.resource(), 0, current);
    }
    if (existing.isPresent() && existing.get().kind() != c.kind()) {
      return Arguments.invalid("quota " + c.scope() + " " + c.resource() + " is " + existing.get().kind()
          + "; the kind of an entry never changes (requested " + c.kind() + ")");
    }
    counters.catalogVersion(context.mintVersion());
    long catalogVersion = counters.catalogVersion();
    QuotaSpec spec = new QuotaSpec(c.scope(), c.resource(), c.kind(), c.window(), c.limit(),
        c.unit(), c.softLimit(), c.overage(), c.overageMax(), c.periodStartMillis(),
        catalogVersion, c.actor(), now, c.reason());
    byte[] value = QuotaFormat.stored(out -> QuotaFormat.writeSpec(out, spec));
    records.put(Q, QuotaKeys.catalog(c.scope(), c.resource()), value);
    records.put(Q, QuotaKeys.history(c.scope(), c.resource(), spec.version()), value);
    String detail = existing.map(old -> "limit " + old.limit() + " -> " + spec.limit()
            + ", soft " + old.softLimit() + " -> " + spec.softLimit()
            + ", overage " + old.overage() + "/" + old.overageMax() + " -> " + spec.overage()
            + "/" + spec.overageMax() + ", version " + old.version() + " -> " + spec.version())
        .orElse("created " + spec.kind() + " " + spec.window() + " limit " + spec.limit() + " "
            + spec.unit() + ", version " + spec.version());
    audit(now, c.actor(), "quota.set", c.scope(), c.resource(), spec.version(), c.reason(), detail);
    return new QuotaResult.QuotaSet(spec);
  }

  private static Optional<String> windowProblem(QuotaKind kind, Window window) {
    boolean ok = switch (kind) {
      case RATE -> window.code() >= Window.SECOND.code() && window.code() <= Window.DAY.code();
      case CUMULATIVE -> window.code() >= Window.HOUR.code() && window.code() <= Window.MONTH.code();
      case CONCURRENT, ALLOCATION -> window == Window.NONE;
    };
    return ok ? Optional.empty() : Optional.of("window " + window + " does not fit kind " + kind
        + " (rate: SECOND..DAY, cumulative: HOUR..MONTH, concurrent/allocation: NONE)");
  }

  // ---------------------------------------------------------------- reserve

  /** One level that counts an item: its entry and its usage rolled to now. */
  private record Level(QuotaSpec spec, LevelUsage usage) {}

  private QuotaResult reserve(Reserve c, long now) {
    Optional<String> bad = Arguments.firstProblem(
        Scope.problem(c.scope()),
        c.items().isEmpty() || c.items().size() > options.maxItemsPerReservation()
            ? Optional.of(c.items().size() + " items; a reservation names 1.."
                + options.maxItemsPerReservation() + " resources")
            : Optional.empty(),
        c.configVersion() < 0
            ? Optional.of("configVersion " + c.configVersion() + " < 0") : Optional.empty(),
        c.ttlMillis() < QuotaOptions.MIN_RESERVATION_TTL_MILLIS
                || c.ttlMillis() > options.maxReservationTtlMillis()
            ? Optional.of("ttlMillis " + c.ttlMillis() + " outside ["
                + QuotaOptions.MIN_RESERVATION_TTL_MILLIS + ", "
                + options.maxReservationTtlMillis() + "]")
            : Optional.empty());
    if (bad.isPresent()) {
      return Arguments.invalid(bad.get());
    }
    Set<String> seen = new HashSet<>();
    for (Reserve.Item item : c.items()) {
      Optional<String> p = Arguments.firstProblem(Arguments.name("resource", item.resource()),
          Arguments.amount("amount of " + item.resource(), item.amount(), 1));
      if (p.isPresent()) {
        return Arguments.invalid(p.get());
      }
      if (!seen.add(item.resource())) {
        return Arguments.invalid("resource " + item.resource() + " named twice in one reservation");
      }
    }
    List<String> scopes = Scope.levels(c.scope());
    List<List<Level>> levels = new ArrayList<>(c.items().size());
    long current = 0;
    for (Reserve.Item item : c.items()) {
      List<Level> itemLevels = new ArrayList<>(scopes.size());
      for (String level : scopes) {
        Optional<QuotaSpec> spec = spec(level, item.resource());
        if (spec.isPresent()) {
          itemLevels.add(new Level(spec.get(), usage(level, item.resource()).rolled(spec.get(), now)));
          current = Math.max(current, spec.get().version());
        }
      }
      if (itemLevels.isEmpty()) {
        return new QuotaResult.QuotaRejected(Outcome.LIMIT_UNKNOWN,
            "no quota for resource " + item.resource() + " at any level of " + c.scope(),
            "", item.resource(), 0, 0);
      }
      levels.add(itemLevels);
    }
    if (c.configVersion() != 0 && c.configVersion() != current) {
      return new QuotaResult.QuotaRejected(Outcome.STALE_CONFIG,
          "catalog version for " + c.scope() + " is " + current + ", request checked against "
              + c.configVersion(),
          "", "", 0, current);
    }
    // Check every level of every item before changing anything: all or nothing.
    for (int i = 0; i < c.items().size(); i++) {
      long amount = c.items().get(i).amount();
      for (Level level : levels.get(i)) {
        QuotaSpec spec = level.spec();
        long used = level.usage().used(spec.kind());
        if (used + amount > spec.capacity()) {
          return refusal(spec, used, amount, now);
        }
      }
    }
    long id = counters.takeReservationId();
    long expiresAt = now + c.ttlMillis();
    List<ReservationItem> items = new ArrayList<>(c.items().size());
    List<QuotaResult.Reserved.Item> reservedItems = new ArrayList<>(c.items().size());
    for (int i = 0; i < c.items().size(); i++) {
      Reserve.Item item = c.items().get(i);
      long overage = 0;
      List<LevelCharge> charges = new ArrayList<>();
      String unit = "";
      for (Level level : levels.get(i)) {
        QuotaSpec spec = level.spec();
        LevelUsage before = level.usage();
        LevelUsage after = before.with(
            before.windowUsed() + (spec.kind().windowed() ? item.amount() : 0),
            before.held() + item.amount(), before.allocated(), before.alerted());
        long usedBefore = before.used(spec.kind());
        long usedAfter = after.used(spec.kind());
        if (usedAfter > spec.capacity()) {
          throw new InvariantViolation("Q1 reservation " + id + " takes " + spec.scope() + " "
              + spec.resource() + " to " + usedAfter + " > capacity " + spec.capacity()
              + " (limit " + spec.limit() + " overageMax " + spec.overageMax() + ")");
        }
        overage = Math.max(overage,
            Math.max(0, usedAfter - spec.limit()) - Math.max(0, usedBefore - spec.limit()));
        after = maybeAlert(spec, usedBefore, after, now);
        putUsage(after);
        charges.add(new LevelCharge(spec.scope(), spec.kind().windowed() ? after.windowStartMillis() : 0));
        unit = spec.unit();
      }
      items.add(new ReservationItem(item.resource(), item.amount(), overage, unit, charges));
      reservedItems.add(new QuotaResult.Reserved.Item(item.resource(), item.amount(), overage, unit));
    }
    Reservation r = new Reservation(id, c.scope(), items, current, now, expiresAt);
    records.put(Q, QuotaKeys.reservation(id),
        QuotaFormat.stored(out -> QuotaFormat.writeReservation(out, r)));
    records.putExpiry(QuotaKeys.reservationEnd(expiresAt, id));
    counters.reservationOpened();
    return new QuotaResult.Reserved(id, c.scope(), expiresAt, current, reservedItems);
  }

  private QuotaResult refusal(QuotaSpec spec, long used, long amount, long now) {
    long retryAfter = 0;
    String when;
    if (amount > spec.capacity()) {
      when = "; the amount exceeds the level's capacity and will never fit";
    } else if (spec.kind().windowed()) {
      long start = spec.windowStart(now);
      retryAfter = Math.max(1, spec.window().endOf(start) - now);
      when = "; the " + (spec.kind() == QuotaKind.RATE ? "window" : "billing period")
          + " rolls over in " + retryAfter + " ms";
    } else {
      when = "; capacity frees when reservations settle (no time known)";
    }
    return new QuotaResult.QuotaRejected(Outcome.LIMIT_EXHAUSTED,
        "quota " + spec.scope() + " " + spec.resource() + " (" + spec.kind() + ") refused: used "
            + used + " + " + amount + " > limit " + spec.limit()
            + (spec.overage() == Overage.ALLOW ? " + overage " + spec.overageMax() : "") + when,
        spec.scope(), spec.resource(), retryAfter, 0);
  }

  /** A soft threshold crossed upward raises one ALERT record, once per window or crossing. */
  private LevelUsage maybeAlert(QuotaSpec spec, long usedBefore, LevelUsage after, long now) {
    long usedAfter = after.used(spec.kind());
    if (spec.softLimit() <= 0 || after.alerted() || usedAfter < spec.softLimit()) {
      return after;
    }
    counters.alertRaised();
    long seq = counters.lastSequence() + 1;
    append(new UsageEvent(seq, "alert:" + spec.scope() + ":" + spec.resource() + ":" + seq,
        EventType.ALERT, now, now, spec.scope(), spec.resource(), usedAfter, spec.unit(), 0, 0));
    return after.with(after.windowUsed(), after.held(), after.allocated(), true);
  }

  // ---------------------------------------------------------------- settle

  private QuotaResult complete(CompleteReservation c, long now) {
    Optional<Reservation> r = reservation(c.reservationId());
    if (r.isEmpty()) {
      return settledBefore(c.reservationId());
    }
    Reservation res = r.get();
    if (c.actuals().size() != res.items().size()) {
      return Arguments.invalid("reservation " + res.reservationId() + " has " + res.items().size()
          + " items, complete gave " + c.actuals().size() + " actuals");
    }
    for (int i = 0; i < c.actuals().size(); i++) {
      long actual = c.actuals().get(i);
      long amount = res.items().get(i).amount();
      if (actual < 0 || actual > amount) {
        return Arguments.invalid("actual " + actual + " for " + res.items().get(i).resource()
            + " outside [0, reserved " + amount + "]");
      }
    }
    if (now >= res.expiresAtMillis()) {
      return expireNow(res, now);
    }
    return settle(res, EventType.COMPLETED, c.actuals(), now);
  }

  private QuotaResult cancel(CancelReservation c, long now) {
    Optional<Reservation> r = reservation(c.reservationId());
    if (r.isEmpty()) {
      return settledBefore(c.reservationId());
    }
    if (now >= r.get().expiresAtMillis()) {
      return expireNow(r.get(), now);
    }
    List<Long> zeros = r.get().items().stream().map(i -> 0L).toList();
    return settle(r.get(), EventType.CANCELLED, zeros, now);
  }

  /** Past its expiry but not yet ticked: it expires now (the same event a Tick would emit). */
  private QuotaResult expireNow(Reservation r, long now) {
    List<Long> amounts = r.items().stream().map(ReservationItem::amount).toList();
    return settle(r, EventType.EXPIRED, amounts, now);
  }

  private QuotaResult settledBefore(long reservationId) {
    Optional<Settlement> s = settlement(reservationId);
    if (s.isPresent()) {
      return new QuotaResult.ReservationSettled(reservationId, s.get().how(), s.get().quantities(),
          List.of(), true);
    }
    return new QuotaResult.QuotaRejected(Outcome.RESERVATION_UNKNOWN,
        "reservation " + reservationId + " is not outstanding and no settlement is kept (unknown, "
            + "or settled more than " + options.settledRetentionMillis() + " ms ago)",
        "", "", 0, 0);
  }

  /**
   * Ends a reservation: releases it at every level it was charged at, emits exactly one usage
   * event per item, remembers the settlement for the retention window.
   */
  private QuotaResult.ReservationSettled settle(
      Reservation r, EventType how, List<Long> quantities, long now) {
    List<Long> sequences = new ArrayList<>(r.items().size());
    for (int i = 0; i < r.items().size(); i++) {
      ReservationItem item = r.items().get(i);
      long q = quantities.get(i);
      for (LevelCharge charge : item.charges()) {
        QuotaSpec spec = spec(charge.levelScope(), item.resource()).orElseThrow(
            () -> new InvariantViolation("Q3 reservation " + r.reservationId() + " charged "
                + charge.levelScope() + " " + item.resource() + " which has no catalog entry"));
        LevelUsage u = usage(charge.levelScope(), item.resource()).rolled(spec, now);
        long windowUsed = u.windowUsed();
        if (spec.kind().windowed() && u.windowStartMillis() == charge.windowStartMillis()) {
          windowUsed -= item.amount() - q;
        }
        long held = u.held() - item.amount();
        long allocated = u.allocated() + (spec.kind() == QuotaKind.ALLOCATION ? q : 0);
        if (held < 0 || windowUsed < 0) {
          throw new InvariantViolation("Q2 settling reservation " + r.reservationId() + " leaves "
              + charge.levelScope() + " " + item.resource() + " held " + held + " windowUsed "
              + windowUsed);
        }
        LevelUsage after = u.with(windowUsed, held, allocated, u.alerted());
        if (!spec.kind().windowed() && after.alerted() && after.used(spec.kind()) < spec.softLimit()) {
          after = after.with(windowUsed, held, allocated, false); // re-armed for the next crossing
        }
        putUsage(after);
      }
      long seq = counters.lastSequence() + 1;
      append(new UsageEvent(seq, "res:" + r.reservationId() + ":" + item.resource(), how, now, now,
          r.scope(), item.resource(), q, item.unit(), r.reservationId(), Math.min(q, item.overage())));
      sequences.add(seq);
    }
    // Its expiry record stays (the shared index is a queue); expire() will find it stale.
    records.delete(Q, QuotaKeys.reservation(r.reservationId()));
    counters.reservationClosed();
    Settlement s = new Settlement(r.reservationId(), r.scope(), how, now,
        r.items().stream().map(ReservationItem::resource).toList(), quantities);
    records.put(Q, QuotaKeys.settlement(r.reservationId()),
        QuotaFormat.stored(out -> QuotaFormat.writeSettlement(out, s)));
    records.putExpiry(QuotaKeys.settlementEnd(now + options.settledRetentionMillis(),
        r.reservationId()));
    return new QuotaResult.ReservationSettled(r.reservationId(), how, quantities, sequences, false);
  }

  // ---------------------------------------------------------------- usage log

  private QuotaResult ingest(IngestUsage c, long now) {
    Optional<String> bad = Arguments.firstProblem(
        Arguments.name("eventId", c.eventId()),
        Scope.problem(c.scope()),
        Arguments.name("resource", c.resource()),
        Arguments.name("unit", c.unit()),
        Math.abs(c.quantity()) > MAX_AMOUNT
            ? Optional.of("quantity " + c.quantity() + " beyond ±" + MAX_AMOUNT) : Optional.empty(),
        c.reservationId() < 0
            ? Optional.of("reservationId " + c.reservationId() + " < 0") : Optional.empty(),
        c.eventId().startsWith("res:") || c.eventId().startsWith("comp:")
                || c.eventId().startsWith("alert:")
            ? Optional.of("eventId " + c.eventId() + " uses a prefix the ledger reserves "
                + "(res:, comp:, alert:)")
            : Optional.empty());
    if (bad.isPresent()) {
      return Arguments.invalid(bad.get());
    }
    Optional<byte[]> seen = records.get(Q, QuotaKeys.eventId(c.eventId()));
    if (seen.isPresent()) {
      return new QuotaResult.UsageIngested(readEventIdRecord(seen.get())[0], true);
    }
    if (c.eventTimeMillis() < now - options.dedupRetentionMillis()) {
      return Arguments.invalid("event " + c.eventId() + " time " + c.eventTimeMillis() + " is older than the "
          + "dedup retention (" + options.dedupRetentionMillis() + " ms before ledger now " + now
          + "): it could not be told from a duplicate");
    }
    if (c.eventTimeMillis() > now + options.maxFutureSkewMillis()) {
      return Arguments.invalid("event " + c.eventId() + " time " + c.eventTimeMillis() + " is more than "
          + options.maxFutureSkewMillis() + " ms after ledger now " + now);
    }
    List<QuotaSpec> allocations = new ArrayList<>();
    for (String level : Scope.levels(c.scope())) {
      spec(level, c.resource()).filter(s -> s.kind() == QuotaKind.ALLOCATION)
          .ifPresent(allocations::add);
    }
    if (c.quantity() < 0 && allocations.isEmpty()) {
      return Arguments.invalid("negative quantity " + c.quantity() + " is only for allocation resources; "
          + c.scope() + " " + c.resource() + " has no allocation entry");
    }
    long seq = counters.lastSequence() + 1;
    append(new UsageEvent(seq, c.eventId(), EventType.INGESTED, c.eventTimeMillis(), now,
        c.scope(), c.resource(), c.quantity(), c.unit(), c.reservationId(), 0));
    if (c.quantity() < 0) {
      // Released allocation (e.g. storage freed) frees capacity at every allocation level.
      for (QuotaSpec spec : allocations) {
        LevelUsage u = usage(spec.scope(), spec.resource());
        long allocated = Math.max(0, u.allocated() + c.quantity());
        LevelUsage after = u.with(u.windowUsed(), u.held(), allocated, u.alerted());
        if (after.alerted() && after.used(spec.kind()) < spec.softLimit()) {
          after = after.with(after.windowUsed(), after.held(), allocated, false);
        }
        putUsage(after);
      }
    }
    return new QuotaResult.UsageIngested(seq, false);
  }

  /** Appends one record: log, event-id record (with its retention), aggregates, reservation index. */
  private void append(UsageEvent e) {
    if (e.sequence() != counters.lastSequence() + 1) {
      throw new InvariantViolation("Q4 usage log sequence " + e.sequence() + " after " + counters.lastSequence());
    }
    counters.lastSequence(e.sequence());
    records.put(LOG, QuotaKeys.sequence(e.sequence()), QuotaFormat.stored(out -> QuotaFormat.writeEvent(out, e)));
    if (e.type() == EventType.INGESTED) {
      // Only a service's own ids can repeat: the ledger's (res:, comp:, alert:) are unique by
      // construction and ingest refuses those prefixes, so they need no dedup record.
      long idExpires = e.recordedAtMillis() + options.dedupRetentionMillis();
      records.put(Q, QuotaKeys.eventId(e.eventId()),
          QuotaFormat.stored(out -> out.i64(e.sequence()).i64(idExpires)));
      records.putExpiry(QuotaKeys.eventIdEnd(idExpires, e.sequence()));
    }
    if (e.type().isUsage()) {
      long bucket = Aggregate.bucketOf(e.eventTimeMillis());
      for (String level : Scope.levels(e.scope())) {
        byte[] k = QuotaKeys.aggregate(level, e.resource(), bucket);
        long[] qe = records.get(Q, k).map(QuotaLedger::readAggregate).orElse(new long[2]);
        records.put(Q, k, QuotaFormat.stored(out -> out.i64(qe[0] + e.quantity()).i64(qe[1] + 1)));
      }
    }
    if (e.reservationId() != 0) {
      records.put(Q, QuotaKeys.byReservation(e.reservationId(), e.sequence()),
          QuotaFormat.stored(out -> {}));
    }
  }

  private QuotaResult ack(AckUsage c) {
    Optional<String> bad = Arguments.name("consumer", c.consumer());
    if (bad.isPresent()) {
      return Arguments.invalid(bad.get());
    }
    if (c.sequence() < 0 || c.sequence() > counters.lastSequence()) {
      return Arguments.invalid("ack of sequence " + c.sequence() + " outside [0, last " + counters.lastSequence() + "]");
    }
    long cursor = Math.max(cursor(c.consumer()), c.sequence());
    records.put(Q, QuotaKeys.consumer(c.consumer()),
        QuotaFormat.stored(out -> out.i64(cursor)));
    return new QuotaResult.UsageAcked(c.consumer(), cursor);
  }

  private long cursor(String consumer) {
    return records.get(Q, QuotaKeys.consumer(consumer))
        .map(v -> {
          ByteReader in = QuotaFormat.storedReader(v, "consumer " + consumer);
          long cursor = in.i64("cursor");
          in.end();
          return cursor;
        })
        .orElse(0L);
  }

  // ---------------------------------------------------------------- reconciliation

  private QuotaResult reconcile(Reconcile c, long now) {
    Optional<String> bad = reconcileProblem(c.scope(), c.resource(), c.fromMillis(), c.toMillis());
    if (bad.isEmpty()) {
      bad = Arguments.firstProblem(Arguments.text("actor", c.actor()), Arguments.text("reason", c.reason()));
    }
    if (bad.isPresent()) {
      return Arguments.invalid(bad.get());
    }
    List<Drift> found = drifts(c.scope(), c.resource(), c.fromMillis(), c.toMillis());
    List<Drift> out = new ArrayList<>(found.size());
    int repaired = 0;
    for (Drift d : found) {
      if (!d.kind().equals(Drift.RESERVATION) || repaired >= MAX_REPAIRS) {
        out.add(d);
        continue;
      }
      // The compensation is dated at the settlement, so it lands in the same period.
      long settledAt = settlement(d.reservationId()).map(Settlement::settledAtMillis).orElse(now);
      long seq = counters.lastSequence() + 1;
      String unit = unitOf(d.scope(), d.resource());
      append(new UsageEvent(seq, "comp:" + seq, EventType.COMPENSATION, settledAt, now, d.scope(),
          d.resource(), d.expected() - d.recorded(), unit, d.reservationId(), 0));
      out.add(new Drift(d.kind(), d.scope(), d.resource(), d.reservationId(), d.bucketStartMillis(),
          d.expected(), d.recorded(), seq));
      repaired++;
    }
    audit(now, c.actor(), "usage.reconcile", c.scope(), c.resource(), 0, c.reason(),
        found.size() + " drifts found, " + repaired + " repaired with compensating events, period ["
            + c.fromMillis() + ", " + c.toMillis() + ")");
    return new QuotaResult.Reconciled(out);
  }

  private String unitOf(String scope, String resource) {
    String unit = "";
    for (String level : Scope.levels(scope)) {
      Optional<QuotaSpec> s = spec(level, resource);
      if (s.isPresent()) {
        unit = s.get().unit();
      }
    }
    return unit;
  }

  private Optional<String> reconcileProblem(String scope, String resource, long from, long to) {
    return Arguments.firstProblem(Scope.problem(scope),
        resource.isEmpty() ? Optional.empty() : Arguments.name("resource", resource),
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
        records.scan(Q, QuotaKeys.first(QuotaKeys.SETTLED), QuotaKeys.end(QuotaKeys.SETTLED), options.maxScanRecords())) {
      Settlement s = QuotaFormat.readSettlement(QuotaFormat.storedReader(e.getValue(), "settlement"));
      if (!s.scope().equals(scope) || s.settledAtMillis() < from || s.settledAtMillis() >= to) {
        continue;
      }
      Map<String, Long> recorded = new HashMap<>();
      for (UsageEvent event : eventsOf(s.reservationId())) {
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
    for (UsageEvent event : events(1, options.maxScanRecords())) {
      if (!event.type().isUsage() || (!resource.isEmpty() && !resource.equals(event.resource()))
          || !Scope.levels(event.scope()).contains(scope)) {
        continue;
      }
      long bucket = Aggregate.bucketOf(event.eventTimeMillis());
      if (bucket >= firstBucket && bucket < to) {
        fromLog.merge(event.resource() + "\n" + bucket, event.quantity(), Long::sum);
      }
    }
    TreeMap<String, Long> stored = new TreeMap<>();
    for (Aggregate a : aggregates(scope, resource, from, to)) {
      stored.put(a.resource() + "\n" + a.bucketStartMillis(), a.quantity());
    }
    Set<String> keys = new java.util.TreeSet<>(fromLog.keySet());
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

  // ================================================================ queries

  public QuotaAnswer query(QuotaQuery query, long readNowMillis) {
    if (query instanceof QuotaQuery.GetQuota q) {
      return new QuotaAnswer.QuotaFound(spec(q.scope(), q.resource())
          .map(s -> new QuotaAnswer.QuotaRow(s, usage(s.scope(), s.resource()).rolled(s, readNowMillis))));
    } else if (query instanceof QuotaQuery.ListQuotas q) {
      List<QuotaAnswer.QuotaRow> rows = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e :
          records.scan(Q, QuotaKeys.first(QuotaKeys.CATALOG), QuotaKeys.end(QuotaKeys.CATALOG), options.maxScanRecords())) {
        QuotaSpec s = QuotaFormat.readSpec(QuotaFormat.storedReader(e.getValue(), "catalog"));
        if (under(s.scope(), q.scopePrefix()) && rows.size() < LIST_MAX) {
          rows.add(new QuotaAnswer.QuotaRow(s, usage(s.scope(), s.resource()).rolled(s, readNowMillis)));
        }
      }
      rows.sort(Comparator.comparing((QuotaAnswer.QuotaRow r) -> r.spec().scope())
          .thenComparing(r -> r.spec().resource()));
      return new QuotaAnswer.QuotaList(rows);
    } else if (query instanceof QuotaQuery.QuotaHistory q) {
      byte[] prefix = QuotaKeys.historyOf(q.scope(), q.resource());
      List<QuotaSpec> versions = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : records.scan(Q, prefix, QuotaKeys.after(prefix), LIST_MAX)) {
        versions.add(QuotaFormat.readSpec(QuotaFormat.storedReader(e.getValue(), "history")));
      }
      return new QuotaAnswer.History(versions);
    } else if (query instanceof QuotaQuery.ReadAudit q) {
      List<AuditRecord> audit = new ArrayList<>();
      int max = Math.max(0, Math.min(q.max(), options.maxScanRecords()));
      for (Map.Entry<byte[], byte[]> e : records.scan(Q, QuotaKeys.audit(Math.max(0, q.fromSequence())),
          QuotaKeys.end(QuotaKeys.AUDIT), max)) {
        audit.add(QuotaFormat.readAudit(QuotaFormat.storedReader(e.getValue(), "audit")));
      }
      return new QuotaAnswer.AuditList(audit);
    } else if (query instanceof QuotaQuery.ListReservations q) {
      List<Reservation> out = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : records.scan(Q, QuotaKeys.first(QuotaKeys.RESERVATION), QuotaKeys.end(QuotaKeys.RESERVATION), options.maxScanRecords())) {
        Reservation r = QuotaFormat.readReservation(QuotaFormat.storedReader(e.getValue(), "reservation"));
        if (under(r.scope(), q.scopePrefix()) && r.expiresAtMillis() > readNowMillis
            && out.size() < LIST_MAX) {
          out.add(r);
        }
      }
      return new QuotaAnswer.ReservationList(out);
    } else if (query instanceof QuotaQuery.ReadUsage q) {
      long cursor = q.consumer().isEmpty() ? 0 : cursor(q.consumer());
      long from = q.fromSequence() > 0 ? q.fromSequence() : cursor + 1;
      int max = Math.max(0, Math.min(q.max(), options.maxScanRecords()));
      return new QuotaAnswer.UsageBatch(events(from, max), cursor, counters.lastSequence());
    } else if (query instanceof QuotaQuery.AggregateUsage q) {
      List<Aggregate> buckets = aggregates(q.scope(), q.resource(), q.fromMillis(), q.toMillis());
      long total = buckets.stream().mapToLong(Aggregate::quantity).sum();
      return new QuotaAnswer.AggregateList(buckets, total);
    } else if (query instanceof QuotaQuery.ReconcileReport q) {
      Optional<String> bad = reconcileProblem(q.scope(), q.resource(), q.fromMillis(), q.toMillis());
      if (bad.isPresent()) {
        throw new IllegalArgumentException(bad.get());
      }
      return new QuotaAnswer.ReconcileAnswer(drifts(q.scope(), q.resource(), q.fromMillis(), q.toMillis()));
    } else if (query instanceof QuotaQuery.QuotaStatus) {
      return counters.status();
    }
    throw new IllegalStateException("unhandled quota query " + query);
  }

  private static boolean under(String scope, String prefix) {
    return prefix.isEmpty() || scope.equals(prefix) || scope.startsWith(prefix + "/");
  }

  /** Aggregates of exactly {@code scope} ({@code resource} "" = all) with buckets in [from, to). */
  private List<Aggregate> aggregates(String scope, String resource, long from, long to) {
    List<Aggregate> out = new ArrayList<>();
    long firstBucket = Aggregate.bucketOf(from);
    if (resource.isEmpty()) {
      byte[] prefix = QuotaKeys.aggregatesOf(scope);
      for (Map.Entry<byte[], byte[]> e : records.scan(Q, prefix, QuotaKeys.after(prefix), options.maxScanRecords())) {
        Aggregate a = readAggregateEntry(e);
        if (a.bucketStartMillis() >= firstBucket && a.bucketStartMillis() < to) {
          out.add(a);
        }
      }
    } else {
      byte[] end = QuotaKeys.aggregate(scope, resource, Math.max(firstBucket, to));
      for (Map.Entry<byte[], byte[]> e : records.scan(Q, QuotaKeys.aggregate(scope, resource, firstBucket), end,
          options.maxScanRecords())) {
        Aggregate a = readAggregateEntry(e);
        if (a.bucketStartMillis() < to) {
          out.add(a);
        }
      }
    }
    return out;
  }

  // ================================================================ verify

  /**
   * Recomputes every quota invariant from the store (expensive: start, snapshot, tests).
   * Q2: each level's held amount is the sum of the outstanding reservations charged at it, and no
   * usage is negative. Q3: each reservation has its expiry record and only charges levels with
   * entries. Q4: the log is dense from 1 to the last sequence. Q5: every reservation event id is
   * unique (one event per settled item). Q6: aggregates equal the log's usage by event time
   * (when the log fits in one scan). Q7: the catalog holds each entry's newest version.
   */
  public void verify() {
    Map<String, Long> held = new HashMap<>();
    long outstanding = 0;
    for (Map.Entry<byte[], byte[]> e :
        records.scan(Q, QuotaKeys.first(QuotaKeys.RESERVATION), QuotaKeys.end(QuotaKeys.RESERVATION), Integer.MAX_VALUE)) {
      Reservation r = QuotaFormat.readReservation(QuotaFormat.storedReader(e.getValue(), "reservation"));
      outstanding++;
      for (ReservationItem item : r.items()) {
        for (LevelCharge c : item.charges()) {
          held.merge(c.levelScope() + "\n" + item.resource(), item.amount(), Long::sum);
        }
      }
    }
    if (outstanding != counters.reservations()) {
      throw new InvariantViolation("Q2 counter says " + counters.reservations() + " reservations, store holds "
          + outstanding);
    }
    for (Map.Entry<byte[], byte[]> e : records.scan(Q, QuotaKeys.first(QuotaKeys.LEVEL), QuotaKeys.end(QuotaKeys.LEVEL), Integer.MAX_VALUE)) {
      LevelUsage u = QuotaFormat.readUsage(QuotaFormat.storedReader(e.getValue(), "level usage"));
      long expected = held.getOrDefault(u.scope() + "\n" + u.resource(), 0L);
      if (u.held() != expected || u.windowUsed() < 0 || u.allocated() < 0) {
        throw new InvariantViolation("Q2 level " + u.scope() + " " + u.resource() + " held "
            + u.held() + " but outstanding reservations hold " + expected + "; windowUsed "
            + u.windowUsed() + " allocated " + u.allocated());
      }
      if (spec(u.scope(), u.resource()).isEmpty()) {
        throw new InvariantViolation("Q3 usage for " + u.scope() + " " + u.resource()
            + " without a catalog entry");
      }
      held.remove(u.scope() + "\n" + u.resource());
    }
    held.values().removeIf(v -> v == 0);
    if (!held.isEmpty()) {
      throw new InvariantViolation("Q2 reservations hold " + held + " at levels with no usage record");
    }
    // The whole-log checks (Q4 dense, Q5, Q6) read every record; past maxScanRecords they would
    // stall a snapshot, so a long log gets only the check that its last record is the counter's.
    if (counters.lastSequence() > options.maxScanRecords()) {
      List<Map.Entry<byte[], byte[]>> last =
          records.scan(LOG, QuotaKeys.sequence(counters.lastSequence()), QuotaKeys.logEnd(), 2);
      if (last.size() != 1) {
        throw new InvariantViolation("Q4 usage log counter " + counters.lastSequence() + " but " + last.size()
            + " records at or after it");
      }
      verifyCatalog();
      return;
    }
    long expectedSeq = 1;
    Set<String> reservationEventIds = new HashSet<>();
    Map<String, Long> aggregatesFromLog = new TreeMap<>();
    for (Map.Entry<byte[], byte[]> e : records.scan(LOG, QuotaKeys.logStart(), QuotaKeys.logEnd(), Integer.MAX_VALUE)) {
      UsageEvent event = QuotaFormat.readEvent(QuotaFormat.storedReader(e.getValue(), "usage event"));
      if (event.sequence() != expectedSeq) {
        throw new InvariantViolation("Q4 usage log has sequence " + event.sequence() + " where "
            + expectedSeq + " was due");
      }
      expectedSeq++;
      if (event.eventId().startsWith("res:") && !reservationEventIds.add(event.eventId())) {
        throw new InvariantViolation("Q5 reservation event " + event.eventId() + " emitted twice");
      }
      if (event.type().isUsage()) {
        for (String level : Scope.levels(event.scope())) {
          aggregatesFromLog.merge(level + "\n" + event.resource() + "\n"
              + Aggregate.bucketOf(event.eventTimeMillis()), event.quantity(), Long::sum);
        }
      }
    }
    if (expectedSeq - 1 != counters.lastSequence()) {
      throw new InvariantViolation("Q4 usage log ends at " + (expectedSeq - 1) + ", counter says "
          + counters.lastSequence());
    }
    for (Map.Entry<byte[], byte[]> e :
        records.scan(Q, QuotaKeys.first(QuotaKeys.AGGREGATE), QuotaKeys.end(QuotaKeys.AGGREGATE), Integer.MAX_VALUE)) {
      Aggregate a = readAggregateEntry(e);
      String k = a.scope() + "\n" + a.resource() + "\n" + a.bucketStartMillis();
      long fromLog = aggregatesFromLog.getOrDefault(k, 0L);
      if (fromLog != a.quantity()) {
        throw new InvariantViolation("Q6 aggregate " + a.scope() + " " + a.resource() + " bucket "
            + a.bucketStartMillis() + " holds " + a.quantity() + ", log sums to " + fromLog);
      }
      aggregatesFromLog.remove(k);
    }
    aggregatesFromLog.values().removeIf(v -> v == 0);
    if (!aggregatesFromLog.isEmpty()) {
      throw new InvariantViolation("Q6 log usage without aggregates: " + aggregatesFromLog);
    }
    verifyCatalog();
  }

  private void verifyCatalog() {
    for (Map.Entry<byte[], byte[]> e : records.scan(Q, QuotaKeys.first(QuotaKeys.CATALOG), QuotaKeys.end(QuotaKeys.CATALOG), Integer.MAX_VALUE)) {
      QuotaSpec s = QuotaFormat.readSpec(QuotaFormat.storedReader(e.getValue(), "catalog"));
      byte[] prefix = QuotaKeys.historyOf(s.scope(), s.resource());
      List<Map.Entry<byte[], byte[]>> versions = records.scan(Q, prefix, QuotaKeys.after(prefix), Integer.MAX_VALUE);
      QuotaSpec newest = QuotaFormat.readSpec(QuotaFormat.storedReader(
          versions.get(versions.size() - 1).getValue(), "history"));
      if (!newest.equals(s) || s.version() > counters.catalogVersion()) {
        throw new InvariantViolation("Q7 catalog entry " + s + " is not the newest version "
            + newest + " (catalog version " + counters.catalogVersion() + ")");
      }
    }
  }

  /**
   * Q3: every outstanding reservation, every kept settlement and every remembered event id has
   * its record in the shared expiry index at its due time (so nothing outlives its lifetime).
   */
  @Override
  public void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {
    Set<ExpiryKey> stored = new HashSet<>();
    walk.accept(stored::add);
    for (Map.Entry<byte[], byte[]> e :
        records.scan(Q, QuotaKeys.first(QuotaKeys.RESERVATION), QuotaKeys.end(QuotaKeys.RESERVATION), Integer.MAX_VALUE)) {
      Reservation r = QuotaFormat.readReservation(QuotaFormat.storedReader(e.getValue(), "reservation"));
      requireExpiry(stored, QuotaKeys.reservationEnd(r.expiresAtMillis(), r.reservationId()));
    }
    for (Map.Entry<byte[], byte[]> e :
        records.scan(Q, QuotaKeys.first(QuotaKeys.SETTLED), QuotaKeys.end(QuotaKeys.SETTLED), Integer.MAX_VALUE)) {
      Settlement st = QuotaFormat.readSettlement(QuotaFormat.storedReader(e.getValue(), "settlement"));
      requireExpiry(stored, QuotaKeys.settlementEnd(st.settledAtMillis() + options.settledRetentionMillis(),
          st.reservationId()));
    }
    for (Map.Entry<byte[], byte[]> e :
        records.scan(Q, QuotaKeys.first(QuotaKeys.EVENT_ID), QuotaKeys.end(QuotaKeys.EVENT_ID), Integer.MAX_VALUE)) {
      long[] rec = readEventIdRecord(e.getValue());
      requireExpiry(stored, QuotaKeys.eventIdEnd(rec[1], rec[0]));
    }
  }

  private static void requireExpiry(Set<ExpiryKey> stored, ExpiryKey key) {
    if (!stored.contains(key)) {
      throw new InvariantViolation("Q3 quota record has no expiry-index record " + key);
    }
  }

  // ================================================================ records

  private Optional<QuotaSpec> spec(String scope, String resource) {
    return records.get(Q, QuotaKeys.catalog(scope, resource))
        .map(v -> QuotaFormat.readSpec(QuotaFormat.storedReader(v, "catalog " + scope + " " + resource)));
  }

  private LevelUsage usage(String scope, String resource) {
    return records.get(Q, QuotaKeys.level(scope, resource))
        .map(v -> QuotaFormat.readUsage(QuotaFormat.storedReader(v, "usage " + scope + " " + resource)))
        .orElse(LevelUsage.empty(scope, resource));
  }

  private void putUsage(LevelUsage u) {
    records.put(Q, QuotaKeys.level(u.scope(), u.resource()),
        QuotaFormat.stored(out -> QuotaFormat.writeUsage(out, u)));
  }

  private Optional<Reservation> reservation(long id) {
    return records.get(Q, QuotaKeys.reservation(id))
        .map(v -> QuotaFormat.readReservation(QuotaFormat.storedReader(v, "reservation " + id)));
  }

  private Optional<Settlement> settlement(long id) {
    return records.get(Q, QuotaKeys.settlement(id))
        .map(v -> QuotaFormat.readSettlement(QuotaFormat.storedReader(v, "settlement " + id)));
  }

  private Optional<UsageEvent> event(long sequence) {
    return records.get(LOG, QuotaKeys.sequence(sequence))
        .map(v -> QuotaFormat.readEvent(QuotaFormat.storedReader(v, "usage event " + sequence)));
  }

  private List<UsageEvent> events(long fromSequence, int max) {
    List<UsageEvent> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e :
        records.scan(LOG, QuotaKeys.sequence(Math.max(1, fromSequence)), QuotaKeys.logEnd(), max)) {
      out.add(QuotaFormat.readEvent(QuotaFormat.storedReader(e.getValue(), "usage event")));
    }
    return out;
  }

  private List<UsageEvent> eventsOf(long reservationId) {
    byte[] prefix = QuotaKeys.byReservationOf(reservationId);
    List<UsageEvent> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : records.scan(Q, prefix, QuotaKeys.after(prefix), options.maxScanRecords())) {
      event(QuotaKeys.sequenceOfByReservation(e.getKey())).ifPresent(out::add);
    }
    return out;
  }

  private void audit(long now, String actor, String action, String scope, String resource,
      long version, String reason, String detail) {
    long seq = counters.takeAuditSequence();
    AuditRecord a = new AuditRecord(seq, now, actor, action, scope, resource, version, reason, detail);
    records.put(Q, QuotaKeys.audit(seq), QuotaFormat.stored(out -> QuotaFormat.writeAudit(out, a)));
  }

  private void writeMeta() {
    counters.write();
  }

  private static Aggregate readAggregateEntry(Map.Entry<byte[], byte[]> e) {
    QuotaKeys.AggregateKey k = QuotaKeys.readAggregate(e.getKey());
    long[] qe = readAggregate(e.getValue());
    return new Aggregate(k.scope(), k.resource(), k.bucketStartMillis(), qe[0], qe[1]);
  }

  private static long[] readAggregate(byte[] value) {
    ByteReader in = QuotaFormat.storedReader(value, "aggregate");
    long[] qe = {in.i64("quantity"), in.i64("events")};
    in.end();
    return qe;
  }

  /** [sequence, expiresAt] of an event-id record. */
  private static long[] readEventIdRecord(byte[] value) {
    ByteReader in = QuotaFormat.storedReader(value, "event id");
    long[] r = {in.i64("sequence"), in.i64("expiresAt")};
    in.end();
    return r;
  }
}
