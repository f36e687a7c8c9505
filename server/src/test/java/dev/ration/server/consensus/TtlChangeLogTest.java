package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.ttl.TtlChange;
import dev.ration.wire.Bytes;
import dev.ration.wire.ChangeKind;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The buffer watches are answered from: floors, compaction, cuts at whole entries, wake-ups. */
class TtlChangeLogTest {
  private static TtlChange put(String ns, String key, long version) {
    return new TtlChange(ns, key, ChangeKind.PUT, version, 5_000, Bytes.utf8("v" + version));
  }

  private static List<Long> indexes(TtlChangeLog.Slice s) {
    return s.changes().stream().map(TtlChangeLog.Indexed::index).toList();
  }

  @Test
  void aReadReturnsTheNamespacesChangesAfterItsIndexInOrder() {
    TtlChangeLog log = new TtlChangeLog(100, 1 << 20, Runnable::run);
    log.reset(10);
    log.appended(11, List.of(put("a", "k", 1), put("b", "k", 2)));
    log.appended(12, List.of(put("a", "j", 3)));
    log.appended(13, List.of(put("b", "j", 4)));
    TtlChangeLog.Slice s = log.read("a", 10, 13, 100);
    assertEquals(List.of(11L, 12L), indexes(s));
    assertEquals(13, s.throughIndex());
    assertFalse(s.compacted());
    assertEquals(List.of(12L), indexes(log.read("a", 11, 13, 100)));
    assertEquals(List.of(), indexes(log.read("a", 12, 13, 100)));
    // A change the state has not reached (applied index 11) is not returned yet.
    assertEquals(List.of(11L), indexes(log.read("a", 10, 11, 100)));
  }

  @Test
  void belowTheFloorIsCompactedAndTheFloorStartsAtTheOpenedIndex() {
    TtlChangeLog log = new TtlChangeLog(100, 1 << 20, Runnable::run);
    log.reset(50);
    assertTrue(log.read("a", 49, 50, 100).compacted(), "before the index the state opened at");
    assertFalse(log.read("a", 50, 50, 100).compacted());
    log.appended(51, List.of(put("a", "k", 1)));
    log.reset(60); // a snapshot install: nothing before 60 is known here
    assertTrue(log.read("a", 51, 60, 100).compacted());
    assertEquals(60, log.read("a", 51, 60, 100).throughIndex());
    assertEquals(0, log.size());
  }

  @Test
  void droppingTheOldestRaisesTheFloorToItsIndex() {
    TtlChangeLog log = new TtlChangeLog(3, 1 << 20, Runnable::run);
    log.reset(0);
    log.appended(1, List.of(put("a", "x", 1), put("a", "y", 2)));
    log.appended(2, List.of(put("a", "z", 3), put("a", "w", 4)));
    // 4 changes > 3: the first of entry 1 went, so entry 1 is no longer whole.
    assertEquals(1, log.floorIndex());
    assertEquals(1, log.dropped());
    assertTrue(log.read("a", 0, 2, 100).compacted());
    assertEquals(List.of(2L, 2L), indexes(log.read("a", 1, 2, 100)));
  }

  @Test
  void aByteBoundDropsToo() {
    TtlChange big = new TtlChange("a", "k", ChangeKind.PUT, 1, 5, new Bytes(new byte[1000]));
    TtlChangeLog log = new TtlChangeLog(1000, 2500, Runnable::run);
    log.reset(0);
    for (long i = 1; i <= 5; i++) {
      log.appended(i, List.of(big));
    }
    assertEquals(2, log.size());
    assertEquals(3, log.floorIndex());
  }

  @Test
  void aLimitCutsAfterAWholeEntry() {
    TtlChangeLog log = new TtlChangeLog(100, 1 << 20, Runnable::run);
    log.reset(0);
    log.appended(1, List.of(put("a", "x", 1)));
    log.appended(2, List.of(put("a", "y", 2), put("a", "z", 3), put("a", "w", 4)));
    log.appended(3, List.of(put("a", "v", 5)));
    TtlChangeLog.Slice s = log.read("a", 0, 3, 2);
    assertEquals(List.of(1L, 2L, 2L, 2L), indexes(s), "entry 2's changes all, though over the limit");
    assertEquals(2, s.throughIndex());
    assertEquals(List.of(3L), indexes(log.read("a", s.throughIndex(), 3, 2)));
  }

  @Test
  void aWaiterWakesOnItsNamespaceOnlyAndACancelledOneNever() {
    TtlChangeLog log = new TtlChangeLog(100, 1 << 20, Runnable::run);
    log.reset(0);
    CompletableFuture<Void> a = log.awaitChange("a", 0);
    CompletableFuture<Void> cancelled = log.awaitChange("a", 0);
    log.cancel("a", cancelled);
    assertEquals(1, log.waiting());
    log.appended(1, List.of(put("b", "k", 1)));
    assertFalse(a.isDone(), "another namespace's change");
    log.appended(2, List.of(put("a", "k", 2)));
    assertTrue(a.isDone());
    assertFalse(cancelled.isDone());
    assertTrue(log.awaitChange("a", 1).isDone(), "a change after the index is already held");
    assertFalse(log.awaitChange("a", 2).isDone());
    log.reset(5);
    assertEquals(0, log.waiting(), "a reset wakes every waiter: they read 'compacted'");
  }

  @Test
  void aWaiterBelowARisingFloorIsWokenToBeToldCompacted() {
    TtlChangeLog log = new TtlChangeLog(2, 1 << 20, Runnable::run);
    log.reset(0);
    CompletableFuture<Void> quiet = log.awaitChange("quiet", 0);
    log.appended(1, List.of(put("busy", "x", 1)));
    log.appended(2, List.of(put("busy", "y", 2)));
    assertFalse(quiet.isDone(), "nothing dropped yet");
    log.appended(3, List.of(put("busy", "z", 3)));
    assertTrue(quiet.isDone(), "change 1 dropped: the quiet namespace's poll at 0 is below the floor");
    assertTrue(log.read("quiet", 0, 3, 10).compacted());
    assertEquals(0, log.waiting());
  }

  @Test
  void badBoundsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new TtlChangeLog(0, 1, Runnable::run));
    assertThrows(IllegalArgumentException.class, () -> new TtlChangeLog(1, 0, Runnable::run));
  }
}
