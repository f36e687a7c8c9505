package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.Request;
import dev.ration.protocol.TtlRequest;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.TenantFairness;
import dev.ration.server.security.Scope;
import dev.ration.server.security.Scopes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The admission decision on its own: the order of the three bounds, the refusal each gives,
 * and that releasing gives back exactly what admitting took.
 */
class AdmissionTest {
  private static final EndpointOptions OPTIONS =
      new EndpointOptions(4096, 2, 10, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 1);

  private final AdmissionGate gate = new AdmissionGate(OPTIONS);
  private final AtomicInteger leaderAsked = new AtomicInteger();
  private final Admission admission = new Admission(gate, () -> {
    leaderAsked.incrementAndGet();
    return "10.0.0.2:7000";
  });

  private static Request reserve(String scope) {
    return new Request.Quota(new QuotaRequest.Reserve(scope, List.of(new QuotaRequest.Item("jobs", 1)), 0, 1_000));
  }

  @Test
  void aServingNodeAsksNoLeaderAndADrainingOneNamesIt() {
    assertTrue(admission.checkDraining().isEmpty());
    assertEquals(0, leaderAsked.get(), "the leader is looked up only for a refusal");
    gate.startDraining();
    Admission.Refused r = admission.checkDraining().orElseThrow();
    assertEquals(ErrorCode.UNAVAILABLE, r.code());
    assertEquals("node is shutting down", r.message());
    assertEquals("10.0.0.2:7000", r.toResponse().leaderAddress());
    assertEquals(Admission.SHUTDOWN_RETRY_AFTER_MILLIS, r.retryAfterMillis());
  }

  @Test
  void theConnectionCapRefusesWithoutTakingAnything() {
    Admission.Refused r = assertInstanceOf(Admission.Refused.class, admission.admit(2, reserve("acme/shop"), "c1"));
    assertEquals(ErrorCode.OVERLOADED, r.code());
    assertEquals("connection has 2 requests in flight, max 2", r.message());
    assertEquals(Admission.OVERLOADED_RETRY_AFTER_MILLIS, r.retryAfterMillis());
    assertEquals(0, gate.inFlight());
    assertEquals(0, gate.tenantShares().inFlight("acme"), "the cap is asked before the tenant share");
  }

  @Test
  void aTenantPastItsShareIsRefusedWhileOthersAndUngatedRequestsPass() {
    Admission.Admitted first = assertInstanceOf(Admission.Admitted.class, admission.admit(0, reserve("acme/shop/web"), "c1"));
    assertEquals("acme", first.tenant(), "a scope path belongs to its first segment");
    Admission.Refused r = assertInstanceOf(Admission.Refused.class, admission.admit(1, reserve("acme/shop/api"), "c1"));
    assertEquals(ErrorCode.OVERLOADED, r.code());
    assertEquals("tenant acme has 1 requests in flight, its share of this node", r.message());
    assertEquals(Admission.OVERLOADED_RETRY_AFTER_MILLIS, r.retryAfterMillis());
    assertEquals(1, gate.inFlight(), "a refused tenant takes no place in the gate");

    Admission.Admitted ungated = assertInstanceOf(Admission.Admitted.class,
        admission.admit(0, new Request.ReturnLease(7, 1, 0), "c1"), "returning frees capacity: never gated");
    assertEquals("", ungated.tenant());
    assertEquals(2, gate.inFlight());

    admission.release(first);
    admission.release(ungated);
    assertEquals(0, gate.inFlight());
    assertEquals(0, gate.tenantShares().inFlight("acme"));
    assertInstanceOf(Admission.Admitted.class, admission.admit(0, reserve("acme/shop/api"), "c1"), "the share is free again");
  }

  @Test
  void everyKindThatAddsWorkTakesItsTenantsOrItsSessionsShare() {
    Admission.Admitted ttl = assertInstanceOf(Admission.Admitted.class, admission.admit(0, put("acme"), "c1"));
    assertEquals("acme", ttl.tenant());
    Admission.Refused hot = assertInstanceOf(Admission.Refused.class, admission.admit(0, put("acme"), "c2"));
    assertEquals("tenant acme has 1 requests in flight, its share of this node", hot.message());
    assertInstanceOf(Admission.Admitted.class, admission.admit(0, put("globex"), "c1"), "another tenant passes");

    // A renewal names no tenant: it takes its session's share, one session's not another's.
    Request renew = new Request.RenewLease(1, 1, 1, 1, 0, 0, 0);
    Admission.Admitted s1 = assertInstanceOf(Admission.Admitted.class, admission.admit(0, renew, "c1"));
    Admission.Refused again = assertInstanceOf(Admission.Refused.class, admission.admit(0, renew, "c1"));
    assertEquals("this client session has 1 requests in flight, its share of this node", again.message());
    assertInstanceOf(Admission.Admitted.class, admission.admit(0, renew, "c2"));
    admission.release(s1);
    assertInstanceOf(Admission.Admitted.class, admission.admit(0, renew, "c1"), "released");
  }

  @Test
  void quotaModeGatesOnlyQuotaWorkAndNoneModeNothing() {
    for (TenantFairness mode : TenantFairness.values()) {
      AdmissionGate g = new AdmissionGate(new EndpointOptions(
          4096, 100, 10, Duration.ofSeconds(5), Duration.ofSeconds(30), 1, 1, mode));
      Admission a = new Admission(g, () -> "");
      a.admit(0, put("acme"), "c1");
      a.admit(0, reserve("acme/shop/web"), "c1");
      boolean ttlGated = a.admit(0, put("acme"), "c1") instanceof Admission.Refused;
      boolean quotaGated = a.admit(0, reserve("acme/shop/web"), "c1") instanceof Admission.Refused;
      assertEquals(mode == TenantFairness.ALL, ttlGated, mode + ": TTL writes gated");
      assertEquals(mode != TenantFairness.NONE, quotaGated, mode + ": reservations gated");
    }
  }

  @Test
  void theScopeFoundForAuthorizationIsTheOneFairnessCharges() {
    // The connection finds a request's scope once and hands it to both; admission must charge
    // the share of that scope, not look the request up again.
    Request acme = reserve("acme/shop");
    assertEquals(Scopes.of(acme), new Scope.Tenant("acme"));
    Admission.Admitted a = assertInstanceOf(Admission.Admitted.class,
        admission.admit(0, acme, new Scope.Tenant("globex"), "c1"));
    assertEquals("globex", a.tenant());
    assertEquals(1, gate.tenantShares().inFlight("globex"));
    assertEquals(0, gate.tenantShares().inFlight("acme"));
    admission.release(a);
    Admission.Admitted s = assertInstanceOf(Admission.Admitted.class,
        admission.admit(0, acme, Scope.SESSION, "c1"));
    assertTrue(s.tenant().endsWith("c1"), "a session scope takes the session's share: " + s.tenant());
    admission.release(s);
    assertEquals(0, gate.inFlight());
  }

  private static Request put(String namespace) {
    return new Request.Ttl(new TtlRequest.Put(namespace, "k", new byte[] {1}, 1_000));
  }
}
