package dev.ration.statemachine.quota;

import dev.ration.wire.quota.QuotaSpec;

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
import dev.ration.statemachine.lease.Changes;
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
import dev.ration.wire.ByteWriter;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
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

  static final int EXPIRY_RESERVATION = ExpiryKey.QUOTA_RESERVATION_END;
  static final int EXPIRY_SETTLEMENT = ExpiryKey.QUOTA_SETTLEMENT_END;
  static final int EXPIRY_EVENT_ID = ExpiryKey.QUOTA_EVENT_ID_END;

  private static final byte CATALOG = 'C';
  private static final byte HISTORY = 'H';
  private static final byte LEVEL = 'L';
  private static final byte RESERVATION = 'R';
  private static final byte SETTLED = 'S';
  private static final byte EVENT_ID = 'D';
  private static final byte AGGREGATE = 'A';
  private static final byte CONSUMER = 'K';
  private static final byte AUDIT = 'U';
  private static final byte BY_RESERVATION = 'E';
  private static final byte[] META = {'M'};

  private static final String Q = FAMILY_QUOTA;
  private static final String LOG = FAMILY_USAGE;

  private final QuotaOptions options;
  private final ApplyContext context;

  // Counters, persisted in the META record with every change.
  private long catalogVersion;
  private long nextReservationId = 1;
  private long lastSequence;
  private long lastAuditSequence;
  private long alertsRaised;
  private long reservations;

  public QuotaLedger(QuotaOptions options, ApplyContext context) {
    this.options = options;
    this.context = context;
  }

  @Override
  public String name() {
    return "quota";
  }

  @Override
  public void load() {
    context.store().get(Q, META).ifPresent(value -> {
      ByteReader in = QuotaFormat.storedReader(value, "quota meta");
      catalogVersion = in.i64("catalogVersion");
      nextReservationId = in.i64("nextReservationId");
      lastSequence = in.i64("lastSequence");
      lastAuditSequence = in.i64("lastAuditSequence");
      alertsRaised = in.i64("alertsRaised");
      reservations = in.i64("reservations");
      in.end();
    });
  }


  public long alertsRaised() {
    return alertsRaised;
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
    return kind == EXPIRY_RESERVATION || kind == EXPIRY_SETTLEMENT || kind == EXPIRY_EVENT_ID;
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
    if (due.kind() == EXPIRY_RESERVATION) {
      Optional<Reservation> r = reservation(id);
      if (r.isPresent() && r.get().expiresAtMillis() == due.dueAtMillis()) {
        List<Long> amounts = r.get().items().stream().map(ReservationItem::amount).toList();
        settle(r.get(), EventType.EXPIRED, amounts, now);
        freed = true;
      }
    } else if (due.kind() == EXPIRY_SETTLEMENT) {
      Optional<Settlement> s = settlement(id);
      if (s.isPresent()
          && s.get().settledAtMillis() + options.settledRetentionMillis() == due.dueAtMillis()) {
        delete(Q, key(SETTLED).i64(id).toByteArray());
        freed = true;
      }
    } else if (due.kind() == EXPIRY_EVENT_ID) {
      Optional<UsageEvent> event = event(id);
      if (event.isPresent()) {
        byte[] idKey = key(EVENT_ID).str(event.get().eventId()).toByteArray();
        Optional<byte[]> rec = get(Q, idKey);
        if (rec.isPresent() && readEventIdRecord(rec.get())[0] == id) {
          delete(Q, idKey);
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
    Optional<String> bad = firstProblem(
        Scope.problem(c.scope()),
        name("resource", c.resource()),
        name("unit", c.unit()),
        text("actor", c.actor()),
        text("reason", c.reason()),
        amount("limit", c.limit(), 0),
        c.softLimit() < 0 || c.softLimit() > c.limit()
            ? Optional.of("softLimit " + c.softLimit() + " outside [0, limit " + c.limit() + "]")
            : Optional.empty(),
        c.expectedVersion() < 0
            ? Optional.of("expectedVersion " + c.expectedVersion() + " < 0") : Optional.empty(),
        windowProblem(c.kind(), c.window()),
        c.overage() == Overage.REJECT && c.overageMax() != 0
            ? Optional.of("overageMax " + c.overageMax() + " with overage policy REJECT; must be 0")
            : Optional.empty(),
        c.overage() == Overage.ALLOW ? amount("overageMax", c.overageMax(), 1) : Optional.empty(),
        c.kind() != QuotaKind.CUMULATIVE && c.periodStartMillis() != 0
            ? Optional.of("periodStartMillis " + c.periodStartMillis() + " is only for cumulative")
            : c.periodStartMillis() < 0
                ? Optional.of("periodStartMillis " + c.periodStartMillis() + " < 0")
                : Optional.empty());
    if (bad.isPresent()) {
      return invalid(bad.get());
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
      return invalid("quota " + c.scope() + " " + c.resource() + " is " + existing.get().kind()
          + "; the kind of an entry never changes (requested " + c.kind() + ")");
    }
    catalogVersion = context.mintVersion();
    QuotaSpec spec = new QuotaSpec(c.scope(), c.resource(), c.kind(), c.window(), c.limit(),
        c.unit(), c.softLimit(), c.overage(), c.overageMax(), c.periodStartMillis(),
        catalogVersion, c.actor(), now, c.reason());
    byte[] value = QuotaFormat.stored(out -> QuotaFormat.writeSpec(out, spec));
    put(Q, catalogKey(c.scope(), c.resource()), value);
    put(Q, key(HISTORY).str(c.scope()).str(c.resource()).i64(spec.version())
        .toByteArray(), value);
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
    Optional<String> bad = firstProblem(
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
      return invalid(bad.get());
    }
    Set<String> seen = new HashSet<>();
    for (Reserve.Item item : c.items()) {
      Optional<String> p = firstProblem(name("resource", item.resource()),
          amount("amount of " + item.resource(), item.amount(), 1));
      if (p.isPresent()) {
        return invalid(p.get());
      }
      if (!seen.add(item.resource())) {
        return invalid("resource " + item.resource() + " named twice in one reservation");
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
    long id = nextReservationId++;
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
    put(Q, key(RESERVATION).i64(id).toByteArray(),
        QuotaFormat.stored(out -> QuotaFormat.writeReservation(out, r)));
    context.putExpiry(new ExpiryKey(expiresAt, EXPIRY_RESERVATION, id, 0, 0));
    reservations++;
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
    alertsRaised++;
    long seq = lastSequence + 1;
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
      return invalid("reservation " + res.reservationId() + " has " + res.items().size()
          + " items, complete gave " + c.actuals().size() + " actuals");
    }
    for (int i = 0; i < c.actuals().size(); i++) {
      long actual = c.actuals().get(i);
      long amount = res.items().get(i).amount();
      if (actual < 0 || actual > amount) {
        return invalid("actual " + actual + " for " + res.items().get(i).resource()
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
      long seq = lastSequence + 1;
      append(new UsageEvent(seq, "res:" + r.reservationId() + ":" + item.resource(), how, now, now,
          r.scope(), item.resource(), q, item.unit(), r.reservationId(), Math.min(q, item.overage())));
      sequences.add(seq);
    }
    // Its expiry record stays (the shared index is a queue); expire() will find it stale.
    delete(Q, key(RESERVATION).i64(r.reservationId()).toByteArray());
    reservations--;
    Settlement s = new Settlement(r.reservationId(), r.scope(), how, now,
        r.items().stream().map(ReservationItem::resource).toList(), quantities);
    put(Q, key(SETTLED).i64(r.reservationId()).toByteArray(),
        QuotaFormat.stored(out -> QuotaFormat.writeSettlement(out, s)));
    context.putExpiry(new ExpiryKey(now + options.settledRetentionMillis(), EXPIRY_SETTLEMENT,
        r.reservationId(), 0, 0));
    return new QuotaResult.ReservationSettled(r.reservationId(), how, quantities, sequences, false);
  }

  // ---------------------------------------------------------------- usage log

  private QuotaResult ingest(IngestUsage c, long now) {
    Optional<String> bad = firstProblem(
        name("eventId", c.eventId()),
        Scope.problem(c.scope()),
        name("resource", c.resource()),
        name("unit", c.unit()),
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
      return invalid(bad.get());
    }
    Optional<byte[]> seen = get(Q, key(EVENT_ID).str(c.eventId()).toByteArray());
    if (seen.isPresent()) {
      return new QuotaResult.UsageIngested(readEventIdRecord(seen.get())[0], true);
    }
    if (c.eventTimeMillis() < now - options.dedupRetentionMillis()) {
      return invalid("event " + c.eventId() + " time " + c.eventTimeMillis() + " is older than the "
          + "dedup retention (" + options.dedupRetentionMillis() + " ms before ledger now " + now
          + "): it could not be told from a duplicate");
    }
    if (c.eventTimeMillis() > now + options.maxFutureSkewMillis()) {
      return invalid("event " + c.eventId() + " time " + c.eventTimeMillis() + " is more than "
          + options.maxFutureSkewMillis() + " ms after ledger now " + now);
    }
    List<QuotaSpec> allocations = new ArrayList<>();
    for (String level : Scope.levels(c.scope())) {
      spec(level, c.resource()).filter(s -> s.kind() == QuotaKind.ALLOCATION)
          .ifPresent(allocations::add);
    }
    if (c.quantity() < 0 && allocations.isEmpty()) {
      return invalid("negative quantity " + c.quantity() + " is only for allocation resources; "
          + c.scope() + " " + c.resource() + " has no allocation entry");
    }
    long seq = lastSequence + 1;
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
    if (e.sequence() != lastSequence + 1) {
      throw new InvariantViolation("Q4 usage log sequence " + e.sequence() + " after " + lastSequence);
    }
    lastSequence = e.sequence();
    put(LOG, sequenceKey(e.sequence()), QuotaFormat.stored(out -> QuotaFormat.writeEvent(out, e)));
    if (e.type() == EventType.INGESTED) {
      // Only a service's own ids can repeat: the ledger's (res:, comp:, alert:) are unique by
      // construction and ingest refuses those prefixes, so they need no dedup record.
      long idExpires = e.recordedAtMillis() + options.dedupRetentionMillis();
      put(Q, key(EVENT_ID).str(e.eventId()).toByteArray(),
          QuotaFormat.stored(out -> out.i64(e.sequence()).i64(idExpires)));
      context.putExpiry(new ExpiryKey(idExpires, EXPIRY_EVENT_ID, e.sequence(), 0, 0));
    }
    if (e.type().isUsage()) {
      long bucket = Aggregate.bucketOf(e.eventTimeMillis());
      for (String level : Scope.levels(e.scope())) {
        byte[] k = aggregateKey(level, e.resource(), bucket);
        long[] qe = get(Q, k).map(QuotaLedger::readAggregate).orElse(new long[2]);
        put(Q, k, QuotaFormat.stored(out -> out.i64(qe[0] + e.quantity()).i64(qe[1] + 1)));
      }
    }
    if (e.reservationId() != 0) {
      put(Q, key(BY_RESERVATION).i64(e.reservationId()).i64(e.sequence()).toByteArray(),
          QuotaFormat.stored(out -> {}));
    }
  }

  private QuotaResult ack(AckUsage c) {
    Optional<String> bad = name("consumer", c.consumer());
    if (bad.isPresent()) {
      return invalid(bad.get());
    }
    if (c.sequence() < 0 || c.sequence() > lastSequence) {
      return invalid("ack of sequence " + c.sequence() + " outside [0, last " + lastSequence + "]");
    }
    long cursor = Math.max(cursor(c.consumer()), c.sequence());
    put(Q, key(CONSUMER).str(c.consumer()).toByteArray(),
        QuotaFormat.stored(out -> out.i64(cursor)));
    return new QuotaResult.UsageAcked(c.consumer(), cursor);
  }

  private long cursor(String consumer) {
    return get(Q, key(CONSUMER).str(consumer).toByteArray())
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
      bad = firstProblem(text("actor", c.actor()), text("reason", c.reason()));
    }
    if (bad.isPresent()) {
      return invalid(bad.get());
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
      long seq = lastSequence + 1;
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
    return firstProblem(Scope.problem(scope),
        resource.isEmpty() ? Optional.empty() : name("resource", resource),
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
        scan(Q, new byte[] {SETTLED}, new byte[] {SETTLED + 1}, options.maxScanRecords())) {
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
          scan(Q, new byte[] {CATALOG}, new byte[] {CATALOG + 1}, options.maxScanRecords())) {
        QuotaSpec s = QuotaFormat.readSpec(QuotaFormat.storedReader(e.getValue(), "catalog"));
        if (under(s.scope(), q.scopePrefix()) && rows.size() < LIST_MAX) {
          rows.add(new QuotaAnswer.QuotaRow(s, usage(s.scope(), s.resource()).rolled(s, readNowMillis)));
        }
      }
      rows.sort(Comparator.comparing((QuotaAnswer.QuotaRow r) -> r.spec().scope())
          .thenComparing(r -> r.spec().resource()));
      return new QuotaAnswer.QuotaList(rows);
    } else if (query instanceof QuotaQuery.QuotaHistory q) {
      byte[] prefix = key(HISTORY).str(q.scope()).str(q.resource()).toByteArray();
      List<QuotaSpec> versions = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : scan(Q, prefix, after(prefix), LIST_MAX)) {
        versions.add(QuotaFormat.readSpec(QuotaFormat.storedReader(e.getValue(), "history")));
      }
      return new QuotaAnswer.History(versions);
    } else if (query instanceof QuotaQuery.ReadAudit q) {
      List<AuditRecord> records = new ArrayList<>();
      int max = Math.max(0, Math.min(q.max(), options.maxScanRecords()));
      for (Map.Entry<byte[], byte[]> e : scan(Q, key(AUDIT).i64(Math.max(0, q.fromSequence()))
          .toByteArray(), new byte[] {AUDIT + 1}, max)) {
        records.add(QuotaFormat.readAudit(QuotaFormat.storedReader(e.getValue(), "audit")));
      }
      return new QuotaAnswer.AuditList(records);
    } else if (query instanceof QuotaQuery.ListReservations q) {
      List<Reservation> out = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : scan(Q, new byte[] {RESERVATION},
          new byte[] {RESERVATION + 1}, options.maxScanRecords())) {
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
      return new QuotaAnswer.UsageBatch(events(from, max), cursor, lastSequence);
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
      return new QuotaAnswer.QuotaStatusAnswer(catalogVersion, reservations, lastSequence,
          alertsRaised, nextReservationId);
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
      byte[] prefix = key(AGGREGATE).str(scope).toByteArray();
      for (Map.Entry<byte[], byte[]> e : scan(Q, prefix, after(prefix), options.maxScanRecords())) {
        Aggregate a = readAggregateEntry(e);
        if (a.bucketStartMillis() >= firstBucket && a.bucketStartMillis() < to) {
          out.add(a);
        }
      }
    } else {
      byte[] end = aggregateKey(scope, resource, Math.max(firstBucket, to));
      for (Map.Entry<byte[], byte[]> e : scan(Q, aggregateKey(scope, resource, firstBucket), end,
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
        scan(Q, new byte[] {RESERVATION}, new byte[] {RESERVATION + 1}, Integer.MAX_VALUE)) {
      Reservation r = QuotaFormat.readReservation(QuotaFormat.storedReader(e.getValue(), "reservation"));
      outstanding++;
      for (ReservationItem item : r.items()) {
        for (LevelCharge c : item.charges()) {
          held.merge(c.levelScope() + "\n" + item.resource(), item.amount(), Long::sum);
        }
      }
    }
    if (outstanding != reservations) {
      throw new InvariantViolation("Q2 counter says " + reservations + " reservations, store holds "
          + outstanding);
    }
    for (Map.Entry<byte[], byte[]> e : scan(Q, new byte[] {LEVEL}, new byte[] {LEVEL + 1}, Integer.MAX_VALUE)) {
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
    if (lastSequence > options.maxScanRecords()) {
      List<Map.Entry<byte[], byte[]>> last =
          scan(LOG, sequenceKey(lastSequence), new byte[] {(byte) 0xFF}, 2);
      if (last.size() != 1) {
        throw new InvariantViolation("Q4 usage log counter " + lastSequence + " but " + last.size()
            + " records at or after it");
      }
      verifyCatalog();
      return;
    }
    long expectedSeq = 1;
    Set<String> reservationEventIds = new HashSet<>();
    Map<String, Long> aggregatesFromLog = new TreeMap<>();
    for (Map.Entry<byte[], byte[]> e : scan(LOG, new byte[0], new byte[] {(byte) 0xFF}, Integer.MAX_VALUE)) {
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
    if (expectedSeq - 1 != lastSequence) {
      throw new InvariantViolation("Q4 usage log ends at " + (expectedSeq - 1) + ", counter says "
          + lastSequence);
    }
    for (Map.Entry<byte[], byte[]> e :
        scan(Q, new byte[] {AGGREGATE}, new byte[] {AGGREGATE + 1}, Integer.MAX_VALUE)) {
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
    for (Map.Entry<byte[], byte[]> e : scan(Q, new byte[] {CATALOG}, new byte[] {CATALOG + 1}, Integer.MAX_VALUE)) {
      QuotaSpec s = QuotaFormat.readSpec(QuotaFormat.storedReader(e.getValue(), "catalog"));
      byte[] prefix = key(HISTORY).str(s.scope()).str(s.resource()).toByteArray();
      List<Map.Entry<byte[], byte[]>> versions = scan(Q, prefix, after(prefix), Integer.MAX_VALUE);
      QuotaSpec newest = QuotaFormat.readSpec(QuotaFormat.storedReader(
          versions.get(versions.size() - 1).getValue(), "history"));
      if (!newest.equals(s) || s.version() > catalogVersion) {
        throw new InvariantViolation("Q7 catalog entry " + s + " is not the newest version "
            + newest + " (catalog version " + catalogVersion + ")");
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
        scan(Q, new byte[] {RESERVATION}, new byte[] {RESERVATION + 1}, Integer.MAX_VALUE)) {
      Reservation r = QuotaFormat.readReservation(QuotaFormat.storedReader(e.getValue(), "reservation"));
      requireExpiry(stored, new ExpiryKey(r.expiresAtMillis(), EXPIRY_RESERVATION, r.reservationId(), 0, 0));
    }
    for (Map.Entry<byte[], byte[]> e :
        scan(Q, new byte[] {SETTLED}, new byte[] {SETTLED + 1}, Integer.MAX_VALUE)) {
      Settlement st = QuotaFormat.readSettlement(QuotaFormat.storedReader(e.getValue(), "settlement"));
      requireExpiry(stored, new ExpiryKey(st.settledAtMillis() + options.settledRetentionMillis(),
          EXPIRY_SETTLEMENT, st.reservationId(), 0, 0));
    }
    for (Map.Entry<byte[], byte[]> e :
        scan(Q, new byte[] {EVENT_ID}, new byte[] {EVENT_ID + 1}, Integer.MAX_VALUE)) {
      long[] rec = readEventIdRecord(e.getValue());
      requireExpiry(stored, new ExpiryKey(rec[1], EXPIRY_EVENT_ID, rec[0], 0, 0));
    }
  }

  private static void requireExpiry(Set<ExpiryKey> stored, ExpiryKey key) {
    if (!stored.contains(key)) {
      throw new InvariantViolation("Q3 quota record has no expiry-index record " + key);
    }
  }

  // ================================================================ records

  private Optional<QuotaSpec> spec(String scope, String resource) {
    return get(Q, catalogKey(scope, resource))
        .map(v -> QuotaFormat.readSpec(QuotaFormat.storedReader(v, "catalog " + scope + " " + resource)));
  }

  private LevelUsage usage(String scope, String resource) {
    return get(Q, key(LEVEL).str(scope).str(resource).toByteArray())
        .map(v -> QuotaFormat.readUsage(QuotaFormat.storedReader(v, "usage " + scope + " " + resource)))
        .orElse(LevelUsage.empty(scope, resource));
  }

  private void putUsage(LevelUsage u) {
    put(Q, key(LEVEL).str(u.scope()).str(u.resource()).toByteArray(),
        QuotaFormat.stored(out -> QuotaFormat.writeUsage(out, u)));
  }

  private Optional<Reservation> reservation(long id) {
    return get(Q, key(RESERVATION).i64(id).toByteArray())
        .map(v -> QuotaFormat.readReservation(QuotaFormat.storedReader(v, "reservation " + id)));
  }

  private Optional<Settlement> settlement(long id) {
    return get(Q, key(SETTLED).i64(id).toByteArray())
        .map(v -> QuotaFormat.readSettlement(QuotaFormat.storedReader(v, "settlement " + id)));
  }

  private Optional<UsageEvent> event(long sequence) {
    return get(LOG, sequenceKey(sequence))
        .map(v -> QuotaFormat.readEvent(QuotaFormat.storedReader(v, "usage event " + sequence)));
  }

  private List<UsageEvent> events(long fromSequence, int max) {
    List<UsageEvent> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e :
        scan(LOG, sequenceKey(Math.max(1, fromSequence)), new byte[] {(byte) 0xFF}, max)) {
      out.add(QuotaFormat.readEvent(QuotaFormat.storedReader(e.getValue(), "usage event")));
    }
    return out;
  }

  private List<UsageEvent> eventsOf(long reservationId) {
    byte[] prefix = key(BY_RESERVATION).i64(reservationId).toByteArray();
    List<UsageEvent> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : scan(Q, prefix, after(prefix), options.maxScanRecords())) {
      ByteReader k = keyReader(e.getKey());
      k.u8("tag");
      k.i64("reservationId");
      event(k.i64("sequence")).ifPresent(out::add);
    }
    return out;
  }

  private void audit(long now, String actor, String action, String scope, String resource,
      long version, String reason, String detail) {
    long seq = ++lastAuditSequence;
    AuditRecord a = new AuditRecord(seq, now, actor, action, scope, resource, version, reason, detail);
    put(Q, key(AUDIT).i64(seq).toByteArray(), QuotaFormat.stored(out -> QuotaFormat.writeAudit(out, a)));
  }

  private void writeMeta() {
    put(Q, META, QuotaFormat.stored(out -> out.i64(catalogVersion).i64(nextReservationId)
        .i64(lastSequence).i64(lastAuditSequence).i64(alertsRaised).i64(reservations)));
  }

  // ================================================================ keys and overlay

  private static ByteWriter key(byte tag) {
    return new ByteWriter(48).u8(tag);
  }

  private static byte[] catalogKey(String scope, String resource) {
    return key(CATALOG).str(scope).str(resource).toByteArray();
  }

  private static byte[] aggregateKey(String scope, String resource, long bucket) {
    return key(AGGREGATE).str(scope).str(resource).i64(flip(bucket)).toByteArray();
  }

  private static Aggregate readAggregateEntry(Map.Entry<byte[], byte[]> e) {
    ByteReader k = keyReader(e.getKey());
    k.u8("tag");
    String scope = k.str("scope");
    String resource = k.str("resource");
    long bucket = flip(k.i64("bucket"));
    long[] qe = readAggregate(e.getValue());
    return new Aggregate(scope, resource, bucket, qe[0], qe[1]);
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

  static byte[] sequenceKey(long sequence) {
    return new ByteWriter(8).i64(sequence).toByteArray();
  }

  private static ByteReader keyReader(byte[] key) {
    return new ByteReader(key, "quota key", m -> new InvariantViolation("corrupt quota key " + m));
  }

  private static long flip(long v) {
    return v ^ Long.MIN_VALUE;
  }

  /** The smallest key greater than every key that starts with {@code prefix}. */
  private static byte[] after(byte[] prefix) {
    byte[] out = Arrays.copyOf(prefix, prefix.length);
    for (int i = out.length - 1; i >= 0; i--) {
      if (out[i] != (byte) 0xFF) {
        out[i]++;
        return Arrays.copyOf(out, i + 1);
      }
    }
    return new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
  }

  private Optional<byte[]> get(String family, byte[] key) {
    return context.read(family, key);
  }

  private void put(String family, byte[] key, byte[] value) {
    context.changes().putRecord(family, key, value);
  }

  private void delete(String family, byte[] key) {
    context.changes().deleteRecord(family, key);
  }

  /** Committed entries in [from, to) with this entry's writes layered over them, at most max. */
  private List<Map.Entry<byte[], byte[]>> scan(String family, byte[] from, byte[] to, int max) {
    TreeMap<byte[], byte[]> writes = context.changes().records.get(family);
    java.util.NavigableMap<byte[], byte[]> pending = writes == null
        ? new TreeMap<>(Arrays::compareUnsigned) : writes.subMap(from, true, to, false);
    long deletes = pending.values().stream().filter(v -> v == Changes.DELETED).count();
    int want = (int) Math.min(Integer.MAX_VALUE, (long) max + deletes);
    TreeMap<byte[], byte[]> merged = new TreeMap<>(Arrays::compareUnsigned);
    context.store().scan(family, from, (key, value) -> {
      if (merged.size() >= want || Arrays.compareUnsigned(key, to) >= 0) {
        return false;
      }
      merged.put(key, value);
      return true;
    });
    boolean committedTruncated = merged.size() >= want;
    byte[] lastCommitted = merged.isEmpty() ? new byte[0] : merged.lastKey();
    for (Map.Entry<byte[], byte[]> e : pending.entrySet()) {
      if (e.getValue() == Changes.DELETED) {
        merged.remove(e.getKey());
      } else {
        merged.put(e.getKey(), e.getValue());
      }
    }
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>(Math.min(max, merged.size()));
    for (Map.Entry<byte[], byte[]> e : merged.entrySet()) {
      if (out.size() >= max) {
        break;
      }
      if (committedTruncated && Arrays.compareUnsigned(e.getKey(), lastCommitted) > 0) {
        break; // committed keys between here and this pending key were not read
      }
      out.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue()));
    }
    return out;
  }

  // ================================================================ validation

  private static QuotaResult invalid(String message) {
    return new QuotaResult.QuotaRejected(Outcome.INVALID_ARGUMENT, message, "", "", 0, 0);
  }

  @SafeVarargs
  private static Optional<String> firstProblem(Optional<String>... problems) {
    for (Optional<String> p : problems) {
      if (p.isPresent()) {
        return p;
      }
    }
    return Optional.empty();
  }

  private static Optional<String> name(String field, String value) {
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > MAX_NAME_BYTES) {
      return Optional.of(field + " '" + value + "' has " + bytes + " UTF-8 bytes, must be 1.."
          + MAX_NAME_BYTES);
    }
    return Optional.empty();
  }

  private static Optional<String> text(String field, String value) {
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    return bytes > MAX_TEXT_BYTES
        ? Optional.of(field + " has " + bytes + " UTF-8 bytes, at most " + MAX_TEXT_BYTES)
        : Optional.empty();
  }

  private static Optional<String> amount(String field, long value, long min) {
    return value < min || value > MAX_AMOUNT
        ? Optional.of(field + " " + value + " outside [" + min + ", " + MAX_AMOUNT + "]")
        : Optional.empty();
  }
}
