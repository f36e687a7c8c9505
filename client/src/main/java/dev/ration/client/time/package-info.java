/**
 * Ledger time, the clock of the replicated state that expiries and windows are judged by; and
 * the client's own monotonic clock, which its deadlines and timers are judged by.
 */
package dev.ration.client.time;
