package dev.ration.statemachine.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.Fixtures;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.command.Fingerprint;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.wire.ByteWriter;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The stored idempotency value: format 4 (fingerprint and slot) written and read, 3 and 2 read. */
class IdempotencyFormatTest {
  private static final Result RESULT = new Result.EntryWritten("ns", "k1", 1, 61_000);

  /** Goal: a format-4 value keeps expiry, fingerprint, slot and the result byte for byte. */
  @Test
  void formatFourRoundTrips() {
    Fingerprint f = Fingerprint.of(Fixtures.acquire("h", 10, 1));
    byte[] encoded = ResultCodec.encode(RESULT);
    for (int slot : new int[] {IdempotencyRecord.NO_SLOT, 0, 37, 255}) {
      byte[] value = StoreFormat.idempotencyValue(
          new IdempotencyRecord(60_000, 61_000, Optional.of(f), slot, encoded));
      assertEquals(4, value[0]);
      assertEquals(1 + 8 + 1 + 16 + 4 + encoded.length, value.length);
      IdempotencyRecord read = StoreFormat.readIdempotency(60_000, value);
      assertEquals(61_000, read.expiresAtMillis());
      assertEquals(Optional.of(f), read.fingerprint());
      assertEquals(slot, read.slot());
      assertArrayEquals(encoded, read.encodedResult());
      assertTrue(read.answers(f));
    }
  }

  /** Goal: a value as the previous build writes it (format 3: fingerprint, no slot) reads as in
   *  no slot, answered as before. */
  @Test
  void formatThreeValueIsReadInNoSlot() {
    Fingerprint f = Fingerprint.of(Fixtures.acquire("h", 10, 1));
    byte[] encoded = ResultCodec.encode(RESULT);
    byte[] old = new ByteWriter(64).u8(3).i64(61_000).u8(f.commandCode()).raw(f.digest()).raw(encoded)
        .toByteArray();
    IdempotencyRecord read = StoreFormat.readIdempotency(60_000, old);
    assertEquals(IdempotencyRecord.NO_SLOT, read.slot());
    assertEquals(Optional.of(f), read.fingerprint());
    assertArrayEquals(encoded, read.encodedResult());
  }

  /** Goal: a slot outside the table is a corrupt record. */
  @Test
  void aSlotOutsideTheTableIsRefused() {
    Fingerprint f = Fingerprint.of(Fixtures.acquire("h", 10, 1));
    byte[] bad = new ByteWriter(64).u8(4).i64(61_000).u8(f.commandCode()).raw(f.digest()).i32(256)
        .raw(ResultCodec.encode(RESULT)).toByteArray();
    StoreException e = assertThrows(StoreException.class, () -> StoreFormat.readIdempotency(60_000, bad));
    assertTrue(e.getMessage().contains("slot 256"), e.getMessage());
  }

  /**
   * Goal: a value as the previous build writes it (u8 2 | i64 expiresAt | result) still reads,
   * without fingerprint, and answers any request with the same key, as it did before.
   */
  @Test
  void formatTwoValueIsReadWithoutFingerprint() {
    byte[] encoded = ResultCodec.encode(RESULT);
    byte[] old = new ByteWriter(32).u8(2).i64(61_000).raw(encoded).toByteArray();
    IdempotencyRecord read = StoreFormat.readIdempotency(60_000, old);
    assertEquals(61_000, read.expiresAtMillis());
    assertTrue(read.fingerprint().isEmpty());
    assertArrayEquals(encoded, read.encodedResult());
    assertTrue(read.answers(Fingerprint.of(Fixtures.acquire("anyone", 1, 1))));
  }

  /** Goal: an unknown format byte is refused, naming it. */
  @Test
  void unknownFormatIsRefused() {
    byte[] future = new ByteWriter(32).u8(5).i64(61_000).raw(ResultCodec.encode(RESULT)).toByteArray();
    StoreException e = assertThrows(StoreException.class,
        () -> StoreFormat.readIdempotency(60_000, future));
    assertTrue(e.getMessage().contains("unknown idempotency record format version 5"), e.getMessage());
  }

  /** Goal: a record is never written without the fingerprint of its request. */
  @Test
  void recordWithoutFingerprintIsNotWritten() {
    assertThrows(IllegalArgumentException.class, () -> StoreFormat.idempotencyValue(
        new IdempotencyRecord(0, 1, Optional.empty(), IdempotencyRecord.NO_SLOT, ResultCodec.encode(RESULT))));
  }
}
