package dev.ration.client;

import dev.ration.wire.ErrorCode;

/**
 * An indeterminate failure: the request may or may not have been applied (a deadline passed or
 * the connection was lost after it was written). Retrying with the same request id is safe.
 */
public final class RationIndeterminateException extends RationException {
  RationIndeterminateException(
      ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
    super(code, message, retryAfterMillis, cause);
  }

  @Override
  public boolean definite() {
    return false;
  }
}
