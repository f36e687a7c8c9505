package dev.ration.client.transport;

import dev.ration.wire.ErrorCode;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * What a failed {@link Transport} call tells its caller: the wire error, whether the request
 * certainly had no effect, and the server's retry-after hint. The client's public exception
 * ({@code RationException}) lives in the root package, which the feature packages must not
 * depend on; and it must not show this internal view in its own signature. So the root package
 * registers a reader here when that exception class is initialized, and the feature packages
 * read a failure through {@link #of}. No failure of that type can exist before its class is
 * initialized, so a reader missing means there is nothing to read.
 *
 * @param code why the call failed
 * @param definite true: the request certainly had no effect; false: it may have been applied
 * @param retryAfterMillis the server's hint (OVERLOADED, UNAVAILABLE), 0 when none was given
 */
public record CallFailure(ErrorCode code, boolean definite, long retryAfterMillis) {
  private static volatile Function<Throwable, CallFailure> reader = t -> null;

  /**
   * Installs the function that reads a failed call's exception (the client's root package does,
   * once).
   *
   * @param r returns the failure an exception describes, or null if it describes none
   */
  public static void register(Function<Throwable, CallFailure> r) {
    reader = r;
  }

  /**
   * The failure {@code t} describes, looking through {@link CompletionException} and
   * {@link ExecutionException} wrappers.
   *
   * @param t what a call failed with
   * @return its failure, or empty when it is not a failed call's exception
   */
  public static Optional<CallFailure> of(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    return c == null ? Optional.empty() : Optional.ofNullable(reader.apply(c));
  }
}
