package dev.ration.statemachine.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.ValueGenerator;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.IdempotencyGeneration;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.lease.Lease;
import dev.ration.statemachine.lease.LeaseFormat;
import dev.ration.wire.lease.Limit;
import dev.ration.statemachine.result.ResultCodec;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Goal: any bytes under any key of the lease ledger's column families (a corrupt or truncated
 * record, a record of another format version) either decode or are refused with {@link
 * StoreException}, which the store reports with its context and stops on; no other exception
 * escapes, so a corrupt directory is always named as corrupt. What decodes is canonical where
 * the format is (encoding it again gives the same bytes; a version-2 lease value, read with
 * demand 0, is instead checked to decode equal from the version-3 value written for it).
 *
 * <p>Input: byte 0 picks the record (limit, lease, idempotency key, idempotency value,
 * generation, expiry key and value, meta, format-2 idempotency key), byte 1 is the key's
 * length, then the key, then the value. Corpus: {@code StoreFormatFuzzTestInputs/decode/},
 * real encodings of each record.
 */
public class StoreFormatFuzzTest {
  static final int LIMIT = 0;
  static final int LEASE = 1;
  static final int IDEMPOTENCY_KEY = 2;
  static final int IDEMPOTENCY_VALUE = 3;
  static final int GENERATION = 4;
  static final int EXPIRY = 5;
  static final int META = 6;
  static final int FORMAT_TWO_IDEMPOTENCY_KEY = 7;
  static final int RECORDS = 8;

  @FuzzTest(maxDuration = "10s")
  void decode(byte[] input) {
    if (input.length < 2) {
      return;
    }
    int record = (input[0] & 0xFF) % RECORDS;
    int keyLength = Math.min(input[1] & 0xFF, input.length - 2);
    byte[] key = Arrays.copyOfRange(input, 2, 2 + keyLength);
    byte[] value = Arrays.copyOfRange(input, 2 + keyLength, input.length);
    try {
      check(record, key, value);
    } catch (StoreException e) {
      // The declared failure: a corrupt record, named as such.
    }
  }

