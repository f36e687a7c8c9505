package dev.ration.statemachine.quota;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.wire.ByteReader;
import dev.ration.wire.EventType;
import dev.ration.wire.quota.Aggregate;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.UsageEvent;
import java.util.Map;
import java.util.Optional;

/**
 * Compaction of the usage log and the audit log, so that neither grows without bound. A usage
 * record is removed once it is older than the usage retention (log time) and every registered
 * consumer (one that acknowledged at least once) has acknowledged it, or once it is older than
 * the maximum usage retention whatever the consumers did; a consumer left behind that way is
 * told so when it reads (see {@link UsageLog#read}). With the record go its index entry under
 * its reservation and, if it still names this record, its event-id record. An audit record is
 * removed once it is older than the audit retention. Both logs lose only a prefix: what is kept
 * starts at {@link #firstSequence()} and {@link #firstAuditSequence()}, stored in one record
 * with the newest hour bucket of any removed usage event (the aggregates, which are never
 * removed, can then only be checked against the log for later buckets).
 *
 * <p>Role: a pure function of the stored state, the options and the ledger time Tick passes;
 * work per Tick is bounded by the Tick's item budget.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: {@code 1 <= firstSequence <= lastSequence + 1} and the same for the audit log;
 * a usage record is never removed before its retention, nor before a registered consumer
 * acknowledged it unless its maximum retention passed (checked as each record is removed).
 */
final class Retention {
  private final QuotaOptions options;
  private final QuotaRecords records;
  private final QuotaCounters counters;

  private long firstSequence = 1;
  private long firstAuditSequence = 1;
  private long lastCompactedBucket = Long.MIN_VALUE;
  /** Cache of {@link #dueMillis()}, recomputed at the end of every entry and at load. */
  private long dueMillis = Long.MAX_VALUE;

  Retention(QuotaOptions options, QuotaRecords records, QuotaCounters counters) {
    this.options = options;
    this.records = records;
    this.counters = counters;
  }

  /** At open: the committed record (a store that never compacted has none). */
  void load() {
    firstSequence = 1;
    firstAuditSequence = 1;
    lastCompactedBucket = Long.MIN_VALUE;
    records.committed(QuotaRecords.Q, QuotaKeys.RETENTION).ifPresent(value -> {
      ByteReader in = QuotaFormat.storedReader(value, "quota retention");
      firstSequence = in.i64("firstSequence");
      firstAuditSequence = in.i64("firstAuditSequence");
      lastCompactedBucket = in.i64("lastCompactedBucket");
      in.end();
    });
    requireBounds();
    refreshDue();
  }

  /** The first usage log sequence still kept (1 until something was compacted). */
  long firstSequence() {
    return firstSequence;
  }

  long firstAuditSequence() {
    return firstAuditSequence;
  }

  /** The newest hour bucket of a removed usage event, or Long.MIN_VALUE. */
  long lastCompactedBucket() {
    return lastCompactedBucket;
  }

