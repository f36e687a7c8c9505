package dev.ration.cli;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Maps ledger time (milliseconds of the Raft log's clock, which starts near 0 when the cluster
 * is created and never follows a node's wall clock) to wall-clock instants for people: one
 * ledger reading paired with the wall time it was taken at, so
 * {@code instant = wallNow + (ledgerT - ledgerNow)}. An approximation (docs/CLI.md, "Times"):
 * off by the round trip of the reading and by however far the leader's clock rate drifted from
 * this machine's; good to well under a second, which is what an operator reads an expiry for.
 *
 * @param ledgerNowMillis the cluster's ledger time when {@code wallNow} was taken
 * @param wallNow this machine's clock at that moment
 */
record LedgerClock(long ledgerNowMillis, Instant wallNow) {
  /** A ledger time that never comes: what the ledger stores for "no expiry". */
  static final long NEVER = Long.MAX_VALUE;

  /** How an instant is printed: UTC, ISO-8601, always with milliseconds (sorts as text). */
  static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** The instant of ledger time {@code ledgerMillis}, or "never" for {@link #NEVER}. */
  String iso(long ledgerMillis) {
    if (ledgerMillis == NEVER) {
      return "never";
    }
    return ISO.format(wallNow.plusMillis(ledgerMillis - ledgerNowMillis));
  }

  /** "in 9m58s", "3s ago" or "now": {@code ledgerMillis} seen from this reading. */
  String relative(long ledgerMillis) {
    long delta = ledgerMillis - ledgerNowMillis;
    if (delta == 0) {
      return "now";
    }
    return delta > 0 ? "in " + Tables.duration(delta) : Tables.duration(-delta) + " ago";
  }
}
