package dev.ration.statemachine.quota;

import static dev.ration.statemachine.quota.QuotaHarness.reserve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.ReserveBatch;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batched reservation path (ALLOCATION quotas such as storage): many reservations in one
 * entry, each judged as if proposed alone, on a real replica with every invariant verified.
 */
class ReserveBatchTest {
  @TempDir Path dir;
  private QuotaHarness h;

  @BeforeEach
  void open() {
    h = new QuotaHarness(dir);
    h.apply(new SetQuota(new QuotaSpec("acme", "storage", QuotaKind.ALLOCATION, Window.NONE, 10,
        "GiB", 0, Overage.REJECT, 0, 0, 0, "test", 0, "setup")));
  }

  @AfterEach
  void close() {
    h.close();
  }

  /**
   * Goal: each reservation is judged in order against what the ones before it took; a refusal
   * or a bad argument fails only its own; the answers come back in order.
   */
  @Test
  void eachReservationIsJudgedAloneInOrder() {
    QuotaResult.ReservedBatch batch = assertInstanceOf(QuotaResult.ReservedBatch.class,
        h.apply(new ReserveBatch(List.of(
            reserve("acme/a", "storage", 6),
            reserve("acme/b", "storage", 5),
            reserve("acme/c", "storage", 4),
            reserve("acme/d", "storage", 0),
            reserve("acme/e", "video", 1)))));
    List<QuotaResult.ReserveAnswer> a = batch.answers();
    assertEquals(5, a.size());
    assertEquals(6, a.get(0).reserved().items().get(0).amount());
    assertEquals(Outcome.LIMIT_EXHAUSTED, a.get(1).refused().outcome(), "6 + 5 > 10");
    assertEquals(4, a.get(2).reserved().items().get(0).amount(), "6 + 4 fits");
    assertEquals(Outcome.INVALID_ARGUMENT, a.get(3).refused().outcome());
    assertEquals(Outcome.LIMIT_UNKNOWN, a.get(4).refused().outcome());
    assertNull(a.get(0).refused());
    assertEquals(10, h.usage("acme", "storage").allocated() + h.usage("acme", "storage").held());
  }

  /**
   * Goal: a resent batch (same request key) gets every answer of the first and reserves nothing
   * more; a reservation's idempotency key inside a batch returns its first decision, as a keyed
   * reserve does.
   */
  @Test
  void aResentBatchGetsItsFirstAnswersAndKeysWork() {
    RequestKey key = h.freshKey();
    ReserveBatch first = new ReserveBatch(List.of(
        new Reserve("acme/a", List.of(new Reserve.Item("storage", 3)), 0, 60_000, "up-1"),
        reserve("acme/b", "storage", 2)));
    QuotaResult once = h.apply(key, first);
    assertEquals(once, h.apply(key, first), "the request key's one decision");
    QuotaResult.ReservedBatch again = assertInstanceOf(QuotaResult.ReservedBatch.class,
        h.apply(new ReserveBatch(List.of(
            new Reserve("acme/a", List.of(new Reserve.Item("storage", 3)), 0, 60_000, "up-1")))));
    assertEquals(((QuotaResult.ReservedBatch) once).answers().get(0).reserved().reservationId(),
        again.answers().get(0).reserved().reservationId(), "the key's first reservation");
    assertEquals(5, h.usage("acme", "storage").held());
  }

  /** Goal: an empty batch and one past the bound are refused whole, changing nothing. */
  @Test
  void batchesOutsideTheBoundAreRefused() {
    assertEquals(Outcome.INVALID_ARGUMENT, QuotaHarness.rejected(
        h.apply(new ReserveBatch(List.of()))).outcome());
    List<Reserve> many = new ArrayList<>(Collections.nCopies(ReserveBatch.MAX_RESERVES + 1,
        reserve("acme/a", "storage", 1)));
    assertEquals("1001 reservations; a batch carries 1..1000",
        QuotaHarness.rejected(h.apply(new ReserveBatch(many))).message());
    assertEquals(0, h.usage("acme", "storage").held());
  }
}
