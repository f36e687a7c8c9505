package dev.ration.statemachine.quota;

import dev.ration.statemachine.query.LevelUsage;

import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.quota.Aggregate;

import dev.ration.wire.quota.QuotaSpec;

import static dev.ration.statemachine.quota.Arguments.firstProblem;
import static dev.ration.statemachine.quota.Arguments.invalid;

import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.ByteReader;
import dev.ration.wire.EventType;
import dev.ration.wire.QuotaKind;
import java.util.ArrayList;
import dev.ration.wire.security.Tenants;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The append-only usage log that billing and other consumers read: ingested events (deduplicated
 * by event id for the dedup retention), the ledger's own settlement, alert and compensation
 * events, hour aggregates by event time at every level of the scope path, an index of each
 * reservation's events, and each consumer's acknowledged cursor.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: sequences are dense from 1 and nothing is rewritten (Q4: a repair is a new
 * compensating record); each aggregate is the sum of the log's usage events in its bucket (Q6);
 * an ingested event id is remembered, with its expiry-index record, until its retention ends;
 * a consumer's cursor never moves back nor past the last sequence. {@link Retention} removes a
 * prefix of the log once its retention ended (Q8); sequences stay dense from the first kept.
 */
final class UsageLog {
  private final QuotaOptions options;
  private final Arguments.NameBound names;
  private final QuotaRecords records;
  private final QuotaCounters counters;
  private final QuotaCatalog catalog;
  private final Retention retention;

  UsageLog(QuotaOptions options, Arguments.NameBound names, QuotaRecords records, QuotaCounters counters,
      QuotaCatalog catalog, Retention retention) {
    this.retention = retention;
    this.names = names;
    this.options = options;
    this.records = records;
    this.counters = counters;
    this.catalog = catalog;
  }

  /** The sequence the next appended record gets. */
  long nextSequence() {
    return counters.lastSequence() + 1;
  }

