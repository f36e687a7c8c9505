package dev.ration.client.ttl;

import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.Optional;

/**
 * Told about every call of a {@link TtlEntries} and about its locks, for metrics and logs
 * ({@code TtlMetrics} is one). Called on the thread that completes the call (often the client's
 * event loop): keep it short and never block.
 */
public interface TtlListener {
  /**
   * A call finished.
   *
   * @param operation the call
   * @param outcome the domain outcome of its answer ({@link Outcome#SUCCESS} for reads); empty
   *     when it failed without an answer (a {@code RationException})
   * @param latency from the call to its completion, retries included
   */
  default void onCall(TtlOperation operation, Optional<Outcome> outcome, Duration latency) {}

  /**
   * A lock was taken.
   *
   * @param name the lock
   * @param fencingToken its fencing token
   */
  default void onLockAcquired(String name, long fencingToken) {}

  /**
   * A holder found its lock gone: a refresh or release under its fencing token failed because
   * the lock had lapsed or someone else holds it now.
   *
   * @param name the lock
   * @param fencingToken the token the holder had
   */
  default void onLockLost(String name, long fencingToken) {}
}
