package dev.ration.statemachine.ttl;

import dev.ration.wire.CapacityPolicy;

import dev.ration.statemachine.StoreException;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.util.Arrays;

/**
 * Keys and values of the TTL column families (big-endian; longs in keys sign-flipped so byte
 * order is numeric order; every value starts with the format version byte).
 *
 * <pre>
 * ttl_entries    key  i64 namespaceId | key UTF-8 (to the end)
 *                val  u8 fmt | i64 version | i64 expiresAt | value bytes (to the end)
 * ttl_order      key  i64 namespaceId | i64 expiresAt | i64 version   (eviction order)
 *                val  u8 fmt | key UTF-8 (to the end)
 * ttl_namespaces key  name UTF-8
 *                val  u8 fmt | i64 id | i64 maxEntries | i64 maxBytes | u8 policy | i64 entries
 *                     | i64 bytes | i64 evictedExpired | i64 evictedCapacity
 * </pre>
 */
final class TtlFormat {
  static final int FORMAT_VERSION = 1;

  private TtlFormat() {}

  /** An entry as stored; {@code value} is never mutated. */
  record Stored(long version, long expiresAtMillis, byte[] value) {}

  private static long flip(long value) {
    return value ^ Long.MIN_VALUE;
  }

  private static ByteReader reader(byte[] bytes, String what) {
    ByteReader in = new ByteReader(bytes, what,
        message -> new StoreException("corrupt ttl record " + message));
    int format = in.u8("formatVersion");
    if (format != FORMAT_VERSION) {
      throw in.fail("unknown ttl format version " + format + ", expected " + FORMAT_VERSION);
    }
    return in;
  }

  static byte[] namespacePrefix(long namespaceId) {
    return new ByteWriter(8).i64(flip(namespaceId)).toByteArray();
  }

  static byte[] entryKey(long namespaceId, byte[] keyUtf8) {
    return new ByteWriter(8 + keyUtf8.length).i64(flip(namespaceId)).raw(keyUtf8).toByteArray();
  }

  static long entryKeyNamespace(byte[] entryKey) {
    return flip(new ByteReader(entryKey, "ttl entry key",
        message -> new StoreException("corrupt " + message)).i64("namespaceId"));
  }

  static byte[] entryKeyUtf8(byte[] entryKey) {
    return Arrays.copyOfRange(entryKey, 8, entryKey.length);
  }

  static byte[] entryValue(long version, long expiresAtMillis, byte[] value) {
    return new ByteWriter(17 + value.length).u8(FORMAT_VERSION).i64(version)
        .i64(expiresAtMillis).raw(value).toByteArray();
  }

  static Stored readEntry(byte[] value) {
    ByteReader in = reader(value, "ttl entry");
    long version = in.i64("version");
    long expiresAt = in.i64("expiresAt");
    return new Stored(version, expiresAt, in.raw(in.remaining(), "value"));
  }

  static byte[] orderKey(long namespaceId, long expiresAtMillis, long version) {
    return new ByteWriter(24).i64(flip(namespaceId)).i64(flip(expiresAtMillis))
        .i64(flip(version)).toByteArray();
  }

  /** [namespaceId, expiresAt, version] of an order key. */
  static long[] readOrderKey(byte[] key) {
    ByteReader in = new ByteReader(key, "ttl order key",
        message -> new StoreException("corrupt " + message));
    long[] out = {flip(in.i64("namespaceId")), flip(in.i64("expiresAt")), flip(in.i64("version"))};
    in.end();
    return out;
  }

  static byte[] orderValue(byte[] keyUtf8) {
    return new ByteWriter(1 + keyUtf8.length).u8(FORMAT_VERSION).raw(keyUtf8).toByteArray();
  }

  static byte[] readOrderValue(byte[] value) {
    ByteReader in = reader(value, "ttl order record");
    return in.raw(in.remaining(), "key");
  }

  static byte[] namespaceValue(Namespace n) {
    return new ByteWriter(80).u8(FORMAT_VERSION).i64(n.id).i64(n.maxEntries).i64(n.maxBytes)
        .u8(n.policy.code()).i64(n.entries).i64(n.bytes).i64(n.evictedExpired)
        .i64(n.evictedCapacity).toByteArray();
  }

  static Namespace readNamespace(String name, byte[] value) {
    ByteReader in = reader(value, "ttl namespace " + name);
    long id = in.i64("id");
    long maxEntries = in.i64("maxEntries");
    long maxBytes = in.i64("maxBytes");
    int policyCode = in.u8("policy");
    CapacityPolicy policy = null;
    for (CapacityPolicy p : CapacityPolicy.values()) {
      if (p.code() == policyCode) {
        policy = p;
      }
    }
    if (policy == null) {
      throw in.fail("unknown capacity policy code " + policyCode);
    }
    Namespace n = new Namespace(name, id, maxEntries, maxBytes, policy);
    n.entries = in.i64("entries");
    n.bytes = in.i64("bytes");
    n.evictedExpired = in.i64("evictedExpired");
    n.evictedCapacity = in.i64("evictedCapacity");
    in.end();
    return n;
  }

  static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
