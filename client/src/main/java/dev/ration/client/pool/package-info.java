/**
 * A bounded worker pool for services that call a downstream dependency: a fixed set of worker
 * threads, a bounded queue, cooperative cancellation, retries owned by the pool, and a
 * concurrency that comes from a {@link dev.ration.client.pool.SlotSource} (a fixed number
 * today, a share of a fleet-wide cap leased from the ledger later). See docs/POOL.md.
 */
package dev.ration.client.pool;
