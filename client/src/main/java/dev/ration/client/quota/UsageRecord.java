package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.EventType;
import java.util.OptionalLong;

/**
 * One record of the replicated usage log: a settled reservation, an expired one, an ingested
 * event, a reconciliation's compensation or a soft-limit alert.
 *
 * @param sequence the record's place in the log, from 1, without gaps
 * @param eventId the event's id (the ledger's own ids start with {@code res:}, {@code comp:} or
 *     {@code alert:})
 * @param type what the record is
 * @param eventTime when the usage happened (ledger time); aggregates use it
 * @param recordedAt when the ledger recorded it (ledger time)
 * @param scope the scope path it was counted at
 * @param resource the resource
 * @param quantity how much (negative: allocation freed, or a compensation taking usage back)
 * @param unit the unit
 * @param reservation the reservation it belongs to, if any
 * @param overage the billable part of {@code quantity} beyond the hard limit (0 when none)
 */
public record UsageRecord(long sequence, String eventId, EventType type, LedgerTime eventTime,
    LedgerTime recordedAt, String scope, String resource, long quantity, String unit,
    OptionalLong reservation, long overage) {}
