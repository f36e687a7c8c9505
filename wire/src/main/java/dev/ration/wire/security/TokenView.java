package dev.ration.wire.security;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * What anyone may see of a bearer token: never its secret, salt or hash. {@code expiresAtMillis}
 * is ledger (log) time; {@link #NEVER} means the token does not expire.
 */
public record TokenView(
    long tokenId, String identity, long createdAtMillis, long expiresAtMillis, String createdBy) {
  public static final long NEVER = Long.MAX_VALUE;

  /** Its one encoding: the protocol's answers carry it in this field order. */
  public static final Shape<TokenView> SHAPE =
      Shape.of(
          TokenView.class,
          i64("tokenId", TokenView::tokenId),
          str("identity", TokenView::identity),
          i64("createdAtMillis", TokenView::createdAtMillis),
          i64("expiresAtMillis", TokenView::expiresAtMillis),
          str("createdBy", TokenView::createdBy));
}
