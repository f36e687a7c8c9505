package dev.ration.client;

import dev.ration.client.transport.CallFailure;
import dev.ration.wire.ErrorCode;
import java.time.Duration;

/**
 * A call that did not produce a reply. {@link #definite()} tells the two kinds apart, as
 * Jepsen's {@code :fail} and {@code :info} do: a definite failure certainly had no effect; an
 * indeterminate one may have been applied (retry it only with the same request id).
 * Domain outcomes (LIMIT_EXHAUSTED, ...) are never exceptions: they are values in the reply.
 */
public abstract sealed class RationException extends RuntimeException
    permits RationFailedException, RationIndeterminateException {
  static {
    // The feature packages (limiter, slots) read failures through the transport's view.
    CallFailure.register(t -> t instanceof RationException e
        ? new CallFailure(e.code, e.definite(), e.retryAfterMillis) : null);
  }

  /** Why the call failed. */
  private final ErrorCode code;
  /** The server's retry hint, 0 when none. */
  private final long retryAfterMillis;

  RationException(ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
    super(code + ": " + message, cause);
    this.code = code;
    this.retryAfterMillis = Math.max(0, retryAfterMillis);
  }

  /**
   * Why the call failed.
   *
   * @return the wire error
   */
  public ErrorCode code() {
    return code;
  }

  /**
   * True: the request certainly had no effect. False: it may have been applied.
   *
   * @return whether the failure is definite
   */
  public abstract boolean definite();

  /**
   * How long the server asked callers to wait before trying again (it gives a hint with
   * OVERLOADED and UNAVAILABLE). {@link Duration#ZERO} when it gave none: retry with your own
   * backoff then. Never negative, so it can be passed to a sleep or scheduler as it is.
   *
   * @return the server's retry hint, or zero when none was given
   */
  public Duration retryAfter() {
    return Duration.ofMillis(retryAfterMillis);
  }

  static RationException of(
      ErrorCode code, String message, boolean definite, long retryAfterMillis, Throwable cause) {
    return definite
        ? new RationFailedException(code, message, retryAfterMillis, cause)
        : new RationIndeterminateException(code, message, retryAfterMillis, cause);
  }
}