  QuotaResult ingest(IngestUsage c, long now) {
    Optional<String> bad = firstProblem(
        names.check("eventId", c.eventId()),
        Scope.problem(c.scope()),
        names.check("resource", c.resource()),
        names.check("unit", c.unit()),
        Math.abs(c.quantity()) > QuotaLedger.MAX_AMOUNT
            ? Optional.of("quantity " + c.quantity() + " beyond ±" + QuotaLedger.MAX_AMOUNT)
            : Optional.empty(),
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
    if (c.perTenant()) {
      Optional<QuotaResult> earlier = seenInTenant(c);
      if (earlier.isPresent()) {
        return earlier.get();
      }
    } else {
      Optional<byte[]> seen = records.get(QuotaRecords.Q, QuotaKeys.eventId(c.eventId()));
      if (seen.isPresent()) {
        return new QuotaResult.UsageIngested(readEventIdRecord(seen.get()).sequence(), true);
      }
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
      catalog.spec(level, c.resource()).filter(s -> s.kind() == QuotaKind.ALLOCATION)
          .ifPresent(allocations::add);
    }
    if (c.quantity() < 0 && allocations.isEmpty()) {
      return invalid("negative quantity " + c.quantity() + " is only for allocation resources; "
          + c.scope() + " " + c.resource() + " has no allocation entry");
    }
    long seq = nextSequence();
    append(new UsageEvent(seq, c.eventId(), EventType.INGESTED, c.eventTimeMillis(), now,
        c.scope(), c.resource(), c.quantity(), c.unit(), c.reservationId(), 0), c.perTenant());
    if (c.quantity() < 0) {
      // Released allocation (e.g. storage freed) frees capacity at every allocation level.
      for (QuotaSpec spec : allocations) {
        LevelUsage u = catalog.usage(spec.scope(), spec.resource());
        long allocated = Math.max(0, u.allocated() + c.quantity());
        LevelUsage after = u.with(u.windowUsed(), u.held(), allocated, u.alerted());
        if (after.alerted() && after.used(spec.kind()) < spec.softLimit()) {
          after = after.with(after.windowUsed(), after.held(), allocated, false);
        }
        catalog.putUsage(after);
      }
    }
    return new QuotaResult.UsageIngested(seq, false);
  }

  /**
   * The answer to an event whose id the tenant of its scope already used within the dedup
   * retention: the same event again is a duplicate (answered with the first one's sequence);
   * other content under the id is refused, since dropping it would lose usage silently. Ids
   * ingested before per-tenant dedup existed ('D' records) count when their event is the
   * same tenant's.
   */
  private Optional<QuotaResult> seenInTenant(IngestUsage c) {
    String tenant = Tenants.ofPath(c.scope());
    Optional<byte[]> seen = records.get(QuotaRecords.Q, QuotaKeys.tenantEventId(tenant, c.eventId()))
        .or(() -> records.get(QuotaRecords.Q, QuotaKeys.eventId(c.eventId()))
            .filter(v -> event(readEventIdRecord(v).sequence())
                .map(e -> Tenants.ofPath(e.scope()).equals(tenant)).orElse(false)));
    if (seen.isEmpty()) {
      return Optional.empty();
    }
    long sequence = readEventIdRecord(seen.get()).sequence();
    Optional<UsageEvent> first = event(sequence);
    if (first.isPresent() && !sameEvent(first.get(), c)) {
      UsageEvent f = first.get();
      return Optional.of(invalid("event id " + c.eventId() + " was already used in tenant "
          + tenant + " for another event (sequence " + sequence + ": " + f.scope() + " "
          + f.resource() + " " + f.quantity() + " " + f.unit() + " at " + f.eventTimeMillis()
          + "); an event id names one event: use a new id"));
    }
    return Optional.of(new QuotaResult.UsageIngested(sequence, true));
  }

  private static boolean sameEvent(UsageEvent e, IngestUsage c) {
    return e.scope().equals(c.scope()) && e.resource().equals(c.resource())
        && e.quantity() == c.quantity() && e.unit().equals(c.unit())
        && e.eventTimeMillis() == c.eventTimeMillis() && e.reservationId() == c.reservationId();
  }

  /** Appends one record: log, aggregates, reservation index; see {@link #append(UsageEvent, boolean)}. */
  void append(UsageEvent e) {
    append(e, false);
  }

  /**
   * Appends one record: log, event-id record (with its retention; per tenant when
   * {@code perTenant}), aggregates, reservation index.
   */
  void append(UsageEvent e, boolean perTenant) {
    QuotaVerifier.requireNextSequence(e.sequence(), counters.lastSequence());
    counters.lastSequence(e.sequence());
    records.put(QuotaRecords.LOG, QuotaKeys.sequence(e.sequence()),
        QuotaFormat.stored(out -> QuotaFormat.writeEvent(out, e)));
    if (e.type() == EventType.INGESTED) {
      // Only a service's own ids can repeat: the ledger's (res:, comp:, alert:) are unique by
      // construction and ingest refuses those prefixes, so they need no dedup record.
      long idExpires = e.recordedAtMillis() + options.dedupRetentionMillis();
      records.put(QuotaRecords.Q, perTenant
              ? QuotaKeys.tenantEventId(Tenants.ofPath(e.scope()), e.eventId())
              : QuotaKeys.eventId(e.eventId()),
          QuotaFormat.stored(out -> out.i64(e.sequence()).i64(idExpires)));
      records.putExpiry(QuotaKeys.eventIdEnd(idExpires, e.sequence()));
    }
    if (e.type().isUsage()) {
      long bucket = Aggregate.bucketOf(e.eventTimeMillis());
      for (String level : Scope.levels(e.scope())) {
        byte[] k = QuotaKeys.aggregate(level, e.resource(), bucket);
        long[] qe = records.get(QuotaRecords.Q, k).map(UsageLog::readAggregate).orElse(new long[2]);
        records.put(QuotaRecords.Q, k,
            QuotaFormat.stored(out -> out.i64(qe[0] + e.quantity()).i64(qe[1] + 1)));
      }
    }
    if (e.reservationId() != 0) {
      records.put(QuotaRecords.Q, QuotaKeys.byReservation(e.reservationId(), e.sequence()),
          QuotaFormat.stored(out -> {}));
    }
  }

  QuotaResult ack(AckUsage c) {
    Optional<String> bad = names.check("consumer", c.consumer());
    if (bad.isPresent()) {
      return invalid(bad.get());
    }
    if (c.sequence() < 0 || c.sequence() > counters.lastSequence()) {
      return invalid("ack of sequence " + c.sequence() + " outside [0, last "
          + counters.lastSequence() + "]");
    }
    // A consumer's first ack registers it; it has no claim on records compacted before that.
    long current = registered(c.consumer()) ? cursor(c.consumer()) : retention.firstSequence() - 1;
    long cursor = Math.max(current, c.sequence());
    records.put(QuotaRecords.Q, QuotaKeys.consumer(c.consumer()),
        QuotaFormat.stored(out -> out.i64(cursor)));
    return new QuotaResult.UsageAcked(c.consumer(), cursor);
  }

  private boolean registered(String consumer) {
    return records.get(QuotaRecords.Q, QuotaKeys.consumer(consumer)).isPresent();
  }

  private long cursor(String consumer) {
    return records.get(QuotaRecords.Q, QuotaKeys.consumer(consumer))
        .map(v -> {
          ByteReader in = QuotaFormat.storedReader(v, "consumer " + consumer);
          long cursor = in.i64("cursor");
          in.end();
          return cursor;
        })
        .orElse(0L);
  }

  /**
   * Tick reached the end of the dedup retention of the event at {@code sequence}: forgets its
   * id, unless the id was ingested again since (then the record names a newer sequence).
   */
  boolean forgetEventId(long sequence) {
    Optional<UsageEvent> event = event(sequence);
    if (event.isPresent()) {
      for (byte[] idKey : List.of(QuotaKeys.eventId(event.get().eventId()),
          QuotaKeys.tenantEventId(Tenants.ofPath(event.get().scope()), event.get().eventId()))) {
        Optional<byte[]> rec = records.get(QuotaRecords.Q, idKey);
        if (rec.isPresent() && readEventIdRecord(rec.get()).sequence() == sequence) {
          records.delete(QuotaRecords.Q, idKey);
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Records after the consumer's cursor (or from {@code fromSequence}), at most {@code max}; or,
   * if compaction removed records the read asks for (a registered consumer whose cursor is
   * before the first kept record, or a start before it), {@link QuotaAnswer.UsageCompacted}
   * rather than a batch that silently skips them. A consumer that never acknowledged reads
   * from the first kept record.
   */
  QuotaAnswer read(String consumer, long fromSequence, int max) {
    long first = retention.firstSequence();
    boolean registered = !consumer.isEmpty() && registered(consumer);
    long cursor = registered ? cursor(consumer) : 0;
    if (fromSequence > 0 && fromSequence < first) {
      return new QuotaAnswer.UsageCompacted(consumer, fromSequence - 1, first, "usage records "
          + fromSequence + ".." + (first - 1) + " were compacted (older than the usage retention "
          + options.usageRetentionMillis() + " ms and acknowledged by every consumer, or older "
          + "than the maximum usage retention " + options.usageMaxRetentionMillis()
          + " ms); the log starts at " + first);
    }
    if (fromSequence <= 0 && registered && cursor < first - 1) {
      return new QuotaAnswer.UsageCompacted(consumer, cursor, first, "consumer " + consumer
          + " stalled past the maximum usage retention (" + options.usageMaxRetentionMillis()
          + " ms): records " + (cursor + 1) + ".." + (first - 1) + " after its cursor " + cursor
          + " were compacted and are lost to it; the log starts at " + first
          + ". Acknowledge sequence " + (first - 1) + " to go on from there");
    }
    long from = fromSequence > 0 ? fromSequence : Math.max(cursor + 1, first);
    int most = Math.max(0, Math.min(max, options.maxScanRecords()));
    return new QuotaAnswer.UsageBatch(events(from, most), cursor, counters.lastSequence());
  }

  QuotaAnswer.AggregateList aggregateUsage(String scope, String resource, long from, long to) {
    List<Aggregate> buckets = aggregates(scope, resource, from, to);
    long total = buckets.stream().mapToLong(Aggregate::quantity).sum();
    return new QuotaAnswer.AggregateList(buckets, total);
  }

  Optional<UsageEvent> event(long sequence) {
    return records.get(QuotaRecords.LOG, QuotaKeys.sequence(sequence))
        .map(v -> QuotaFormat.read(v, "usage event " + sequence, QuotaFormat::readEvent));
  }

  List<UsageEvent> events(long fromSequence, int max) {
    List<UsageEvent> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : records.scan(QuotaRecords.LOG,
        QuotaKeys.sequence(Math.max(1, fromSequence)), QuotaKeys.logEnd(), max)) {
      out.add(QuotaFormat.read(e.getValue(), "usage event", QuotaFormat::readEvent));
    }
    return out;
  }

  /** The usage events recorded against one reservation, in log order. */
  List<UsageEvent> eventsOf(long reservationId) {
    List<UsageEvent> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e :
        records.scanPrefix(QuotaKeys.byReservationOf(reservationId), options.maxScanRecords())) {
      event(QuotaKeys.sequenceOfByReservation(e.getKey())).ifPresent(out::add);
    }
    return out;
  }

  /** Aggregates of exactly {@code scope} ({@code resource} "" = all) with buckets in [from, to). */
  List<Aggregate> aggregates(String scope, String resource, long from, long to) {
    List<Aggregate> out = new ArrayList<>();
    long firstBucket = Aggregate.bucketOf(from);
    if (resource.isEmpty()) {
      for (Map.Entry<byte[], byte[]> e :
          records.scanPrefix(QuotaKeys.aggregatesOf(scope), options.maxScanRecords())) {
        Aggregate a = readAggregateEntry(e);
        if (a.bucketStartMillis() >= firstBucket && a.bucketStartMillis() < to) {
          out.add(a);
        }
      }
    } else {
      byte[] end = QuotaKeys.aggregate(scope, resource, Math.max(firstBucket, to));
      for (Map.Entry<byte[], byte[]> e : records.scan(QuotaRecords.Q,
          QuotaKeys.aggregate(scope, resource, firstBucket), end, options.maxScanRecords())) {
        Aggregate a = readAggregateEntry(e);
        if (a.bucketStartMillis() < to) {
          out.add(a);
        }
      }
    }
    return out;
  }

  static Aggregate readAggregateEntry(Map.Entry<byte[], byte[]> e) {
    QuotaKeys.AggregateKey k = QuotaKeys.readAggregate(e.getKey());
    long[] qe = readAggregate(e.getValue());
    return new Aggregate(k.scope(), k.resource(), k.bucketStartMillis(), qe[0], qe[1]);
  }

  /** [quantity, events] of an aggregate record. */
  private static long[] readAggregate(byte[] value) {
    ByteReader in = QuotaFormat.storedReader(value, "aggregate");
    long[] qe = {in.i64("quantity"), in.i64("events")};
    in.end();
    return qe;
  }

  /** An ingested event id's record: the sequence it was logged at and when it is forgotten. */
  record EventIdRecord(long sequence, long expiresAtMillis) {}

  static EventIdRecord readEventIdRecord(byte[] value) {
    ByteReader in = QuotaFormat.storedReader(value, "event id");
    long sequence = in.i64("sequence");
    long expiresAt = in.i64("expiresAt");
    in.end();
    return new EventIdRecord(sequence, expiresAt);
  }
}
