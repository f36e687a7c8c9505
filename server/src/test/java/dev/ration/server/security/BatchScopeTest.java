package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.Request;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A reservation batch is checked against its one tenant, and against every tenant ({@code *})
 * when it names several, so an identity granted on one tenant cannot reach another by mixing
 * reservations into a batch.
 */
class BatchScopeTest {
  private static Request batch(String... scopes) {
    return new Request.Quota(new QuotaRequest.ReserveBatch(java.util.Arrays.stream(scopes)
        .map(s -> new QuotaRequest.ReserveKeyed("", s, List.of(new QuotaRequest.Item("disk", 1)),
            0, 60_000))
        .toList()));
  }

  /** Goal: one tenant's paths pin that tenant; two tenants, or none, need every tenant. */
  @Test
  void aBatchPinsItsOneTenantOrNeedsEvery() {
    assertEquals(new Scope.Tenant("acme"), Scopes.of(batch("acme/a", "acme/b/c", "acme")));
    assertEquals(Scope.ALL, Scopes.of(batch("acme/a", "globex/a")));
    assertEquals(Scope.ALL, Scopes.of(batch()));
  }
}
