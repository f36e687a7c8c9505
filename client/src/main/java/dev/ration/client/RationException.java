package dev.ration.client;

import dev.ration.wire.ErrorCode;
import dev.ration.client.transport.CallFailure;

/**
 * A call that did not produce a reply. {@link #definite()} tells the two kinds apart, as
 * Jepsen's {@code :fail} and {@code :info} do: a definite failure certainly had no effect; an
 * indeterminate one may have been applied (retry it only with the same request id).
 * Domain outcomes (LIMIT_EXHAUSTED, ...) are never exceptions: they are values in the reply.
 */
public abstract sealed class RationException extends RuntimeException implements CallFailure
    permits RationFailedException, RationIndeterminateException {
  /** Why the call failed. */
  private final ErrorCode code;
  /** The server's retry hint, 0 when none. */
  private final long retryAfterMillis;

  RationException(ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
    super(code + ": " + message, cause);
    this.code = code;
    this.retryAfterMillis = retryAfterMillis;
  }

  @Override
  public ErrorCode code() {
    return code;
  }

  /** True: the request certainly had no effect. False: it may have been applied. */
  @Override
  public abstract boolean definite();

  /** The server's hint (OVERLOADED, UNAVAILABLE), or 0 when none was given. */
  @Override
  public long retryAfterMillis() {
    return retryAfterMillis;
  }

  static RationException of(
      ErrorCode code, String message, boolean definite, long retryAfterMillis, Throwable cause) {
    return definite
        ? new RationFailedException(code, message, retryAfterMillis, cause)
        : new RationIndeterminateException(code, message, retryAfterMillis, cause);
  }
}
