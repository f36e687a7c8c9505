package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Goal: the admin-port commands present the bearer token they were given on every request, as
 * the client protocol does: in security mode secure a token-only operator is otherwise refused
 * 401 by every admin endpoint but /health and /ready.
 */
class AdminHttpTest {
  @Test
  void aGivenTokenIsSentAsBearerAndNoneIsSentWithoutOne() {
    HttpRequest with = AdminHttp.of(Optional.empty(), Duration.ofSeconds(1), "rtn_0123456789abcdef_secret")
        .request("127.0.0.1:7301", "/status").GET().build();
    assertEquals(Optional.of("Bearer rtn_0123456789abcdef_secret"), with.headers().firstValue("Authorization"));
    assertEquals("http://127.0.0.1:7301/status", with.uri().toString());

    HttpRequest without = AdminHttp.of(Optional.empty(), Duration.ofSeconds(1))
        .request("127.0.0.1:7301", "/membership/remove?id=n3").POST(HttpRequest.BodyPublishers.noBody()).build();
    assertTrue(without.headers().firstValue("Authorization").isEmpty(), without.headers().toString());
  }
}
