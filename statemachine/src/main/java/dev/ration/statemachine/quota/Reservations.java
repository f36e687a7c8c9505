package dev.ration.statemachine.quota;

import dev.ration.statemachine.query.LevelUsage;

import dev.ration.statemachine.query.LevelCharge;

import dev.ration.statemachine.query.ReservationItem;

import dev.ration.statemachine.query.Reservation;

import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.quota.QuotaSpec;

import static dev.ration.statemachine.quota.Arguments.amount;
import static dev.ration.statemachine.quota.Arguments.firstProblem;
import static dev.ration.statemachine.quota.Arguments.invalid;

import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.Fingerprint;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.wire.ByteReader;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The reservation lifecycle: atomic check-and-reserve at every level of a scope path, then
 * exactly one settlement — complete (with actual quantities), cancel, or expire (at its time,
 * by Tick or by the first command that finds it past due). Settling releases the hold at every
 * level it was charged at, emits one usage event per item and keeps the settlement for the
 * settled retention, so a repeated complete or cancel gets the first answer again.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: admission never takes a level past its capacity, and is all or nothing across
 * items and levels (Q1); held amounts never go negative and equal the outstanding reservations
 * charged at each level (Q2); every outstanding reservation and kept settlement has its
 * expiry-index record, and a reservation only charges levels with catalog entries (Q3); a
 * reservation is settled once, so each item has exactly one settlement event (Q5).
 */
final class Reservations {
  private final QuotaOptions options;
  private final Arguments.NameBound names;
  private final QuotaRecords records;
  private final QuotaCounters counters;
  private final QuotaCatalog catalog;
  private final UsageLog usageLog;

  private final BudgetTally tally;

  Reservations(QuotaOptions options, Arguments.NameBound names, QuotaRecords records, QuotaCounters counters,
      QuotaCatalog catalog, UsageLog usageLog, BudgetTally tally) {
    this.tally = tally;
    this.names = names;
    this.options = options;
    this.records = records;
    this.counters = counters;
    this.catalog = catalog;
    this.usageLog = usageLog;
  }

  /** One level that counts an item: its entry and its usage rolled to now. */
  private record Level(QuotaSpec spec, LevelUsage usage) {}

  /**
   * checkAndReserve. A keyed Reserve whose key (in its scope) already made a reservation gets
   * that decision again, from any client, until the reservation's settlement is forgotten; with
   * other arguments it is refused INVALID_ARGUMENT and changes nothing. A refusal is not kept
   * under the key: it changed nothing, so a retry may decide afresh.
   */
  QuotaResult reserve(Reserve c, long now) {
    if (c.keyed()) {
      Optional<String> bad = names.check("idempotencyKey", c.idempotencyKey());
      if (bad.isPresent()) {
        return invalid(bad.get());
      }
      Optional<byte[]> kept = records.get(QuotaRecords.Q,
          QuotaKeys.reservationKey(c.scope(), c.idempotencyKey()));
      if (kept.isPresent()) {
        return keptDecision(c, kept.get());
      }
    }
    QuotaResult decision = decide(c, now);
    if (c.keyed() && decision instanceof QuotaResult.Reserved r) {
      Fingerprint f = Fingerprint.of(c);
      byte[] encoded = ResultCodec.encode(new Result.Quota(r));
      records.put(QuotaRecords.Q, QuotaKeys.reservationKey(c.scope(), c.idempotencyKey()),
          QuotaFormat.stored(out -> out.u8(f.commandCode()).raw(f.digest()).i64(r.reservationId())
              .i32(encoded.length).raw(encoded)));
      records.put(QuotaRecords.Q, QuotaKeys.keyOfReservation(r.reservationId()),
          QuotaFormat.stored(out -> out.str(c.scope()).str(c.idempotencyKey())));
    }
    return decision;
  }

  /** Each reservation judged alone, in order; a refusal fails only its own. */
  QuotaResult reserveAll(QuotaCommand.ReserveBatch c, long now) {
    if (c.reserves().isEmpty() || c.reserves().size() > QuotaCommand.ReserveBatch.MAX_RESERVES) {
      return invalid(c.reserves().size() + " reservations; a batch carries 1.."
          + QuotaCommand.ReserveBatch.MAX_RESERVES);
    }
    List<QuotaResult.ReserveAnswer> out = new ArrayList<>(c.reserves().size());
    for (Reserve r : c.reserves()) {
      QuotaResult one = reserve(r, now);
      out.add(one instanceof QuotaResult.Reserved ok
          ? new QuotaResult.ReserveAnswer(ok, null)
          : new QuotaResult.ReserveAnswer(null, (QuotaResult.QuotaRejected) one));
    }
    return new QuotaResult.ReservedBatch(out);
  }

