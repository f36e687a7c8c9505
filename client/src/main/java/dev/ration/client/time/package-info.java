/** Ledger time, the clock of the replicated state that expiries and windows are judged by. */
package dev.ration.client.time;
