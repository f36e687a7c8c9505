package dev.ration.statemachine.store;

import dev.ration.wire.placement.Slots;

import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.command.Fingerprint;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.IdempotencyGeneration;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.statemachine.result.ResultFormatException;
import java.util.Arrays;
import java.util.Optional;

/**
 * Keys and values of the RocksDB column families (big-endian; every value starts with the
 * format version byte {@link #FORMAT_VERSION}).
 *
 * <pre>
 * limits, leases: the lease ledger's records (LeaseFormat); TTL and quota families: theirs
 * idempotency key  i64 generation start (sign-flipped) | i64 clientHigh | i64 clientLow
 *                  | i64 sequence
 *             val  u8 idemFmt (3) | i64 expiresAt | u8 commandCode | 16 bytes fingerprint
 *                  | encoded result (ResultCodec) to the end
 *                  (idemFmt 2, still read: u8 2 | i64 expiresAt | encoded result)
 * expiry      key  i64 dueAt | u8 kind | i64 a | i64 b | i64 c (all longs sign-flipped, so
 *                  byte order is (dueAt, kind, a, b, c) order: Tick's order); since format 3
 *                  no lease kinds (kept in memory) and no kind 3 (idempotency ends, retired)
 *             val  u8 fmt
 * meta        key  "ledger"
 *             val  u8 metaFmt (3) | i64 appliedTerm | i64 appliedIndex | i64 now | i64 epoch
 *                  | i64 epochStart | i64 nextLeaseId | i64 nextVersion | i64 idempotencyRecords
 *             key  "idemgen" | i64 start (sign-flipped): one live idempotency generation
 *             val  u8 fmt | i64 end | i64 count
 * </pre>
 *
 * Only integers: no floats in replicated state. Version 2 added the idempotency record counter
 * to meta (records and their expiry keys are no longer loaded into memory, so the count is kept
 * rather than counted); version 1 stores are refused.
 * {@link #META_FORMAT_VERSION} 3 (the meta record only) marks stores whose idempotency records
 * are kept in generations (key prefix, range-deleted whole) instead of one expiry-index record
 * each; a store with meta format 2 is migrated at open ({@link FormatTwoMigration}).
 *
 * <p>{@link #IDEMPOTENCY_FORMAT_VERSION} 3 (idempotency values only) binds each record to the
 * fingerprint of the request it answered (command code and a digest of its log encoding), so a
 * request key reused for another request is refused instead of answered (invariant I9). Values
 * of format 2 have no fingerprint; they are still read, answered as before, and all expire
 * within one idempotency retention after the upgrade, so no migration rewrites them. Format 4
 * adds the slot the request acted in (i32, -1 for none), so a slot's records can move with it;
 * format 3 values are read as in no slot. A build that knows fewer formats cannot read the
 * newer values: a directory or snapshot written by this build must not be opened by an older
 * one (docs/OPERATIONS.md, "State directory format").
 */
final class StoreFormat {
  static final int FORMAT_VERSION = 2;
  /** Idempotency values only: 4 = with the request's fingerprint and slot; 3 (fingerprint, no
   *  slot) and 2 (neither) are still read. */
  static final int IDEMPOTENCY_FORMAT_VERSION = 4;
  private static final int IDEMPOTENCY_WITHOUT_SLOT = 3;
  static final byte[] META_KEY = {'l', 'e', 'd', 'g', 'e', 'r'};
  /** The meta record only: version 3 = idempotency generations (see the class comment). */
  static final int META_FORMAT_VERSION = 3;
  static final byte[] GENERATION_KEY_PREFIX = {'i', 'd', 'e', 'm', 'g', 'e', 'n'};

  private StoreFormat() {}

  private static ByteReader reader(byte[] bytes, String what) {
    ByteReader in = new ByteReader(bytes, what, message -> new StoreException("corrupt store record " + message));
    int format = in.u8("formatVersion");
    if (format != FORMAT_VERSION) {
      throw in.fail("unknown store format version " + format + ", expected " + FORMAT_VERSION);
    }
    return in;
  }

  private static long flip(long value) {
    return value ^ Long.MIN_VALUE;
  }

  static byte[] idempotencyKey(long generation, RequestKey key) {
    return new ByteWriter(32).i64(flip(generation)).i64(key.clientHigh()).i64(key.clientLow())
        .i64(key.sequence()).toByteArray();
  }

