package dev.ration.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Goal: every operation's descriptor is complete, and the retry policy's mutations are exact. */
class KindTest {

  @Test
  void everyKindNamesItsPermissionAndShapes() {
    for (Kind k : Kind.values()) {
      assertNotNull(k.permission(), k + " permission");
      assertNotNull(k.requestShape(), k + " request shape");
      assertNotNull(k.replyShape(), k + " reply shape");
      assertSame(k, Kind.fromCode(k.code()));
      assertSame(k, Kind.fromCode(k.responseCode()));
    }
  }

  @Test
  void mutationsAreTheKindsThatChangeReplicatedState() {
    Set<Kind> mutations =
        Arrays.stream(Kind.values()).filter(Kind::mutation).collect(Collectors.toSet());
    assertEquals(
        EnumSet.of(
            Kind.SET_LIMIT, Kind.ACQUIRE_LEASE, Kind.RENEW_LEASE, Kind.RENEW_LEASES, Kind.RETURN_LEASE,
            Kind.SET_LIMIT_CONCURRENCY, Kind.ACQUIRE_SLOTS, Kind.RENEW_SLOTS,
            Kind.TTL_PUT, Kind.TTL_CAS, Kind.TTL_REFRESH, Kind.TTL_DELETE, Kind.TTL_NAMESPACE_SET, Kind.TTL_UPDATE,
            Kind.QUOTA_SET, Kind.RESERVE, Kind.RESERVE_KEYED, Kind.RESERVATION_COMPLETE,
            Kind.RESERVATION_CANCEL,
            Kind.USAGE_INGEST, Kind.USAGE_ACK, Kind.USAGE_RECONCILE,
            Kind.BUDGET_GRANT, Kind.BUDGET_REPORT, Kind.BUDGET_RETURN, Kind.RESERVE_BATCH,
            Kind.TOKEN_CREATE, Kind.TOKEN_REVOKE, Kind.ROLE_GRANT, Kind.ROLE_REVOKE),
        mutations);
  }

  @Test
  void unknownCodesHaveNoKind() {
    assertNull(Kind.fromCode(0x00));
    assertNull(Kind.fromCode(0x7F));
    assertNull(Kind.fromCode(0x100));
    assertNull(Kind.fromCode(-1));
  }
}
