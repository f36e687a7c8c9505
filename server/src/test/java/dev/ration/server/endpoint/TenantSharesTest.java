package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Per-tenant fairness of quota admission: a hot tenant that fills its share is refused at once,
 * while another tenant is still admitted; releasing frees the share.
 */
class TenantSharesTest {
  @Test
  void aHotTenantCannotTakeAnotherTenantsShare() {
    TenantShares shares = new TenantShares(3);
    for (int i = 0; i < 3; i++) {
      assertTrue(shares.tryAcquire("acme/hot"));
    }
    assertFalse(shares.tryAcquire("acme/hot"), "past its share: OVERLOADED, not a wait");
    assertEquals(3, shares.inFlight("acme/hot"));
    assertTrue(shares.tryAcquire("acme/quiet"), "another tenant is still admitted");
    shares.release("acme/hot");
    assertTrue(shares.tryAcquire("acme/hot"));
    shares.release("acme/quiet");
    assertEquals(0, shares.inFlight("acme/quiet"), "idle tenants hold no entry");
  }
}
