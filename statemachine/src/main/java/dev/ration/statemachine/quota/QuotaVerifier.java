package dev.ration.statemachine.quota;

import dev.ration.statemachine.placement.MintedIds;
import dev.ration.wire.security.Tenants;

import dev.ration.statemachine.query.LevelUsage;

import dev.ration.statemachine.query.LevelCharge;

import dev.ration.statemachine.query.ReservationItem;

import dev.ration.statemachine.query.Reservation;

import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.quota.Aggregate;

import dev.ration.wire.quota.QuotaSpec;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.replica.ExpiryKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Every quota invariant check (docs/INVARIANTS.md, Q1–Q8), in one place: the incremental checks
 * the other classes make at the moment a command changes what an invariant is about, the
 * full recomputation from the store ({@link #verify}, {@link #verifyStoredExpiries}) run at
 * start, restore, snapshot install and after every entry in tests, and the checks of what is
 * held in memory ({@link #verifyInMemory}), all a snapshot runs. A violation throws
 * {@link InvariantViolation}: the replica must stop rather than diverge from the others.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: it keeps none of its own and changes nothing; it only reads.
 */
final class QuotaVerifier {
  private final QuotaOptions options;
  private final QuotaRecords records;
  private final QuotaCounters counters;
  private final QuotaCatalog catalog;
  private final Retention retention;

  QuotaVerifier(QuotaOptions options, QuotaRecords records, QuotaCounters counters,
      QuotaCatalog catalog, Retention retention) {
    this.retention = retention;
    this.options = options;
    this.records = records;
    this.counters = counters;
    this.catalog = catalog;
  }

  // Incremental checks, made where a command changes what they are about.

  /** Q1: a reservation just charged {@code spec}'s level up to {@code usedAfter}. */
  static void requireWithinCapacity(long reservationId, QuotaSpec spec, long usedAfter) {
    if (usedAfter > spec.capacity()) {
      throw new InvariantViolation("Q1 reservation " + reservationId + " takes " + spec.scope() + " "
          + spec.resource() + " to " + usedAfter + " > capacity " + spec.capacity()
          + " (limit " + spec.limit() + " overageMax " + spec.overageMax() + ")");
    }
  }

  /** Q9: a budget overdrawn by {@code amount} stays within its overdraft. */
  static void requireOverdraft(dev.ration.statemachine.query.Budget b, long amount) {
    if (amount < 0 || b.overdrawn() + amount > b.overdraft()) {
      throw new InvariantViolation("Q9 budget " + b.budgetId() + " overdrawn " + b.overdrawn()
          + " + " + amount + " > its overdraft " + b.overdraft());
    }
  }

  /** Q3: a reservation being settled was charged at a level that must still have its entry. */
  static QuotaSpec requireChargedEntry(Optional<QuotaSpec> spec, long reservationId,
      String levelScope, String resource) {
    return spec.orElseThrow(() -> new InvariantViolation("Q3 reservation " + reservationId
        + " charged " + levelScope + " " + resource + " which has no catalog entry"));
  }

  /** Q2: releasing a reservation at one level leaves nothing negative. */
  static void requireReleasable(long reservationId, String levelScope, String resource,
      long held, long windowUsed) {
    if (held < 0 || windowUsed < 0) {
      throw new InvariantViolation("Q2 settling reservation " + reservationId + " leaves "
          + levelScope + " " + resource + " held " + held + " windowUsed " + windowUsed);
    }
  }

  /**
   * Q9: a held budget (not past its earliest window's end) finds every level it is charged at
   * still in the window it was charged in.
   */
  static void requireBudgetWindow(dev.ration.statemachine.query.Budget b, LevelCharge charge,
      LevelUsage usage) {
    if (usage.windowStartMillis() != charge.windowStartMillis()) {
      throw new InvariantViolation("Q9 held budget " + b.budgetId() + " charged "
          + charge.levelScope() + " " + b.resource() + " in the window from "
          + charge.windowStartMillis() + ", the level is in the window from "
          + usage.windowStartMillis());
    }
  }

  /** Q4: the usage log only grows by the next sequence. */
  static void requireNextSequence(long sequence, long lastSequence) {
    if (sequence != lastSequence + 1) {
      throw new InvariantViolation("Q4 usage log sequence " + sequence + " after " + lastSequence);
    }
  }

  // What the ledger holds in memory: its counters and the retention bounds, no stored record.

  /**
   * The quota invariants over what the ledger holds in memory, reading no stored record (the
   * snapshot check: a snapshot holds the apply lock, and the scans of {@link #verify()} over a
   * million reservations and usage records would stall every request meanwhile). Q2: the
   * outstanding-reservation count is ≥ 0 and no more than the ids minted so far. Q4: the usage
   * and audit log counters are ≥ 0. Q7: the newest catalog version is below the replica's
   * version counter {@code nextVersion}. Q8: the kept usage and audit logs start within
   * {@code [1, last + 1]}, and a compacted hour bucket exists only once the usage log lost a
   * prefix, on the hour grid. Also checked first by {@link #verify()}.
   */
  void verifyInMemory(long nextVersion) {
    long nextReservationId = counters.nextReservationId();
    if (nextReservationId < 1 || counters.reservations() < 0
        || counters.reservations() > nextReservationId - 1) {
      throw new InvariantViolation("Q2 counters: " + counters.reservations()
          + " outstanding reservations, next reservation id " + nextReservationId);
    }
    if (counters.lastSequence() < 0 || counters.lastAuditSequence() < 0
        || counters.alertsRaised() < 0) {
      throw new InvariantViolation("Q4 counters: last usage sequence " + counters.lastSequence()
          + ", last audit sequence " + counters.lastAuditSequence() + ", alerts raised "
          + counters.alertsRaised());
    }
    if (counters.catalogVersion() < 0 || counters.catalogVersion() >= nextVersion) {
      throw new InvariantViolation("Q7 catalog version " + counters.catalogVersion()
          + " not in [0, nextVersion " + nextVersion + ")");
    }
    long first = retention.firstSequence();
    long firstAudit = retention.firstAuditSequence();
    if (first < 1 || first > counters.lastSequence() + 1
        || firstAudit < 1 || firstAudit > counters.lastAuditSequence() + 1) {
      throw new InvariantViolation("Q8 kept usage log starts at " + first + " (last "
          + counters.lastSequence() + "), audit at " + firstAudit + " (last "
          + counters.lastAuditSequence() + ")");
    }
    long bucket = retention.lastCompactedBucket();
    if (bucket != Long.MIN_VALUE && (first == 1 || Aggregate.bucketOf(bucket) != bucket)) {
      throw new InvariantViolation("Q8 compacted bucket " + bucket + " with the usage log kept from "
          + first);
    }
  }

  // Full checks, recomputed from the store.

  /**
   * Recomputes every quota invariant from the store (expensive: open and tests; a snapshot runs
   * {@link #verifyInMemory} only), after the in-memory checks.
   * Q2: each level's held amount is the sum of the outstanding reservations charged at it, and no
   * usage is negative. Q3: every level with usage has a catalog entry (the expiry records are
   * checked by {@link #verifyStoredExpiries}). Q4: the log is dense from 1 to the last sequence.
   * Q5: every reservation event id is unique (one event per settled item). Q6: aggregates equal
   * the log's usage by event time (when the log fits in one scan). Q7: the catalog holds each
   * entry's newest version.
   */
  void verify(long nextVersion) {
    verifyInMemory(nextVersion);
    Map<String, Long> held = new HashMap<>();
    long outstanding = 0;
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.RESERVATION, Integer.MAX_VALUE)) {
      Reservation r = QuotaFormat.read(e.getValue(), "reservation", QuotaFormat::readReservation);
      MintedIds.verify("Q2", "reservation", r.reservationId(), Tenants.ofPath(r.scope()),
          counters.nextReservationId());
      outstanding++;
      for (ReservationItem item : r.items()) {
        for (LevelCharge c : item.charges()) {
          held.merge(c.levelScope() + "\n" + item.resource(), item.amount(), Long::sum);
        }
      }
    }
    // A held slot budget counts its slots in the held amount of every level it is charged at.
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET, Integer.MAX_VALUE)) {
      dev.ration.statemachine.query.Budget b =
          QuotaFormat.read(e.getValue(), "budget", dev.ration.statemachine.query.Budget.SHAPE::read);
      if (b.slots() && !b.lapsed()) {
        for (LevelCharge c : b.charges()) {
          held.merge(c.levelScope() + "\n" + b.resource(), b.granted(), Long::sum);
        }
      }
    }
    if (outstanding != counters.reservations()) {
      throw new InvariantViolation("Q2 counter says " + counters.reservations()
          + " reservations, store holds " + outstanding);
    }
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.LEVEL, Integer.MAX_VALUE)) {
      LevelUsage u = QuotaFormat.read(e.getValue(), "level usage", QuotaFormat::readUsage);
      long expected = held.getOrDefault(u.scope() + "\n" + u.resource(), 0L);
      if (u.held() != expected || u.windowUsed() < 0 || u.allocated() < 0) {
        throw new InvariantViolation("Q2 level " + u.scope() + " " + u.resource() + " held "
            + u.held() + " but outstanding reservations and slot budgets hold " + expected
            + "; windowUsed "
            + u.windowUsed() + " allocated " + u.allocated());
      }
      if (catalog.spec(u.scope(), u.resource()).isEmpty()) {
        throw new InvariantViolation("Q3 usage for " + u.scope() + " " + u.resource()
            + " without a catalog entry");
      }
      held.remove(u.scope() + "\n" + u.resource());
    }
    held.values().removeIf(v -> v == 0);
    if (!held.isEmpty()) {
      throw new InvariantViolation("Q2 reservations hold " + held + " at levels with no usage record");
    }
    verifyBudgets();
    long lastSequence = counters.lastSequence();
    long firstSequence = retention.firstSequence();
    verifyRetention(firstSequence, lastSequence);
    // The whole-log checks (Q4 dense, Q5, Q6) read every record; past maxScanRecords they would
    // stall a snapshot, so a long log gets only the check that its last record is the counter's.
    if (lastSequence - firstSequence + 1 > options.maxScanRecords()) {
      List<Map.Entry<byte[], byte[]>> last = records.scan(QuotaRecords.LOG,
          QuotaKeys.sequence(lastSequence), QuotaKeys.logEnd(), 2);
      if (last.size() != 1) {
        throw new InvariantViolation("Q4 usage log counter " + lastSequence + " but " + last.size()
            + " records at or after it");
      }
      verifyCatalog();
      return;
    }
    long expectedSeq = firstSequence;
    // Aggregates keep the usage of compacted records: only later buckets are sums of the log.
    long lastCompactedBucket = retention.lastCompactedBucket();
    Set<String> reservationEventIds = new HashSet<>();
    Map<String, Long> aggregatesFromLog = new TreeMap<>();
    for (Map.Entry<byte[], byte[]> e : records.scan(QuotaRecords.LOG, QuotaKeys.logStart(),
        QuotaKeys.logEnd(), Integer.MAX_VALUE)) {
      UsageEvent event = QuotaFormat.read(e.getValue(), "usage event", QuotaFormat::readEvent);
      if (event.sequence() != expectedSeq) {
        throw new InvariantViolation("Q4 usage log has sequence " + event.sequence() + " where "
            + expectedSeq + " was due");
      }
      expectedSeq++;
      if (event.eventId().startsWith("res:") && !reservationEventIds.add(event.eventId())) {
        throw new InvariantViolation("Q5 reservation event " + event.eventId() + " emitted twice");
      }
      if (event.type().isUsage()
          && Aggregate.bucketOf(event.eventTimeMillis()) > lastCompactedBucket) {
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
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.AGGREGATE, Integer.MAX_VALUE)) {
      Aggregate a = UsageLog.readAggregateEntry(e);
      if (a.bucketStartMillis() <= lastCompactedBucket) {
        continue;
      }
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

  /**
   * Q8: the kept usage log starts at {@code firstSequence} (nothing is stored before it) and the
   * kept audit log is dense from its first kept sequence to the counter.
   */
  private void verifyRetention(long firstSequence, long lastSequence) {
    if (firstSequence < 1 || firstSequence > lastSequence + 1) {
      throw new InvariantViolation("Q8 usage log kept from " + firstSequence + " but ends at "
          + lastSequence);
    }
    List<Map.Entry<byte[], byte[]>> before = records.scan(QuotaRecords.LOG, QuotaKeys.logStart(),
        QuotaKeys.sequence(firstSequence), 1);
    if (!before.isEmpty()) {
      throw new InvariantViolation("Q8 usage log holds a record before its first kept sequence "
          + firstSequence);
    }
    // Compaction takes a record's index entry and event-id record with it: none is left behind.
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BY_RESERVATION,
        options.maxScanRecords())) {
      long seq = QuotaKeys.sequenceOfByReservation(e.getKey());
      if (seq < firstSequence) {
        throw new InvariantViolation("Q8 reservation index names compacted usage record " + seq
            + " (log kept from " + firstSequence + ")");
      }
    }
    for (byte tag : new byte[] {QuotaKeys.EVENT_ID, QuotaKeys.TENANT_EVENT_ID}) {
      for (Map.Entry<byte[], byte[]> e : records.scanTag(tag, options.maxScanRecords())) {
        long seq = UsageLog.readEventIdRecord(e.getValue()).sequence();
        if (seq < firstSequence) {
          throw new InvariantViolation("Q8 event-id record names compacted usage record " + seq
              + " (log kept from " + firstSequence + ")");
        }
      }
    }
    long expectedAudit = retention.firstAuditSequence();
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.AUDIT, options.maxScanRecords())) {
      long seq = QuotaFormat.read(e.getValue(), "audit", QuotaFormat::readAudit).sequence();
      if (seq != expectedAudit) {
        throw new InvariantViolation("Q8 audit log has sequence " + seq + " where "
            + expectedAudit + " was due");
      }
      expectedAudit++;
    }
    if (expectedAudit - 1 != counters.lastAuditSequence()
        && expectedAudit - retention.firstAuditSequence() < options.maxScanRecords()) {
      throw new InvariantViolation("Q8 audit log ends at " + (expectedAudit - 1)
          + ", counter says " + counters.lastAuditSequence());
    }
  }

  /** Q7: each catalog entry is the newest version in its history, none above the counter. */
  private void verifyCatalog() {
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.CATALOG, Integer.MAX_VALUE)) {
      QuotaSpec s = QuotaFormat.read(e.getValue(), "catalog", QuotaFormat::readSpec);
      List<Map.Entry<byte[], byte[]>> versions =
          records.scanPrefix(QuotaKeys.historyOf(s.scope(), s.resource()), Integer.MAX_VALUE);
      QuotaSpec newest = QuotaFormat.read(
          versions.get(versions.size() - 1).getValue(), "history", QuotaFormat::readSpec);
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
  /**
   * Q9: every budget has 0 ≤ spent ≤ granted, 0 ≤ overdrawn ≤ overdraft, a report sequence ≥ 0, a lease end no later than
   * its earliest window's end and that no later than its latest, an id the counter minted, and
   * charges only at levels with a windowed catalog entry; at every level, the budgets charged in
   * the level's current window count no more than its window usage.
   */
  private void verifyBudgets() {
    Map<String, Long> counted = new HashMap<>();
    Map<String, Long> unspent = new HashMap<>();
    Map<String, Long> demand = new HashMap<>();
    Map<String, Long> holders = new HashMap<>();
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET, Integer.MAX_VALUE)) {
      dev.ration.statemachine.query.Budget b =
          QuotaFormat.read(e.getValue(), "budget", dev.ration.statemachine.query.Budget.SHAPE::read);
      MintedIds.verify("Q9", "budget", b.budgetId(), Tenants.ofPath(b.scope()), counters.nextReservationId());
      if (b.slots()) {
        verifySlotBudget(b);
        continue;
      }
      if (b.spent() < 0 || b.spent() > b.granted() || b.reportSequence() < 0
          || b.overdrawn() < 0 || b.overdrawn() > b.overdraft()
          || b.expiresAtMillis() > b.windowEndMillis() || b.windowEndMillis() > b.keepUntilMillis()
          || b.charges().isEmpty()) {
        throw new InvariantViolation("Q9 budget " + b);
      }
      for (LevelCharge c : b.charges()) {
        QuotaSpec spec = requireChargedEntry(catalog.spec(c.levelScope(), b.resource()),
            b.budgetId(), c.levelScope(), b.resource());
        if (!spec.kind().windowed()) {
          throw new InvariantViolation("Q9 budget " + b.budgetId() + " charged " + spec.kind()
              + " quota " + c.levelScope() + " " + b.resource());
        }
        counted.merge(c.levelScope() + "\n" + b.resource() + "\n" + c.windowStartMillis(),
            b.granted(), Long::sum);
        unspent.merge(c.levelScope() + "\n" + b.resource() + "\n" + c.windowStartMillis(),
            b.granted() - b.spent(), Long::sum);
        demand.merge(c.levelScope() + "\n" + b.resource() + "\n" + c.windowStartMillis(),
            b.demandWeight(), Long::sum);
        holders.merge(c.levelScope() + "\n" + b.resource() + "\n" + c.windowStartMillis(),
            b.lapsed() ? 0L : 1L, Long::sum);
      }
    }
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.LEVEL, Integer.MAX_VALUE)) {
      LevelUsage u = QuotaFormat.read(e.getValue(), "level usage", QuotaFormat::readUsage);
      long inWindow = counted.getOrDefault(
          u.scope() + "\n" + u.resource() + "\n" + u.windowStartMillis(), 0L);
      if (inWindow > u.windowUsed()) {
        throw new InvariantViolation("Q9 level " + u.scope() + " " + u.resource()
            + " window from " + u.windowStartMillis() + " used " + u.windowUsed()
            + " but budgets charged in it count " + inWindow);
      }
    }
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET_TALLY, Integer.MAX_VALUE)) {
      String[] level = QuotaKeys.readBudgetTally(e.getKey());
      String scope = level[0];
      String resource = level[1];
      BudgetTally.Figures t = QuotaFormat.read(e.getValue(), "budget tally", BudgetTally::read);
      String key = scope + "\n" + resource + "\n" + t.windowStart();
      long expected = unspent.getOrDefault(key, 0L);
      if (t.unspent() != expected) {
        throw new InvariantViolation("Q9 level " + scope + " " + resource + " window from "
            + t.windowStart() + ": budgets' unspent tally " + t.unspent() + " but its budgets hold "
            + expected + " unspent");
      }
      if (t.demand() != demand.getOrDefault(key, 0L) || t.holders() != holders.getOrDefault(key, 0L)) {
        throw new InvariantViolation("Q9 level " + scope + " " + resource + " window from "
            + t.windowStart() + ": budgets' demand tally " + t.demand() + " over " + t.holders()
            + " but its budgets want " + demand.getOrDefault(key, 0L) + " over "
            + holders.getOrDefault(key, 0L));
      }
    }
  }

  /**
   * Q9 for a slot budget: 0 ≤ granted, 0 ≤ spent, no overdraft, no window, kept no longer than
   * {@link SlotBudgets#KEEP_AFTER_LAPSE_MILLIS} after its lapse, an id the counter minted, and
   * charges only at CONCURRENT entries, each level once (the held amounts are checked as Q2).
   */
  private void verifySlotBudget(dev.ration.statemachine.query.Budget b) {
    Set<String> levels = new HashSet<>();
    boolean keptRight = b.lapsed()
        ? b.keepUntilMillis() == b.expiresAtMillis() + SlotBudgets.KEEP_AFTER_LAPSE_MILLIS
        : b.keepUntilMillis() == Long.MAX_VALUE;
    if (b.granted() < 0 || b.spent() < 0 || b.reportSequence() < 0 || b.overdraft() != 0
        || b.overdrawn() != 0 || b.windowEndMillis() != Long.MAX_VALUE || !keptRight
        || b.charges().isEmpty()) {
      throw new InvariantViolation("Q9 slot budget " + b);
    }
    for (LevelCharge c : b.charges()) {
      QuotaSpec spec = requireChargedEntry(catalog.spec(c.levelScope(), b.resource()),
          b.budgetId(), c.levelScope(), b.resource());
      if (spec.kind() != dev.ration.wire.QuotaKind.CONCURRENT || c.windowStartMillis() != 0
          || !levels.add(c.levelScope())) {
        throw new InvariantViolation("Q9 slot budget " + b.budgetId() + " charged " + spec.kind()
            + " quota " + c.levelScope() + " " + b.resource() + " (window " + c.windowStartMillis()
            + ")");
      }
    }
  }

  void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {
    Set<ExpiryKey> stored = new HashSet<>();
    Map<Long, Long> settlementDue = new HashMap<>();
    walk.accept(key -> {
      stored.add(key);
      if (key.kind() == QuotaKeys.EXPIRY_SETTLEMENT) {
        settlementDue.put(key.a(), key.dueAtMillis());
      }
    });
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.RESERVATION, Integer.MAX_VALUE)) {
      Reservation r = QuotaFormat.read(e.getValue(), "reservation", QuotaFormat::readReservation);
      requireExpiry(stored, QuotaKeys.reservationEnd(r.expiresAtMillis(), r.reservationId()));
    }
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.SETTLED, Integer.MAX_VALUE)) {
      Settlement st = QuotaFormat.read(e.getValue(), "settlement", QuotaFormat::readSettlement);
      // Due after its settlement by the retention of that time, whatever the retention is now.
      Long due = settlementDue.get(st.reservationId());
      if (due == null || due <= st.settledAtMillis()) {
        throw new InvariantViolation("Q3 settlement of reservation " + st.reservationId()
            + " settled at " + st.settledAtMillis() + " has expiry record due " + due);
      }
    }
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET, Integer.MAX_VALUE)) {
      dev.ration.statemachine.query.Budget b =
          QuotaFormat.read(e.getValue(), "budget", dev.ration.statemachine.query.Budget.SHAPE::read);
      requireExpiry(stored, QuotaKeys.budgetEnd(b.dueAtMillis(), b.budgetId()));
    }
    for (Map.Entry<byte[], byte[]> e : records.scanTag(QuotaKeys.BUDGET, Integer.MAX_VALUE)) {
      dev.ration.statemachine.query.Budget b =
          QuotaFormat.read(e.getValue(), "budget", dev.ration.statemachine.query.Budget.SHAPE::read);
      requireExpiry(stored, QuotaKeys.budgetEnd(b.dueAtMillis(), b.budgetId()));
    }
    for (byte tag : new byte[] {QuotaKeys.EVENT_ID, QuotaKeys.TENANT_EVENT_ID}) {
      for (Map.Entry<byte[], byte[]> e : records.scanTag(tag, Integer.MAX_VALUE)) {
        UsageLog.EventIdRecord rec = UsageLog.readEventIdRecord(e.getValue());
        requireExpiry(stored, QuotaKeys.eventIdEnd(rec.expiresAtMillis(), rec.sequence()));
      }
    }
  }

  private static void requireExpiry(Set<ExpiryKey> stored, ExpiryKey key) {
    if (!stored.contains(key)) {
      throw new InvariantViolation("Q3 quota record has no expiry-index record " + key);
    }
  }
}
