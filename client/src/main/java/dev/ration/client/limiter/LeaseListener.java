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
  /** The limiter moved from {@code previous} to {@code current}. */
  void onLeaseStateChanged(RateLimiter limiter, LeaseState previous, LeaseState current);

  /**
   * A renewal was answered {@code outcome}, {@code latency} after its first send (resends of an
   * unanswered renewal included).
   */
  default void onRenewAnswered(RateLimiter limiter, Outcome outcome, Duration latency) {
  }
}
