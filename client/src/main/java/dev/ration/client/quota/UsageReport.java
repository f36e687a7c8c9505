package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import java.util.OptionalLong;

/**
 * One usage event a service reports itself ({@link QuotaClient#ingestUsage}), for usage that
 * did not go through a reservation (metered traffic, storage freed...). The event id makes the
 * report idempotent: a report whose id the ledger recorded within its dedup retention
 * ({@code ledger.quota.dedup-retention}, 1 h) is answered as a duplicate and counted once.
 *
 * <p>{@code eventTime} is in the cluster's ledger time ({@code RationClient.status().ledgerNow()}
 * reads it); usage is aggregated by it per hour. It may be late, but not older than the dedup
 * retention, nor further ahead of the ledger than its allowed skew: such a report is refused
 * ({@code INVALID_ARGUMENT}).
 *
 * @param eventId the service's id of the event, unique per event; not starting with a prefix
 *     the ledger reserves ({@code res:}, {@code comp:}, {@code alert:})
 * @param eventTime when the usage happened, in ledger time
 * @param scope the scope path the usage is counted at (and at every level above it)
 * @param resource the resource used
 * @param quantity how much; negative only for an allocation resource (capacity freed)
 * @param unit the unit recorded with the event ("units" unless set)
 * @param reservation the reservation the usage belongs to, if any
 */
public record UsageReport(String eventId, LedgerTime eventTime, String scope, String resource,
    long quantity, String unit, OptionalLong reservation) {
  /**
   * A report, checked for what the client can check alone.
   *
   * @param eventId the service's id of the event
   * @param eventTime when the usage happened, in ledger time
   * @param scope the scope path
   * @param resource the resource used
   * @param quantity how much
   * @param unit the unit recorded with the event
   * @param reservation the reservation the usage belongs to, if any
   * @throws IllegalArgumentException on a missing or empty name, {@link LedgerTime#NEVER} as the
   *     event time, or a reservation id that is not positive
   */
  public UsageReport {
    for (String[] nv : new String[][] {{"eventId", eventId}, {"scope", scope},
        {"resource", resource}, {"unit", unit}}) {
      if (nv[1] == null || nv[1].isEmpty()) {
        throw new IllegalArgumentException(nv[0] + " must not be empty");
      }
    }
    if (eventTime == null || eventTime.isNever()) {
      throw new IllegalArgumentException("eventTime must be a finite ledger time, was " + eventTime);
    }
    if (reservation == null || (reservation.isPresent() && reservation.getAsLong() <= 0)) {
      throw new IllegalArgumentException("reservation must be empty or a positive id, was " + reservation);
    }
  }

  /**
   * A report of {@code quantity} units of {@code resource} at {@code scope}, in no reservation.
   *
   * @param eventId the service's id of the event
   * @param eventTime when the usage happened, in ledger time
   * @param scope the scope path
   * @param resource the resource used
   * @param quantity how much
   * @return the report, unit "units"
   */
  public static UsageReport of(String eventId, LedgerTime eventTime, String scope, String resource,
      long quantity) {
    return new UsageReport(eventId, eventTime, scope, resource, quantity, "units", OptionalLong.empty());
  }

  /**
   * This report with another unit.
   *
   * @param v the unit
   * @return the report
   */
  public UsageReport withUnit(String v) {
    return new UsageReport(eventId, eventTime, scope, resource, quantity, v, reservation);
  }

  /**
   * This report, belonging to reservation {@code id}.
   *
   * @param id the reservation's id, positive
   * @return the report
   */
  public UsageReport forReservation(long id) {
    return new UsageReport(eventId, eventTime, scope, resource, quantity, unit, OptionalLong.of(id));
  }
}