  /** The first key of a generation's records (inclusive bound of its range delete). */
  static byte[] generationFirstKey(long generation) {
    return new ByteWriter(8).i64(flip(generation)).toByteArray();
  }

  /**
   * Above every key of a generation's records (exclusive bound of its range delete): the
   * 8-byte prefix followed by 25 bytes of 0xFF, longer than any 32-byte key with that prefix.
   */
  static byte[] generationPastKey(long generation) {
    byte[] past = Arrays.copyOf(generationFirstKey(generation), 33);
    Arrays.fill(past, 8, 33, (byte) 0xFF);
    return past;
  }

  /** The generation start of a stored idempotency key. */
  static long readIdempotencyGeneration(byte[] key) {
    ByteReader k = new ByteReader(key, "idempotency key", message -> new StoreException("corrupt " + message));
    return flip(k.i64("generation"));
  }

  /** A format-2 idempotency key: the request key alone (no generation prefix). */
  static RequestKey readFormatTwoIdempotencyKey(byte[] key) {
    ByteReader k = new ByteReader(key, "format-2 idempotency key", message -> new StoreException("corrupt " + message));
    RequestKey requestKey = new RequestKey(k.i64("clientHigh"), k.i64("clientLow"), k.i64("sequence"));
    k.end();
    return requestKey;
  }

  static RequestKey readIdempotencyKey(byte[] key) {
    ByteReader k = new ByteReader(key, "idempotency key", message -> new StoreException("corrupt " + message));
    k.i64("generation");
    RequestKey requestKey = new RequestKey(k.i64("clientHigh"), k.i64("clientLow"), k.i64("sequence"));
    k.end();
    return requestKey;
  }

  static byte[] idempotencyValue(IdempotencyRecord record) {
    Fingerprint fingerprint = record.fingerprint().orElseThrow(() -> new IllegalArgumentException(
        "an idempotency record is written with the fingerprint of its request"));
    return new ByteWriter(36 + record.encodedResult().length).u8(IDEMPOTENCY_FORMAT_VERSION)
        .i64(record.expiresAtMillis()).u8(fingerprint.commandCode()).raw(fingerprint.digest())
        .i32(record.slot()).raw(record.encodedResult()).toByteArray();
  }

  /** Reads an idempotency value of format 4, 3 (no slot) or 2 (no fingerprint, no slot). */
  static IdempotencyRecord readIdempotency(long generation, byte[] value) {
    ByteReader in = new ByteReader(value, "idempotency record",
        message -> new StoreException("corrupt store record " + message));
    int format = in.u8("formatVersion");
    if (format != IDEMPOTENCY_FORMAT_VERSION && format != IDEMPOTENCY_WITHOUT_SLOT
        && format != FORMAT_VERSION) {
      throw in.fail("unknown idempotency record format version " + format + ", expected "
          + IDEMPOTENCY_FORMAT_VERSION + " (or " + IDEMPOTENCY_WITHOUT_SLOT + ", without slot, or "
          + FORMAT_VERSION + ", without fingerprint)");
    }
    long expiresAt = in.i64("expiresAt");
    Optional<Fingerprint> fingerprint = Optional.empty();
    if (format != FORMAT_VERSION) {
      int code = in.u8("commandCode");
      fingerprint = Optional.of(new Fingerprint(code, in.raw(Fingerprint.DIGEST_BYTES, "fingerprint")));
    }
    int slot = IdempotencyRecord.NO_SLOT;
    if (format == IDEMPOTENCY_FORMAT_VERSION) {
      slot = in.i32("slot");
      if (slot != IdempotencyRecord.NO_SLOT && (slot < 0 || slot >= Slots.COUNT)) {
        throw in.fail("slot " + slot + " is not in [0, " + Slots.COUNT + ") nor " + IdempotencyRecord.NO_SLOT);
      }
    }
    byte[] result = in.raw(in.remaining(), "result");
    try {
      ResultCodec.decode(result); // validate now rather than on the first retry
    } catch (ResultFormatException e) {
      // A corrupt result is a corrupt store record like any other, reported as one.
      throw new StoreException("corrupt store record idempotency record: " + e.getMessage(), e);
    }
    return new IdempotencyRecord(generation, expiresAt, fingerprint, slot, result);
  }

  static byte[] generationKey(long start) {
    return new ByteWriter(GENERATION_KEY_PREFIX.length + 8).raw(GENERATION_KEY_PREFIX)
        .i64(flip(start)).toByteArray();
  }

