package dev.ration.statemachine.quota;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.query.LevelCharge;
import dev.ration.statemachine.query.LevelUsage;
import dev.ration.statemachine.query.Reservation;
import dev.ration.statemachine.query.ReservationItem;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.EventType;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.UsageEvent;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stored quota values keep the layout of quota store format 1 (written field by field
 * below, as QuotaFormat's comment states it), so directories written by earlier builds open.
 */
class QuotaStoreFormatTest {
  private static final Reservation RESERVATION = new Reservation(41, "acme/web",
      List.of(new ReservationItem("gpu", 3, 1, "cards",
          List.of(new LevelCharge("acme", 0), new LevelCharge("acme/web", 60_000)))),
      9, 1_000, 31_000);
  private static final LevelUsage USAGE = new LevelUsage("acme", "gpu", 60_000, 5, 3, 0, true);
  private static final UsageEvent EVENT = new UsageEvent(12, "ev-1", EventType.COMPLETED, 900,
      1_000, "acme/web", "gpu", 3, "cards", 41, 1);
  private static final AuditRecord AUDIT = new AuditRecord(4, 1_000, "ops", "quota.set",
      "acme", "gpu", 9, "growth", "limit 10");

  @Test
  void reservationLayout() {
    ByteWriter w = new ByteWriter(64).u8(1).i64(41).str("acme/web").i64(9).i64(1_000)
        .i64(31_000).u16(1).str("gpu").i64(3).i64(1).str("cards").u16(2).str("acme").i64(0)
        .str("acme/web").i64(60_000);
    byte[] stored = QuotaFormat.stored(out -> QuotaFormat.writeReservation(out, RESERVATION));
    assertArrayEquals(w.toByteArray(), stored);
    assertEquals(RESERVATION, QuotaFormat.read(stored, "reservation", QuotaFormat::readReservation));
  }

  @Test
  void usageEventAndAuditLayouts() {
    byte[] usage = new ByteWriter(64).u8(1).str("acme").str("gpu").i64(60_000).i64(5).i64(3)
        .i64(0).bool(true).toByteArray();
    assertArrayEquals(usage, QuotaFormat.stored(out -> QuotaFormat.writeUsage(out, USAGE)));
    byte[] event = new ByteWriter(64).u8(1).i64(12).str("ev-1").u8(EventType.COMPLETED.code())
        .i64(900).i64(1_000).str("acme/web").str("gpu").i64(3).str("cards").i64(41).i64(1)
        .toByteArray();
    assertArrayEquals(event, QuotaFormat.stored(out -> QuotaFormat.writeEvent(out, EVENT)));
    byte[] audit = new ByteWriter(64).u8(1).i64(4).i64(1_000).str("ops").str("quota.set")
        .str("acme").str("gpu").i64(9).str("growth").str("limit 10").toByteArray();
    assertArrayEquals(audit, QuotaFormat.stored(out -> QuotaFormat.writeAudit(out, AUDIT)));
    assertEquals(USAGE, QuotaFormat.read(usage, "usage", QuotaFormat::readUsage));
    assertEquals(EVENT, QuotaFormat.read(event, "event", QuotaFormat::readEvent));
    assertEquals(AUDIT, QuotaFormat.read(audit, "audit", QuotaFormat::readAudit));
  }

  @Test
  void trailingBytesAreCorruptionNotPadding() {
    byte[] stored = QuotaFormat.stored(out -> QuotaFormat.writeEvent(out, EVENT));
    byte[] longer = Arrays.copyOf(stored, stored.length + 2);
    StoreException e = assertThrows(StoreException.class,
        () -> QuotaFormat.read(longer, "usage event 12", QuotaFormat::readEvent));
    assertTrue(e.getMessage().contains("2 trailing bytes after the usage event 12"), e.getMessage());
    byte[] cut = Arrays.copyOf(stored, stored.length - 1);
    assertThrows(StoreException.class,
        () -> QuotaFormat.read(cut, "usage event 12", QuotaFormat::readEvent));
  }
}
