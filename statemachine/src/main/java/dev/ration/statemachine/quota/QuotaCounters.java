package dev.ration.statemachine.quota;

import dev.ration.wire.placement.SlotIds;
import dev.ration.wire.placement.Slots;
import dev.ration.statemachine.query.QuotaAnswer;
import dev.ration.wire.ByteReader;

/**
 * The quota ledger's counters, the only quota state kept in memory: the newest catalog
 * version, the next reservation id, the last usage-log and audit sequences, the alerts raised
 * and the outstanding reservations. They live in one record that the ledger rewrites after
 * every command and every expiry that changed something, so a replica that restarts, or
 * restores a checkpoint, carries on with exactly the ids and sequences every other replica
 * mints next.
 *
 * <p>Thread: the single applying thread.
 *
 * <p>Invariants: ids and sequences only grow; {@link #reservations()} is the number of stored
 * reservations and {@link #lastSequence()} the last record of the usage log (both checked by
 * {@link QuotaVerifier}).
 */
final class QuotaCounters {
  private final QuotaRecords records;

  private long catalogVersion;
  private long nextReservationId = 1;
  private long lastSequence;
  private long lastAuditSequence;
  private long alertsRaised;
  private long reservations;

  QuotaCounters(QuotaRecords records) {
    this.records = records;
  }

  /** At open: the committed counters, if the ledger ever wrote any. */
  void load() {
    records.committed(QuotaRecords.Q, QuotaKeys.META).ifPresent(value -> {
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

  /** Writes the counters record into this entry. */
  void write() {
    records.put(QuotaRecords.Q, QuotaKeys.META, QuotaFormat.stored(out -> out.i64(catalogVersion)
        .i64(nextReservationId).i64(lastSequence).i64(lastAuditSequence).i64(alertsRaised)
        .i64(reservations)));
  }

  QuotaAnswer.QuotaStatusAnswer status(long firstSequence,
      java.util.List<QuotaAnswer.BudgetFigures> budgets) {
    return new QuotaAnswer.QuotaStatusAnswer(catalogVersion, reservations, lastSequence,
        alertsRaised, nextReservationId(), firstSequence, budgets);
  }

  long catalogVersion() {
    return catalogVersion;
  }

  void catalogVersion(long version) {
    catalogVersion = version;
  }

  /** The counter part of the next reservation or budget id ({@link SlotIds#counterPart}). */
  long nextReservationId() {
    return SlotIds.counterPart(nextReservationId);
  }

  /** From now on, reservation and budget ids carry their tenant's slot. */
  void mintSlottedIds() {
    nextReservationId = SlotIds.slottedCounter(nextReservationId);
  }

  /** The id of a new reservation or budget of a tenant in scope path {@code scope}
   *  ({@link SlotIds#mint}: with the tenant's slot once the log switched ids to slots). */
  long takeReservationId(String scope) {
    return SlotIds.mint(nextReservationId++, Slots.ofPath(scope));
  }

  long reservations() {
    return reservations;
  }

  void reservationOpened() {
    reservations++;
  }

  void reservationClosed() {
    reservations--;
  }

  long lastSequence() {
    return lastSequence;
  }

  void lastSequence(long sequence) {
    lastSequence = sequence;
  }

  long lastAuditSequence() {
    return lastAuditSequence;
  }

  /** The sequence of a new audit record. */
  long takeAuditSequence() {
    return ++lastAuditSequence;
  }

  long alertsRaised() {
    return alertsRaised;
  }

  void alertRaised() {
    alertsRaised++;
  }
}
