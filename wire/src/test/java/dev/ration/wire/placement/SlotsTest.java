package dev.ration.wire.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SlotsTest {

  /**
   * The slot of a tenant is stored format: these values must never change (they were computed
   * independently of this class, from the definition in its comment). A failure here means the
   * hash or the slot count changed, which would move every tenant of a running cluster.
   */
  @Test
  void slotsArePinned() {
    assertEquals(256, Slots.COUNT);
    assertEquals(38, Slots.of(""));
    assertEquals(198, Slots.of("acme"));
    assertEquals(193, Slots.of("t-1"));
    assertEquals(64, Slots.of("t-2"));
    assertEquals(90, Slots.of("Ünïcode"));
  }

  @Test
  void aPathBelongsToTheSlotOfItsTenant() {
    assertEquals(Slots.of("acme"), Slots.ofPath("acme/shop/web"));
    assertEquals(Slots.of("acme"), Slots.ofPath("acme"));
  }

  /**
   * Similar names spread over every slot: 25,600 tenants "tenant-0".."tenant-25599" put
   * between 50 and 150 in each slot (100 on average; a uniform spread has a standard deviation
   * of 10, so these bounds are 5 of them away).
   */
  @Test
  void similarNamesSpreadEvenly() {
    int[] counts = new int[Slots.COUNT];
    for (int i = 0; i < 100 * Slots.COUNT; i++) {
      counts[Slots.of("tenant-" + i)]++;
    }
    for (int slot = 0; slot < Slots.COUNT; slot++) {
      assertTrue(counts[slot] >= 50 && counts[slot] <= 150, "slot " + slot + ": " + counts[slot]);
    }
  }

  @Test
  void checkRefusesWhatIsNoSlot() {
    assertEquals(0, Slots.check(0));
    assertEquals(255, Slots.check(255));
    assertThrows(IllegalArgumentException.class, () -> Slots.check(256));
    assertThrows(IllegalArgumentException.class, () -> Slots.check(-1));
  }
}