  /** The decision kept under a reservation key, for a Reserve {@code c} presenting that key. */
  private QuotaResult keptDecision(Reserve c, byte[] value) {
    ByteReader in = QuotaFormat.storedReader(value, "reservation key " + c.idempotencyKey());
    int code = in.u8("commandCode");
    Fingerprint first = new Fingerprint(code, in.raw(Fingerprint.DIGEST_BYTES, "fingerprint"));
    long reservationId = in.i64("reservationId");
    byte[] encoded = in.raw(in.i32("decision length"), "decision");
    in.end();
    if (!first.matches(Fingerprint.of(c))) {
      return invalid("idempotency key " + c.idempotencyKey() + " in scope " + c.scope()
          + " was first used for reservation " + reservationId
          + " with other arguments; use a new idempotency key");
    }
    return ((Result.Quota) ResultCodec.decode(encoded)).result();
  }

  private QuotaResult decide(Reserve c, long now) {
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
      Optional<String> p = firstProblem(names.check("resource", item.resource()),
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
        Optional<QuotaSpec> spec = catalog.spec(level, item.resource());
        if (spec.isPresent()) {
          itemLevels.add(new Level(spec.get(),
              catalog.usage(level, item.resource()).rolled(spec.get(), now)));
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
    long id = counters.takeReservationId(c.scope());
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
        QuotaVerifier.requireWithinCapacity(id, spec, usedAfter);
        overage = Math.max(overage,
            Math.max(0, usedAfter - spec.limit()) - Math.max(0, usedBefore - spec.limit()));
        after = maybeAlert(spec, usedBefore, after, now);
        catalog.putUsage(after);
        charges.add(new LevelCharge(spec.scope(),
            spec.kind().windowed() ? after.windowStartMillis() : 0));
        unit = spec.unit();
      }
      items.add(new ReservationItem(item.resource(), item.amount(), overage, unit, charges));
      reservedItems.add(new QuotaResult.Reserved.Item(item.resource(), item.amount(), overage, unit));
    }
    Reservation r = new Reservation(id, c.scope(), items, current, now, expiresAt);
    records.put(QuotaRecords.Q, QuotaKeys.reservation(id),
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

  /**
   * A soft threshold crossed upward raises one ALERT record, once per window or crossing. A
   * windowed level is judged on its usage less what budgets hold unspent (their holders have not
   * spent it, or not yet said so).
   */
  private LevelUsage maybeAlert(QuotaSpec spec, long usedBefore, LevelUsage after, long now) {
    return alertIfCrossed(spec, after, spec.kind().windowed()
        ? after.used(spec.kind()) - tally.unspent(spec.scope(), spec.resource(), after.windowStartMillis())
        : after.used(spec.kind()), now, counters, usageLog);
  }

  /**
   * Raises one ALERT record (and counts it) when {@code usedAfter} reached the level's soft
   * threshold and the level has not alerted in this window or crossing; the usage, alerted.
   */
  static LevelUsage alertIfCrossed(QuotaSpec spec, LevelUsage after, long usedAfter, long now,
      QuotaCounters counters, UsageLog usageLog) {
    if (spec.softLimit() <= 0 || after.alerted() || usedAfter < spec.softLimit()) {
      return after;
    }
    counters.alertRaised();
    long seq = usageLog.nextSequence();
    usageLog.append(new UsageEvent(seq, "alert:" + spec.scope() + ":" + spec.resource() + ":" + seq,
        EventType.ALERT, now, now, spec.scope(), spec.resource(), usedAfter, spec.unit(), 0, 0));
    return after.with(after.windowUsed(), after.held(), after.allocated(), true);
  }

  QuotaResult complete(CompleteReservation c, long now) {
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

  QuotaResult cancel(CancelReservation c, long now) {
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

  /**
   * Tick reached a reservation's expiry record: it expires (one usage event per item) unless it
   * was settled since or its record is stale.
   */
  boolean expire(long reservationId, long dueAtMillis, long now) {
    Optional<Reservation> r = reservation(reservationId);
    if (r.isPresent() && r.get().expiresAtMillis() == dueAtMillis) {
      List<Long> amounts = r.get().items().stream().map(ReservationItem::amount).toList();
      settle(r.get(), EventType.EXPIRED, amounts, now);
      return true;
    }
    return false;
  }

  /**
   * Tick reached the end of a settlement's retention: it is forgotten. A reservation is settled
   * once, with one expiry record, so the record popped is the settlement's own. Its due time is
   * not recomputed: it holds the retention in force when the reservation settled, which a
   * restart with another settled-retention must not strand.
   */
  boolean forgetSettlement(long reservationId) {
    Optional<Settlement> s = settlement(reservationId);
    if (s.isPresent()) {
      records.delete(QuotaRecords.Q, QuotaKeys.settlement(reservationId));
      forgetKey(reservationId);
      return true;
    }
    return false;
  }

  /**
   * A keyed reservation's key goes with its settlement: the key answered for the reservation's
   * lifetime plus the settled retention, and a retry after this is a new request.
   */
  private void forgetKey(long reservationId) {
    byte[] index = QuotaKeys.keyOfReservation(reservationId);
    Optional<byte[]> key = records.get(QuotaRecords.Q, index);
    if (key.isPresent()) {
      ByteReader in = QuotaFormat.storedReader(key.get(), "key of reservation " + reservationId);
      String scope = in.str("scope");
      String idempotencyKey = in.str("idempotencyKey");
      in.end();
      records.delete(QuotaRecords.Q, QuotaKeys.reservationKey(scope, idempotencyKey));
      records.delete(QuotaRecords.Q, index);
    }
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
        QuotaSpec spec = QuotaVerifier.requireChargedEntry(
            catalog.spec(charge.levelScope(), item.resource()), r.reservationId(),
            charge.levelScope(), item.resource());
        LevelUsage u = catalog.usage(charge.levelScope(), item.resource()).rolled(spec, now);
        long windowUsed = u.windowUsed();
        if (spec.kind().windowed() && u.windowStartMillis() == charge.windowStartMillis()) {
          windowUsed -= item.amount() - q;
        }
        long held = u.held() - item.amount();
        long allocated = u.allocated() + (spec.kind() == QuotaKind.ALLOCATION ? q : 0);
        QuotaVerifier.requireReleasable(r.reservationId(), charge.levelScope(), item.resource(),
            held, windowUsed);
        LevelUsage after = u.with(windowUsed, held, allocated, u.alerted());
        if (!spec.kind().windowed() && after.alerted() && after.used(spec.kind()) < spec.softLimit()) {
          after = after.with(windowUsed, held, allocated, false); // re-armed for the next crossing
        }
        catalog.putUsage(after);
      }
      long seq = usageLog.nextSequence();
      usageLog.append(new UsageEvent(seq, "res:" + r.reservationId() + ":" + item.resource(), how,
          now, now, r.scope(), item.resource(), q, item.unit(), r.reservationId(),
          Math.min(q, item.overage())));
      sequences.add(seq);
    }
    // Its expiry record stays (the shared index is a queue); expire() will find it stale.
    records.delete(QuotaRecords.Q, QuotaKeys.reservation(r.reservationId()));
    counters.reservationClosed();
    Settlement s = new Settlement(r.reservationId(), r.scope(), how, now,
        r.items().stream().map(ReservationItem::resource).toList(), quantities);
    records.put(QuotaRecords.Q, QuotaKeys.settlement(r.reservationId()),
        QuotaFormat.stored(out -> QuotaFormat.writeSettlement(out, s)));
    records.putExpiry(QuotaKeys.settlementEnd(now + options.settledRetentionMillis(),
        r.reservationId()));
    return new QuotaResult.ReservationSettled(r.reservationId(), how, quantities, sequences, false);
  }

  /** Outstanding, unexpired reservations at or under {@code scopePrefix}, at most LIST_MAX. */
  QuotaAnswer.ReservationList list(String scopePrefix, long readNowMillis) {
    List<Reservation> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e :
        records.scanTag(QuotaKeys.RESERVATION, options.maxScanRecords())) {
      Reservation r = QuotaFormat.read(e.getValue(), "reservation", QuotaFormat::readReservation);
      if (Scope.under(r.scope(), scopePrefix) && r.expiresAtMillis() > readNowMillis
          && out.size() < QuotaLedger.LIST_MAX) {
        out.add(r);
      }
    }
    return new QuotaAnswer.ReservationList(out);
  }

  Optional<Reservation> reservation(long id) {
    return records.get(QuotaRecords.Q, QuotaKeys.reservation(id))
        .map(v -> QuotaFormat.read(v, "reservation " + id, QuotaFormat::readReservation));
  }

  Optional<Settlement> settlement(long id) {
    return records.get(QuotaRecords.Q, QuotaKeys.settlement(id))
        .map(v -> QuotaFormat.read(v, "settlement " + id, QuotaFormat::readSettlement));
  }
}