  private static void check(int record, byte[] key, byte[] value) {
    switch (record) {
      case LIMIT -> {
        LeaseFormat.StoredLimit limit = LeaseFormat.readLimit(value);
        assertArrayEquals(value, LeaseFormat.limitValue(limit));
      }
      case LEASE -> {
        Lease lease = LeaseFormat.readLease(key, value);
        assertArrayEquals(key, LeaseFormat.leaseKey(lease.leaseId()));
        byte[] again = LeaseFormat.leaseValue(lease);
        if (value[0] == LeaseFormat.LEASE_FORMAT_VERSION
            || value[0] == LeaseFormat.SLOT_LEASE_FORMAT_VERSION) {
          assertArrayEquals(value, again);
        }
        assertEquals(lease, LeaseFormat.readLease(key, again));
      }
      case IDEMPOTENCY_KEY -> {
        RequestKey requestKey = StoreFormat.readIdempotencyKey(key);
        long generation = StoreFormat.readIdempotencyGeneration(key);
        assertArrayEquals(key, StoreFormat.idempotencyKey(generation, requestKey));
      }
      case IDEMPOTENCY_VALUE -> {
        IdempotencyRecord r = StoreFormat.readIdempotency(5, value);
        if (value[0] == 4) {
          assertArrayEquals(value, StoreFormat.idempotencyValue(r));
        } else {
          // Values of formats 2 and 3 (written before fingerprints or slots) are read but never
          // written again: in no slot, and a format-2 value without a fingerprint.
          assertEquals(IdempotencyRecord.NO_SLOT, r.slot());
          assertEquals(value[0] == 3, r.fingerprint().isPresent());
        }
      }
      case GENERATION -> {
        IdempotencyGeneration g = StoreFormat.readGeneration(key, value);
        assertArrayEquals(key, StoreFormat.generationKey(g.start()));
        assertArrayEquals(value, StoreFormat.generationValue(g));
      }
      case EXPIRY -> {
        ExpiryKey expiry = StoreFormat.readExpiryKey(key);
        assertArrayEquals(key, StoreFormat.expiryKey(expiry));
        StoreFormat.checkExpiryValue(value);
        assertArrayEquals(value, StoreFormat.EXPIRY_VALUE);
      }
      case META -> {
        int format = StoreFormat.metaFormat(value);
        long[] m = StoreFormat.readMeta(value, format);
        byte[] again = StoreFormat.metaValue(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]);
        if (format == StoreFormat.META_FORMAT_VERSION) {
          assertArrayEquals(value, again);
        } else {
          // Format 2 shares the layout; only the format byte differs.
          assertArrayEquals(Arrays.copyOfRange(value, 1, value.length),
              Arrays.copyOfRange(again, 1, again.length));
        }
      }
      case FORMAT_TWO_IDEMPOTENCY_KEY -> {
        RequestKey requestKey = StoreFormat.readFormatTwoIdempotencyKey(key);
        byte[] again = StoreFormat.idempotencyKey(0, requestKey);
        assertArrayEquals(key, Arrays.copyOfRange(again, 8, again.length));
      }
      default -> throw new IllegalStateException("record " + record);
    }
  }

  static byte[] input(int record, byte[] key, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(record);
    out.write(key.length);
    out.writeBytes(key);
    out.writeBytes(value);
    return out.toByteArray();
  }

  /** Seed inputs: real encodings of every record. */
  public static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    ValueGenerator generate = ValueGenerator.seeded(21);
    byte[] none = new byte[0];
    for (int i = 0; i < 3; i++) {
      Limit limit = generate.of(Limit.class);
      seeds.put("limit-" + i, input(LIMIT, none,
          LeaseFormat.limitValue(new LeaseFormat.StoredLimit(limit, i, 1000, 50, 0))));
      Lease lease = generate.of(Lease.class);
      seeds.put("lease-" + i, input(LEASE, LeaseFormat.leaseKey(lease.leaseId()),
          LeaseFormat.leaseValue(lease)));
      RequestKey requestKey = new RequestKey(i, -i, 1000 + i);
      seeds.put("idempotency-key-" + i, input(IDEMPOTENCY_KEY,
          StoreFormat.idempotencyKey(60_000L * i, requestKey), none));
      seeds.put("idempotency-value-" + i, input(IDEMPOTENCY_VALUE, none, StoreFormat.idempotencyValue(
          new IdempotencyRecord(5, 61_000 + i,
              java.util.Optional.of(dev.ration.statemachine.command.Fingerprint.of(new dev.ration.statemachine.command.Tick(i))),
              i % 3 == 0 ? IdempotencyRecord.NO_SLOT : i % 256, ResultCodec.encode(generate.result())))));
      IdempotencyGeneration g = new IdempotencyGeneration(60_000L * i, 60_000L * (i + 1), 17 * i);
      seeds.put("generation-" + i, input(GENERATION, StoreFormat.generationKey(g.start()),
          StoreFormat.generationValue(g)));
      seeds.put("expiry-" + i, input(EXPIRY,
          StoreFormat.expiryKey(new ExpiryKey(5000 + i, 4 + i, 7, 0, 0)), StoreFormat.EXPIRY_VALUE));
      seeds.put("format-two-idempotency-key-" + i, input(FORMAT_TWO_IDEMPOTENCY_KEY,
          Arrays.copyOfRange(StoreFormat.idempotencyKey(0, requestKey), 8, 32), none));
    }
    // A limit with a concurrency cap (format 3) and a lease holding slots (format 4).
    seeds.put("limit-slots", input(LIMIT, none, LeaseFormat.limitValue(new LeaseFormat.StoredLimit(
        new Limit("t", "r", 0, 0, dev.ration.wire.Mode.HARD, 1000, 100, 0,
            dev.ration.wire.Policy.FAIR_SHARE, 3), 0, 0, 0, 0, 20, 24))));
    Lease slotted = new Lease(7, "t", "r", "pool-1", 1, 9, 0, 0, 100, 1100, 1200, 0, 0, 1200, 0, 0,
        4, 6, 11);
    seeds.put("lease-slots", input(LEASE, LeaseFormat.leaseKey(7), LeaseFormat.leaseValue(slotted)));
    byte[] lease = seeds.get("lease-0");
    byte[] formatTwo = lease.clone();
    formatTwo[2 + 8] = (byte) StoreFormat.FORMAT_VERSION;
    seeds.put("lease-format-2", Arrays.copyOf(formatTwo, formatTwo.length - 16));
    byte[] meta = StoreFormat.metaValue(3, 1200, 1_700_000_000_000L, 2, 1_699_999_000_000L, 41, 99, 12);
    seeds.put("meta", input(META, none, meta));
    byte[] metaTwo = meta.clone();
    metaTwo[0] = 2;
    seeds.put("meta-format-2", input(META, none, metaTwo));
    return seeds;
  }
}
