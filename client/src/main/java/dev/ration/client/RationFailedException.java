package dev.ration.client;

import dev.ration.wire.ErrorCode;

/** A definite failure: the request certainly had no effect. */
public final class RationFailedException extends RationException {
  RationFailedException(ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
    super(code, message, retryAfterMillis, cause);
  }

  @Override
  public boolean definite() {
    return true;
  }
}
