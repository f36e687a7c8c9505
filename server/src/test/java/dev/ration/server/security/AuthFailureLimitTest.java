package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.security.SecurityTable;
import dev.ration.statemachine.security.StoredToken;
import dev.ration.wire.Bytes;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.security.RoleGrant;
import dev.ration.wire.security.TokenView;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Goal: a flood of bad tokens from one address holds back only further token attempts from that
 * address on that port: a verified client certificate from the same address is admitted at
 * once, and so is a good token on the other port; the hold lifts with time (a manual clock).
 */
class AuthFailureLimitTest {
  @Test
  void aTokenFloodLocksOutNeitherCertificatesNorTheOtherPort() {
    Tokens.Minted good = Tokens.mint();
    SecurityTable table = SecurityTable.of(List.of(new StoredToken(good.tokenId(), "svc",
            new Bytes(good.salt()), new Bytes(good.hash()), 0, TokenView.NEVER, "test")),
        List.of(new RoleGrant("svc", "service", "*", 0, "test")));
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    Security security = new Security(
        new SecurityOptions(SecurityOptions.Mode.SECURE, List.of("admin"), true, 10),
        () -> table, () -> 1, (identity, reason) -> { }, nanos::get);
    byte[] garbage = "rtn_0000000000000001_wrong".getBytes(StandardCharsets.US_ASCII);
    byte[] token = good.text().getBytes(StandardCharsets.US_ASCII);
    String attacker = "10.1.2.3";
    for (int i = 0; i < 150; i++) {
      assertInstanceOf(Security.Refusal.class,
          security.authenticate(garbage, Optional.empty(), Security.Port.ADMIN, attacker));
    }
    Security.Refusal held = assertInstanceOf(Security.Refusal.class,
        security.authenticate(token, Optional.empty(), Security.Port.ADMIN, attacker));
    assertEquals(ErrorCode.UNAUTHENTICATED, held.code());
    assertTrue(held.message().contains("too many failed token authentications"), held.message());

    Principal admin = assertInstanceOf(Principal.class, security.authenticate(new byte[0],
        Optional.of("admin"), Security.Port.ADMIN, attacker), "a verified certificate is admitted");
    assertEquals("admin", admin.identity());
    Principal svc = assertInstanceOf(Principal.class,
        security.authenticate(token, Optional.empty(), Security.Port.CLIENT, attacker),
        "the client port keeps its own count");
    assertEquals("svc", svc.identity());

    nanos.addAndGet(61_000_000_000L);
    assertInstanceOf(Principal.class,
        security.authenticate(token, Optional.empty(), Security.Port.ADMIN, attacker),
        "the hold ends (at most 60 s)");
  }
}
