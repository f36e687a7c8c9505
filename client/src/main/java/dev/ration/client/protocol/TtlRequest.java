package dev.ration.client.protocol;

import dev.ration.wire.CapacityPolicy;

/**
 * TTL entry requests (kinds 0x20–0x2F), carried as {@link Request.Ttl}. Encodings in
 * {@link TtlMessages} and docs/PROTOCOL.md. Mutations (TTL_PUT, TTL_CAS, TTL_REFRESH,
 * TTL_DELETE, TTL_NAMESPACE_SET) are idempotent by (client id, frame request id), like every
 * mutation. {@code ttlMillis}: 0 = already expired, −1 = no expiry. {@code expectedVersion} 0
 * means "absent or expired" for TTL_CAS and "any version" for TTL_REFRESH and TTL_DELETE.
 * Reads are linearizable unless {@code stale}.
 */
public sealed interface TtlRequest {
  Kind kind();

  /** Put always replaces the value and resets the TTL. */
  record Put(String namespace, String key, byte[] value, long ttlMillis) implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_PUT;
    }
  }

  record CompareAndSet(String namespace, String key, long expectedVersion, byte[] value,
      long ttlMillis) implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_CAS;
    }
  }

  /** Changes only the expiry (to now + ttlMillis); the value and version stay. */
  record Refresh(String namespace, String key, long ttlMillis, long expectedVersion)
      implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_REFRESH;
    }
  }

  record Delete(String namespace, String key, long expectedVersion) implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_DELETE;
    }
  }

  record Get(String namespace, String key, boolean stale) implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_GET;
    }
  }

  /** Live entries whose key starts with {@code prefix}, in key order, at most {@code limit}. */
  record List(String namespace, String prefix, int limit, boolean stale) implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_LIST;
    }
  }

  /** What a full namespace does with a new entry: refuse it (the default) or evict. */
  record SetNamespace(String namespace, long maxEntries, long maxBytes, CapacityPolicy policy)
      implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_NAMESPACE_SET;
    }
  }

  /** One namespace, or every namespace when {@code namespace} is empty. */
  record GetNamespaces(String namespace, boolean stale) implements TtlRequest {
    public Kind kind() {
      return Kind.TTL_NAMESPACE_GET;
    }
  }
}
