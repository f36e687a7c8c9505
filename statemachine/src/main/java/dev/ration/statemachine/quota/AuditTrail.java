package dev.ration.statemachine.quota;

import dev.ration.wire.quota.AuditRecord;

import dev.ration.statemachine.query.QuotaAnswer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The audit log: one record per catalog change and per reconciliation, saying who did it, why
 * and what changed, so an operator can answer "who raised this limit" long after the fact.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: append-only; sequences are dense from 1 (taken from {@link QuotaCounters}).
 */
final class AuditTrail {
  private final QuotaOptions options;
  private final QuotaRecords records;
  private final QuotaCounters counters;

  AuditTrail(QuotaOptions options, QuotaRecords records, QuotaCounters counters) {
    this.options = options;
    this.records = records;
    this.counters = counters;
  }

  void append(long now, String actor, String action, String scope, String resource,
      long version, String reason, String detail) {
    long seq = counters.takeAuditSequence();
    AuditRecord a = new AuditRecord(seq, now, actor, action, scope, resource, version, reason, detail);
    records.put(QuotaRecords.Q, QuotaKeys.audit(seq),
        QuotaFormat.stored(out -> QuotaFormat.writeAudit(out, a)));
  }

  /** Records from {@code fromSequence} on, at most {@code max} (and at most one scan's worth). */
  QuotaAnswer.AuditList read(long fromSequence, int max) {
    List<AuditRecord> audit = new ArrayList<>();
    int most = Math.max(0, Math.min(max, options.maxScanRecords()));
    for (Map.Entry<byte[], byte[]> e : records.scan(QuotaRecords.Q,
        QuotaKeys.audit(Math.max(0, fromSequence)), QuotaKeys.end(QuotaKeys.AUDIT), most)) {
      audit.add(QuotaFormat.read(e.getValue(), "audit", QuotaFormat::readAudit));
    }
    return new QuotaAnswer.AuditList(audit);
  }
}
