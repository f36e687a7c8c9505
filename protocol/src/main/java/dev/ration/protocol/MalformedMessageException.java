package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

/**
 * A payload that does not decode: truncated, trailing bytes, a bad enum code, a declared length
 * larger than what remains, or invalid UTF-8. The message names the field. The frame boundary
 * is intact when this is thrown, so the server answers {@link ErrorCode#MALFORMED} and keeps
 * the connection open. Unchecked so that the shared byte reader can throw it for the
 * protocol, while the log's readers throw their own format exceptions.
 */
public final class MalformedMessageException extends RuntimeException {
  private final String field;

  public MalformedMessageException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  /** The dotted path of the field that failed, e.g. {@code "LIST_LIMITS_REPLY.limits.limit.tenant"}. */
  public String field() {
    return field;
  }
}
