package dev.ration.statemachine.ttl;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.CapacityPolicy;

/**
 * A namespace in memory: its capacity and counters (entries themselves stay in RocksDB).
 * Mutable, owned by the {@link TtlLedger} on the applying thread; {@link #view()} snapshots it.
 */
final class Namespace {
  final String name;
  /** Minted from the global version counter at creation; keys the stored records. */
  final long id;
  long maxEntries;
  long maxBytes;
  CapacityPolicy policy;
  long entries;
  long bytes;
  long evictedExpired;
  long evictedCapacity;

  Namespace(String name, long id, long maxEntries, long maxBytes, CapacityPolicy policy) {
    this.name = name;
    this.id = id;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.policy = policy;
  }

  NamespaceView view() {
    return new NamespaceView(name, maxEntries, maxBytes, policy, entries, bytes, evictedExpired,
        evictedCapacity);
  }
}
