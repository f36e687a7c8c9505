package dev.ration.protocol;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.bytes;
import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.shape.Shape;

/**
 * TTL entry requests (kinds 0x20–0x2F), carried as {@link Request.Ttl}. Each record
 * declares its wire fields next to it (its SHAPE, named by its {@link Kind}); docs/PROTOCOL.md
 * lists them. Mutations (TTL_PUT, TTL_CAS, TTL_REFRESH, TTL_DELETE, TTL_NAMESPACE_SET, TTL_UPDATE) are
 * idempotent by (client id, frame request id), like every mutation. {@code ttlMillis}: 0 = already expired, −1 = no expiry. {@code expectedVersion} 0
 * means "absent or expired" for TTL_CAS and "any version" for TTL_REFRESH, TTL_DELETE and TTL_UPDATE.
 * Reads are linearizable unless {@code stale}.
 */
public sealed interface TtlRequest {
  Kind kind();

  /** Put always replaces the value and resets the TTL. */
  record Put(String namespace, String key, byte[] value, long ttlMillis) implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<Put> SHAPE =
        Shape.of(
            Put.class,
            str("namespace", Put::namespace),
            str("key", Put::key),
            bytes("value", Put::value, TtlMessages.VALUE_BYTES_MAX),
            i64("ttlMillis", Put::ttlMillis));

    public Kind kind() {
      return Kind.TTL_PUT;
    }
  }

  record CompareAndSet(String namespace, String key, long expectedVersion, byte[] value,
      long ttlMillis) implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<CompareAndSet> SHAPE =
        Shape.of(
            CompareAndSet.class,
            str("namespace", CompareAndSet::namespace),
            str("key", CompareAndSet::key),
            i64("expectedVersion", CompareAndSet::expectedVersion),
            bytes("value", CompareAndSet::value, TtlMessages.VALUE_BYTES_MAX),
            i64("ttlMillis", CompareAndSet::ttlMillis));

    public Kind kind() {
      return Kind.TTL_CAS;
    }
  }

  /**
   * Replaces the value of a live entry and keeps its expiry (a new version); expectedVersion 0
   * = any. An absent or expired entry is ENTRY_UNKNOWN.
   */
  record Update(String namespace, String key, byte[] value, long expectedVersion)
      implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<Update> SHAPE =
        Shape.of(
            Update.class,
            str("namespace", Update::namespace),
            str("key", Update::key),
            bytes("value", Update::value, TtlMessages.VALUE_BYTES_MAX),
            i64("expectedVersion", Update::expectedVersion));

    public Kind kind() {
      return Kind.TTL_UPDATE;
    }
  }

  /** Changes only the expiry (to now + ttlMillis); the value and version stay. */
  record Refresh(String namespace, String key, long ttlMillis, long expectedVersion)
      implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<Refresh> SHAPE =
        Shape.of(
            Refresh.class,
            str("namespace", Refresh::namespace),
            str("key", Refresh::key),
            i64("ttlMillis", Refresh::ttlMillis),
            i64("expectedVersion", Refresh::expectedVersion));

    public Kind kind() {
      return Kind.TTL_REFRESH;
    }
  }

  record Delete(String namespace, String key, long expectedVersion) implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<Delete> SHAPE =
        Shape.of(
            Delete.class,
            str("namespace", Delete::namespace),
            str("key", Delete::key),
            i64("expectedVersion", Delete::expectedVersion));

    public Kind kind() {
      return Kind.TTL_DELETE;
    }
  }

  record Get(String namespace, String key, boolean stale) implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<Get> SHAPE =
        Shape.of(
            Get.class,
            str("namespace", Get::namespace),
            str("key", Get::key),
            bool("stale", Get::stale));

    public Kind kind() {
      return Kind.TTL_GET;
    }
  }

  /** Live entries whose key starts with {@code prefix}, in key order, at most {@code limit}. */
  record List(String namespace, String prefix, int limit, boolean stale) implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<List> SHAPE =
        Shape.of(
            List.class,
            str("namespace", List::namespace),
            str("prefix", List::prefix),
            i32("limit", List::limit),
            bool("stale", List::stale));

    public Kind kind() {
      return Kind.TTL_LIST;
    }
  }

  /** What a full namespace does with a new entry: refuse it (the default) or evict. */
  record SetNamespace(String namespace, long maxEntries, long maxBytes, CapacityPolicy policy)
      implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<SetNamespace> SHAPE =
        Shape.of(
            SetNamespace.class,
            str("namespace", SetNamespace::namespace),
            i64("maxEntries", SetNamespace::maxEntries),
            i64("maxBytes", SetNamespace::maxBytes),
            code(
                "policy",
                SetNamespace::policy,
                CapacityPolicy::fromCode,
                CapacityPolicy::code));

    public Kind kind() {
      return Kind.TTL_NAMESPACE_SET;
    }
  }

  /** One namespace, or every namespace when {@code namespace} is empty. */
  record GetNamespaces(String namespace, boolean stale) implements TtlRequest {
    /** Its fields on the wire, in this order. */
    static final Shape<GetNamespaces> SHAPE =
        Shape.of(
            GetNamespaces.class,
            str("namespace", GetNamespaces::namespace),
            bool("stale", GetNamespaces::stale));

    public Kind kind() {
      return Kind.TTL_NAMESPACE_GET;
    }
  }

  /** One key whose current entry a {@link Watch} asks for. */
  record WatchKey(String key) {
    static final Shape<WatchKey> SHAPE = Shape.of(WatchKey.class, str("key", WatchKey::key));
  }

  /**
   * A long poll for the namespace's changes after log index {@code fromIndex} (−1: from now,
   * no changes). Answered by the leader as soon as there are changes, at once when
   * {@code waitMillis} is 0 or {@code keys} is not empty, else when {@code waitMillis} passes
   * with none. An answer is <em>confirmed</em> by a ReadIndex (its {@code throughIndex} then
   * covers every change committed before the request was sent) when it has no changes, when
   * {@code keys} is not empty, or when {@code confirm} asks for it; an answer with changes is
   * otherwise sent as soon as they are applied, without the heartbeat round. {@code keys}:
   * entries to return as of that index, for a cache that fills on a miss (at most
   * {@link #MAX_KEYS}).
   */
  record Watch(String namespace, long fromIndex, long waitMillis, java.util.List<WatchKey> keys,
      boolean confirm) implements TtlRequest {
    /** Keys one poll may ask for. */
    public static final int MAX_KEYS = 256;

    /** Its fields on the wire, in this order. */
    static final Shape<Watch> SHAPE =
        Shape.of(
            Watch.class,
            str("namespace", Watch::namespace),
            i64("fromIndex", Watch::fromIndex),
            i64("waitMillis", Watch::waitMillis),
            list("keys", Watch::keys, WatchKey.SHAPE),
            bool("confirm", Watch::confirm));

    public Watch {
      keys = java.util.List.copyOf(keys);
    }

    public Kind kind() {
      return Kind.TTL_WATCH;
    }
  }
}