  /** The lowest cursor of a registered consumer, or Long.MAX_VALUE if none is registered. */
  long minCursor() {
    long min = Long.MAX_VALUE;
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.CONSUMER, Integer.MAX_VALUE)) {
      ByteReader in = QuotaFormat.storedReader(e.getValue(), "consumer cursor");
      min = Math.min(min, in.i64("cursor"));
      in.end();
    }
    return min;
  }

  /** Removes at most {@code maxItems} records whose retention ended at {@code now}. */
  int compact(long now, int maxItems) {
    int removed = 0;
    long minCursor = minCursor();
    while (removed < maxItems && firstSequence <= counters.lastSequence()) {
      UsageEvent e = event(firstSequence);
      if (now < compactableAt(e, minCursor)) {
        break;
      }
      requireCompactable(e, now, minCursor);
      records.delete(QuotaRecords.LOG, QuotaKeys.sequence(e.sequence()));
      if (e.reservationId() != 0) {
        records.delete(QuotaRecords.Q, QuotaKeys.byReservation(e.reservationId(), e.sequence()));
      }
      if (e.type() == EventType.INGESTED) {
        // Normally forgotten already (the usage retention is at least the dedup retention);
        // a restart with a longer dedup retention must not leave it pointing at nothing.
        byte[] idKey = QuotaKeys.eventId(e.eventId());
        Optional<byte[]> rec = records.get(QuotaRecords.Q, idKey);
        if (rec.isPresent() && UsageLog.readEventIdRecord(rec.get()).sequence() == e.sequence()) {
          records.delete(QuotaRecords.Q, idKey);
        }
      }
      if (e.type().isUsage()) {
        lastCompactedBucket = Math.max(lastCompactedBucket, Aggregate.bucketOf(e.eventTimeMillis()));
      }
      firstSequence++;
      removed++;
    }
    while (removed < maxItems && firstAuditSequence <= counters.lastAuditSequence()) {
      AuditRecord a = audit(firstAuditSequence);
      if (now - a.atMillis() < options.auditRetentionMillis()) {
        break;
      }
      records.delete(QuotaRecords.Q, QuotaKeys.audit(a.sequence()));
      firstAuditSequence++;
      removed++;
    }
    if (removed > 0) {
      requireBounds();
      records.put(QuotaRecords.Q, QuotaKeys.RETENTION, QuotaFormat.stored(out ->
          out.i64(firstSequence).i64(firstAuditSequence).i64(lastCompactedBucket)));
    }
    return removed;
  }

  /** The earliest log time at which {@link #compact} has something to remove. */
  long dueMillis() {
    return dueMillis;
  }

  /** Recomputes {@link #dueMillis()} from the state as it is now (end of entry, load). */
  void refreshDue() {
    long due = Long.MAX_VALUE;
    if (firstSequence <= counters.lastSequence()) {
      due = compactableAt(event(firstSequence), minCursor());
    }
    if (firstAuditSequence <= counters.lastAuditSequence()) {
      due = Math.min(due, saturatedAdd(audit(firstAuditSequence).atMillis(),
          options.auditRetentionMillis()));
    }
    dueMillis = due;
  }

  /** When {@code e} may be removed, given the registered consumers' lowest cursor. */
  private long compactableAt(UsageEvent e, long minCursor) {
    return saturatedAdd(e.recordedAtMillis(), e.sequence() <= minCursor
        ? options.usageRetentionMillis() : options.usageMaxRetentionMillis());
  }

  private void requireCompactable(UsageEvent e, long now, long minCursor) {
    long age = now - e.recordedAtMillis();
    if (age < options.usageRetentionMillis()
        || (e.sequence() > minCursor && age < options.usageMaxRetentionMillis())) {
      throw new InvariantViolation("Q8 compacting usage record " + e.sequence() + " aged " + age
          + " ms (retention " + options.usageRetentionMillis() + ", max "
          + options.usageMaxRetentionMillis() + ", lowest consumer cursor " + minCursor + ")");
    }
  }

  private void requireBounds() {
    if (firstSequence < 1 || firstSequence > counters.lastSequence() + 1
        || firstAuditSequence < 1 || firstAuditSequence > counters.lastAuditSequence() + 1) {
      throw new InvariantViolation("Q8 kept usage log starts at " + firstSequence + " (last "
          + counters.lastSequence() + "), audit at " + firstAuditSequence + " (last "
          + counters.lastAuditSequence() + ")");
    }
  }

  private UsageEvent event(long sequence) {
    return records.get(QuotaRecords.LOG, QuotaKeys.sequence(sequence))
        .map(v -> QuotaFormat.read(v, "usage event " + sequence, QuotaFormat::readEvent))
        .orElseThrow(() -> new InvariantViolation("Q4 usage log has no record " + sequence
            + " between its first kept " + firstSequence + " and last " + counters.lastSequence()));
  }

  private AuditRecord audit(long sequence) {
    return records.get(QuotaRecords.Q, QuotaKeys.audit(sequence))
        .map(v -> QuotaFormat.read(v, "audit " + sequence, QuotaFormat::readAudit))
        .orElseThrow(() -> new InvariantViolation("Q8 audit log has no record " + sequence
            + " between its first kept " + firstAuditSequence + " and last "
            + counters.lastAuditSequence()));
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
