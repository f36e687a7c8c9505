package dev.ration.statemachine.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.replica.IdempotencyGeneration;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.statemachine.result.ResultFormatException;
import org.junit.jupiter.api.Test;

/** Store records that are corrupt in ways found by fuzzing are refused as corrupt store records. */
class StoreFormatTest {

  /** Goal: a corrupt result inside an idempotency record is a StoreException, like any corrupt record. */
  @Test
  void idempotencyRecordWithACorruptResultIsACorruptStoreRecord() {
    byte[] good = StoreFormat.idempotencyValue(
        new IdempotencyRecord(0, 61_000,
            java.util.Optional.of(dev.ration.statemachine.command.Fingerprint.of(new dev.ration.statemachine.command.Tick(3))),
            IdempotencyRecord.NO_SLOT, ResultCodec.encode(new Result.Ticked(3))));
    assertEquals(61_000, StoreFormat.readIdempotency(0, good).expiresAtMillis());
    byte[] bad = good.clone();
    bad[good.length - ResultCodec.encode(new Result.Ticked(3)).length] = 0; // the result's format byte
    StoreException e = assertThrows(StoreException.class, () -> StoreFormat.readIdempotency(0, bad));
    assertInstanceOf(ResultFormatException.class, e.getCause());
    assertTrue(e.getMessage().contains("corrupt store record idempotency record"), e.getMessage());
  }

  /** Goal: the generation reader checks the key's prefix instead of trusting its caller to. */
  @Test
  void generationKeyWithAnotherPrefixIsRefused() {
    IdempotencyGeneration g = new IdempotencyGeneration(60_000, 120_000, 4);
    byte[] key = StoreFormat.generationKey(g.start());
    byte[] value = StoreFormat.generationValue(g);
    assertEquals(g, StoreFormat.readGeneration(key, value));
    key[0] = 'x';
    StoreException e = assertThrows(StoreException.class, () -> StoreFormat.readGeneration(key, value));
    assertTrue(e.getMessage().contains("not an idempotency generation key"), e.getMessage());
  }
}
