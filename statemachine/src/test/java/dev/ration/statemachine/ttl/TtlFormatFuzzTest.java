package dev.ration.statemachine.ttl;

import dev.ration.wire.CapacityPolicy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.statemachine.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Goal: any bytes in the TTL column families (entry values, eviction-order keys and values,
 * namespace records, entry keys) either decode or are refused with {@link StoreException}; no
 * other exception escapes. What decodes is canonical: encoding it again gives the same bytes.
 *
 * <p>Input: byte 0 picks the record (entry value, order key, order value, namespace value,
 * entry key), the rest is its bytes. Corpus: {@code TtlFormatFuzzTestInputs/decode/}, real
 * encodings of each record.
 */
public class TtlFormatFuzzTest {
  static final int ENTRY_VALUE = 0;
  static final int ORDER_KEY = 1;
  static final int ORDER_VALUE = 2;
  static final int NAMESPACE = 3;
  static final int ENTRY_KEY = 4;
  static final int RECORDS = 5;

  @FuzzTest(maxDuration = "10s")
  void decode(byte[] input) {
    if (input.length < 1) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    try {
      check((input[0] & 0xFF) % RECORDS, bytes);
    } catch (StoreException e) {
      // The declared failure: a corrupt record, named as such.
    }
  }

  private static void check(int record, byte[] bytes) {
    switch (record) {
      case ENTRY_VALUE -> {
        TtlFormat.Stored s = TtlFormat.readEntry(bytes);
        assertArrayEquals(bytes, TtlFormat.entryValue(s.version(), s.expiresAtMillis(), s.value()));
      }
      case ORDER_KEY -> {
        long[] o = TtlFormat.readOrderKey(bytes);
        assertArrayEquals(bytes, TtlFormat.orderKey(o[0], o[1], o[2]));
      }
      case ORDER_VALUE -> assertArrayEquals(bytes,
          TtlFormat.orderValue(TtlFormat.readOrderValue(bytes)));
      case NAMESPACE -> {
        Namespace n = TtlFormat.readNamespace("ns", bytes);
        assertEquals("ns", n.name);
        assertArrayEquals(bytes, TtlFormat.namespaceValue(n));
      }
      case ENTRY_KEY -> {
        long namespace = TtlFormat.entryKeyNamespace(bytes);
        assertArrayEquals(bytes, TtlFormat.entryKey(namespace, TtlFormat.entryKeyUtf8(bytes)));
      }
      default -> throw new IllegalStateException("record " + record);
    }
  }

  private static byte[] input(int record, byte[] bytes) {
    byte[] out = new byte[1 + bytes.length];
    out[0] = (byte) record;
    System.arraycopy(bytes, 0, out, 1, bytes.length);
    return out;
  }

  /** Seed inputs: real encodings of every record. */
  public static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    byte[] key = "locks/leader".getBytes(StandardCharsets.UTF_8);
    seeds.put("entry-value", input(ENTRY_VALUE, TtlFormat.entryValue(3, 1_700_000_060_000L,
        "n1:7101".getBytes(StandardCharsets.UTF_8))));
    seeds.put("entry-value-no-expiry", input(ENTRY_VALUE, TtlFormat.entryValue(1, Long.MAX_VALUE,
        new byte[0])));
    seeds.put("order-key", input(ORDER_KEY, TtlFormat.orderKey(2, 1_700_000_060_000L, 3)));
    seeds.put("order-value", input(ORDER_VALUE, TtlFormat.orderValue(key)));
    Namespace n = new Namespace("locks", 2, 1000, 1 << 20, CapacityPolicy.EVICT_SOONEST_EXPIRING);
    n.entries = 12;
    n.bytes = 4096;
    n.evictedExpired = 3;
    n.evictedCapacity = 1;
    seeds.put("namespace", input(NAMESPACE, TtlFormat.namespaceValue(n)));
    seeds.put("namespace-reject", input(NAMESPACE, TtlFormat.namespaceValue(
        new Namespace("sessions", 7, 0, 0, CapacityPolicy.REJECT))));
    seeds.put("entry-key", input(ENTRY_KEY, TtlFormat.entryKey(2, key)));
    return seeds;
  }
}
