package dev.ration.client.transport;

import dev.ration.wire.ErrorCode;

/**
 * What a failed {@link Transport} call tells its caller: the wire error, whether the request
 * certainly had no effect, and the server's retry-after hint. Implemented by the client's
 * exceptions ({@code RationException}), so the feature packages can read a failure without
 * depending on the package that throws it.
 */
public interface CallFailure {
  /**
   * Why the call failed.
   *
   * @return the wire error
   */
  ErrorCode code();

  /**
   * True: the request certainly had no effect. False: it may have been applied.
   *
   * @return whether the failure is definite
   */
  boolean definite();

  /**
   * The server's hint (OVERLOADED, UNAVAILABLE), or 0 when none was given.
   *
   * @return milliseconds to wait before retrying
   */
  long retryAfterMillis();
}
