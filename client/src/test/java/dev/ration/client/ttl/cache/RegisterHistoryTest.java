package dev.ration.client.ttl.cache;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.ttl.cache.RegisterHistory.Operation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The linearizability checker that {@link TtlCacheConcurrencyTest} relies on rejects histories
 * that no register could produce, and accepts ones that overlap in every legal way: a checker
 * that accepted everything would make that test pass for any cache.
 */
class RegisterHistoryTest {
  @Test
  void aStaleReadAfterANewerWriteCompletedIsRejected() {
    List<Operation> h = List.of(
        new Operation(0, true, "1", 1, 2),
        new Operation(0, true, "2", 3, 4),
        new Operation(1, false, "1", 5, 6));
    assertFalse(RegisterHistory.linearizable(h));
  }

  @Test
  void aReadOfAValueNeverWrittenIsRejected() {
    List<Operation> h = List.of(
        new Operation(0, true, "1", 1, 4),
        new Operation(1, false, "7", 2, 3));
    assertFalse(RegisterHistory.linearizable(h));
  }

  @Test
  void readsThatSeeTheNewValueAndThenTheOldOneAreRejected() {
    // Both reads overlap the write, but once one has seen "2", a later read cannot see "1".
    List<Operation> h = List.of(
        new Operation(0, true, "1", 1, 2),
        new Operation(0, true, "2", 3, 10),
        new Operation(1, false, "2", 4, 5),
        new Operation(2, false, "1", 6, 7));
    assertFalse(RegisterHistory.linearizable(h));
  }

  @Test
  void aDeleteMakesLaterReadsAbsent() {
    List<Operation> h = List.of(
        new Operation(0, true, "1", 1, 2),
        new Operation(0, true, null, 3, 4),
        new Operation(1, false, "1", 5, 6));
    assertFalse(RegisterHistory.linearizable(h));
    assertTrue(RegisterHistory.linearizable(List.of(h.get(0), h.get(1),
        new Operation(1, false, null, 5, 6))));
  }

  @Test
  void overlappingOperationsMayTakeEffectInEitherOrder() {
    List<Operation> h = List.of(
        new Operation(0, true, "1", 1, 6),
        new Operation(1, true, "2", 2, 7),
        new Operation(2, false, "2", 3, 4),
        new Operation(2, false, "1", 8, 9),
        new Operation(3, false, null, 0, 5));
    assertTrue(RegisterHistory.linearizable(h));
  }

  @Test
  void aLongSequentialHistoryIsCheckedQuickly() {
    List<Operation> h = new ArrayList<>();
    long t = 0;
    for (int i = 0; i < 32; i++) {
      h.add(new Operation(0, true, "v" + i, ++t, ++t));
      h.add(new Operation(1, false, "v" + i, ++t, ++t));
    }
    assertTrue(RegisterHistory.linearizable(h));
    h.set(63, new Operation(1, false, "v30", t - 1, t));
    assertFalse(RegisterHistory.linearizable(h));
  }
}
