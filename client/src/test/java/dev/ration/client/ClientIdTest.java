package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Goal: two clients built from one options value never share a client id — they would share an
 * idempotency namespace and be handed each other's answers (found by the 3-region cluster test).
 */
class ClientIdTest {

  @Test
  void eachClientMintsItsOwnIdUnlessOneIsFixed() {
    RationClientOptions shared = RationClientOptions.builder().addresses(java.util.List.of("127.0.0.1:1")).build();
    assertFalse(shared.clientIdFixed());
    try (RationClient a = new RationClient(shared); RationClient b = new RationClient(shared)) {
      assertTrue(a.options().clientIdFixed());
      assertTrue(b.options().clientIdFixed());
      assertNotEquals(
          a.options().clientIdHigh() + ":" + a.options().clientIdLow(),
          b.options().clientIdHigh() + ":" + b.options().clientIdLow());
    }
    RationClientOptions fixed = RationClientOptions.builder()
        .addresses(java.util.List.of("127.0.0.1:1")).clientId(7, 9).build();
    try (RationClient c = new RationClient(fixed)) {
      assertEquals(7, c.options().clientIdHigh());
      assertEquals(9, c.options().clientIdLow());
    }
  }
}
