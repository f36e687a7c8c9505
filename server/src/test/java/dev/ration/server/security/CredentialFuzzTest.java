package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.wire.ErrorCode;
import dev.ration.statemachine.security.SecurityTable;
import dev.ration.statemachine.security.StoredToken;
import dev.ration.wire.Bytes;
import dev.ration.wire.security.TokenView;
import java.util.List;
import java.util.Optional;

/**
 * Goal: any HELLO credential a peer can send either authenticates as the one identity whose
 * token it is, or is refused UNAUTHENTICATED; no exception escapes and nothing else is
 * possible. A fixed token is known to the table, so inputs near it (a right id with a wrong
 * secret) reach the hash comparison. Corpus: {@code CredentialFuzzTestInputs/authenticate/}.
 */
class CredentialFuzzTest {
  /** A token whose id and secret the seeds use: rtn_00000000000000aa_ + 32 zero bytes. */
  static final long KNOWN_ID = 0xaa;
  static final byte[] KNOWN_SECRET = new byte[Tokens.SECRET_BYTES];
  static final byte[] SALT = new byte[Tokens.SALT_BYTES];

  private static final SecurityTable TABLE = SecurityTable.of(List.of(new StoredToken(KNOWN_ID,
      "svc", new Bytes(SALT), new Bytes(Tokens.hash(SALT, KNOWN_SECRET)), 0, TokenView.NEVER,
      "test")), List.of());

  // Many failures per minute are allowed so that the fuzzer keeps reaching the parser.
  private static final Security SECURITY = new Security(
      new SecurityOptions(SecurityOptions.Mode.SECURE, List.of(), true, 10_000),
      () -> TABLE, () -> 1, Security.RefusalListener.NONE, System::nanoTime);

  @FuzzTest(maxDuration = "10s")
  void authenticate(byte[] credential) {
    Object result = SECURITY.authenticate(credential, Optional.empty(), Security.Port.CLIENT, "fuzz");
    if (result instanceof Principal p) {
      assertEquals("svc", p.identity());
      assertEquals(KNOWN_ID, p.tokenId());
      assertTrue(Tokens.parse(credential).isPresent());
    } else {
      Security.Refusal r = (Security.Refusal) result;
      assertEquals(ErrorCode.UNAUTHENTICATED, r.code());
      assertNotEquals("", r.message());
    }
  }
}
