package dev.ration.statemachine.security;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Bytes;
import dev.ration.wire.security.TokenView;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;

/**
 * A bearer token as the replicated state keeps it: its id, whose it is, and the salted hash
 * of its secret ({@code hash = SHA-256(salt || secret)}); never the secret. Times are ledger
 * milliseconds; {@code expiresAtMillis} is {@link TokenView#NEVER} for a token that does not
 * expire.
 */
public record StoredToken(long tokenId, String identity, Bytes salt, Bytes hash,
    long createdAtMillis, long expiresAtMillis, String createdBy) {

  /** The stored value after its format byte (family {@code security}, key 't' + id). */
  static final Shape<StoredToken> SHAPE =
      Shape.of(
          StoredToken.class,
          i64("tokenId", StoredToken::tokenId),
          str("identity", StoredToken::identity),
          Fields.value("salt", StoredToken::salt),
          Fields.value("hash", StoredToken::hash),
          i64("createdAtMillis", StoredToken::createdAtMillis),
          i64("expiresAtMillis", StoredToken::expiresAtMillis),
          str("createdBy", StoredToken::createdBy));

  /** Whether the token no longer authenticates at ledger time {@code nowMillis}. */
  public boolean expiredAt(long nowMillis) {
    return nowMillis >= expiresAtMillis;
  }

  public TokenView view() {
    return new TokenView(tokenId, identity, createdAtMillis, expiresAtMillis, createdBy);
  }
}