  static boolean isGenerationKey(byte[] key) {
    return key.length == GENERATION_KEY_PREFIX.length + 8
        && Arrays.equals(key, 0, GENERATION_KEY_PREFIX.length, GENERATION_KEY_PREFIX,
            0, GENERATION_KEY_PREFIX.length);
  }

  static byte[] generationValue(IdempotencyGeneration generation) {
    return new ByteWriter(17).u8(FORMAT_VERSION).i64(generation.end()).i64(generation.count())
        .toByteArray();
  }

  static IdempotencyGeneration readGeneration(byte[] key, byte[] value) {
    ByteReader k = new ByteReader(key, "idempotency generation key",
        message -> new StoreException("corrupt " + message));
    if (!Arrays.equals(k.raw(GENERATION_KEY_PREFIX.length, "prefix"), GENERATION_KEY_PREFIX)) {
      throw k.fail("not an idempotency generation key (prefix is not 'idemgen')");
    }
    long start = flip(k.i64("start"));
    k.end();
    ByteReader in = reader(value, "idempotency generation");
    long end = in.i64("end");
    long count = in.i64("count");
    in.end();
    try {
      return new IdempotencyGeneration(start, end, count);
    } catch (IllegalArgumentException e) {
      throw new StoreException("corrupt store record " + e.getMessage(), e);
    }
  }

  static byte[] expiryKey(ExpiryKey key) {
    return new ByteWriter(33).i64(flip(key.dueAtMillis())).u8(key.kind()).i64(flip(key.a()))
        .i64(flip(key.b())).i64(flip(key.c())).toByteArray();
  }

  static ExpiryKey readExpiryKey(byte[] key) {
    ByteReader k = new ByteReader(key, "expiry key", message -> new StoreException("corrupt " + message));
    ExpiryKey expiryKey = new ExpiryKey(flip(k.i64("dueAt")), k.u8("kind"), flip(k.i64("a")),
        flip(k.i64("b")), flip(k.i64("c")));
    k.end();
    return expiryKey;
  }

  static final byte[] EXPIRY_VALUE = {(byte) FORMAT_VERSION};

  static void checkExpiryValue(byte[] value) {
    reader(value, "expiry value").end();
  }

  static byte[] metaValue(long term, long index, long now, long epoch, long epochStart,
      long nextLeaseId, long nextVersion, long idempotencyRecords) {
    // META_FORMAT_VERSION 3; FormatTwoMigration rewrites a version-2 record with this.
    return new ByteWriter(72).u8(META_FORMAT_VERSION).i64(term).i64(index).i64(now).i64(epoch)
        .i64(epochStart).i64(nextLeaseId).i64(nextVersion).i64(idempotencyRecords).toByteArray();
  }

  /** [term, index, now, epoch, epochStart, nextLeaseId, nextVersion, idempotencyRecords]. */
  static long[] readMeta(byte[] value) {
    return readMeta(value, META_FORMAT_VERSION);
  }

  /** The format byte of a meta record (2: before idempotency generations; 3: now). */
  static int metaFormat(byte[] value) {
    if (value.length == 0) {
      throw new StoreException("corrupt store record meta: empty");
    }
    return value[0] & 0xFF;
  }

  /** Reads a meta record of {@code format} (2 and 3 share the layout; 3 changed the families). */
  static long[] readMeta(byte[] value, int format) {
    ByteReader in = new ByteReader(value, "meta", message -> new StoreException("corrupt store record " + message));
    int found = in.u8("formatVersion");
    if (found != format) {
      throw in.fail("unknown meta format version " + found + ", expected " + format
          + (found > META_FORMAT_VERSION
              ? ": store format " + found + " was written by a newer release; this build reads store"
                  + " formats 2 and " + META_FORMAT_VERSION + ", so run a release that reads format "
                  + found + " on this directory (nothing in it was changed)"
              : found < format ? " (a directory of an older build is migrated at open only from 2)" : ""));
    }
    long[] meta = new long[8];
    String[] names = {"appliedTerm", "appliedIndex", "now", "epoch", "epochStart", "nextLeaseId",
        "nextVersion", "idempotencyRecords"};
    for (int i = 0; i < meta.length; i++) {
      meta[i] = in.i64(names[i]);
    }
    in.end();
    return meta;
  }
}
