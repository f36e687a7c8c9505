package dev.ration.wire.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlotIdsTest {

  @Test
  void anIdCarriesItsCounterAndSlotAndIsPositive() {
    Set<Long> seen = new HashSet<>();
    for (long counter : new long[] {1, 2, 255, 256, 1L << 40, SlotIds.MAX_COUNTER}) {
      for (int slot : new int[] {0, 1, 7, 128, Slots.COUNT - 1}) {
        long id = SlotIds.of(counter, slot);
        assertTrue(id > 0, "id " + id);
        assertTrue(SlotIds.slotted(id));
        assertEquals(slot, SlotIds.slotOf(id));
        assertEquals(counter, SlotIds.counterOf(id));
        assertTrue(seen.add(id), "minted twice: " + id);
      }
    }
  }

  @Test
  void idsFromBeforeSlotsCarryNoneAndCountThemselves() {
    for (long legacy : new long[] {1, 2, 66, (1L << 52) - 1}) {
      assertFalse(SlotIds.slotted(legacy));
      assertEquals(-1, SlotIds.slotOf(legacy));
      assertEquals(legacy, SlotIds.counterOf(legacy));
    }
    assertEquals(-1, SlotIds.slotOf(0));
    assertEquals(-1, SlotIds.slotOf(-5));
  }

  @Test
  void theLayoutIsPinned() {
    // Stored format: changing it would misroute every id already handed out.
    assertEquals(0x10_0000_0000_0105L, SlotIds.of(1, 5));
    assertEquals(0x10_0000_0000_2aFFL, SlotIds.of(0x2a, 255));
    assertTrue(SlotIds.of(SlotIds.MAX_COUNTER, Slots.COUNT - 1) < 1L << 53, "exact as a double");
  }

  @Test
  void aCounterOutsideTheLayoutIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> SlotIds.of(0, 1));
    assertThrows(IllegalArgumentException.class, () -> SlotIds.of(SlotIds.MAX_COUNTER + 1, 1));
    assertThrows(IllegalArgumentException.class, () -> SlotIds.of(1, Slots.COUNT));
  }
}
