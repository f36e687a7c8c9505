package dev.ration.client.limiter;

import dev.ration.wire.Outcome;
import java.time.Duration;

/**
 * Told about a {@link RateLimiter}'s lease: each change of {@link LeaseState} and each answered
 * renewal. Called on the limiter's scheduler (the client's event loop), one call at a time and
 * in order, never under the limiter's lock: keep it short and never block in it. An exception
 * thrown by a listener is dropped, so a faulty listener cannot stop the lease's lifecycle.
 */
public interface LeaseListener {
  /**
   * The limiter moved from {@code previous} to {@code current}.
   *
   * @param limiter the limiter
   * @param previous the state it left
   * @param current the state it is in now
   */
  void onLeaseStateChanged(RateLimiter limiter, LeaseState previous, LeaseState current);

  /**
   * A renewal was answered {@code outcome}, {@code latency} after its first send (resends of an
   * unanswered renewal included).
   *
   * @param limiter the limiter
   * @param outcome the ledger's answer
   * @param latency from the renewal's first send to the answer
   */
  default void onRenewAnswered(RateLimiter limiter, Outcome outcome, Duration latency) {
  }
}
