package dev.ration.client.pool;

import java.time.Instant;

/**
 * Where a {@link WorkerPool}'s concurrency comes from: how many jobs it may run at once, and
 * until when that permission holds. A fixed source grants a constant number forever; a leased
 * source holds a share of a fleet-wide cap C and renews it, so the sum over every pool stays
 * at most C.
 *
 * <p>The pool runs at most {@code min(workers, permits())} jobs. It starts nothing once
 * {@code validUntil()} is within its cancel lead time, cancels the tokens of running jobs at
 * that point, and counts a job still running at {@code validUntil()} as an overrun. It reports
 * its demand through {@link #reportUsage} so a leased source can ask for what it needs.
 *
 * <p>Implementations are thread-safe; {@code permits()} and {@code validUntil()} are read on
 * every job start, so they must be cheap (a volatile read).
 */
public interface SlotSource {
  /**
   * The number of jobs the pool may run at once now; 0 when no lease is held.
   *
   * @return how many jobs may run at once now
   */
  int permits();

  /**
   * The end of the current permission; {@link Instant#MAX} for a source that never expires.
   *
   * @return until when the permits hold
   */
  Instant validUntil();

  /**
   * Registers {@code onChange}, run (on any thread, quickly) whenever {@code permits()} or
   * {@code validUntil()} changes, so the pool reacts without waiting for its next tick.
   *
   * @param onChange run when the permits or their validity change
   */
  void addListener(Runnable onChange);

  /**
   * The pool's demand: jobs running and jobs waiting (queued or backing off before a retry).
   *
   * @param running jobs running now
   * @param queued jobs waiting now
   */
  void reportUsage(int running, int queued);

  /**
   * The pool started running an attempt of a job (one slot taken). A source that bills what
   * runs under it (slots of a quota, docs/QUOTAS.md) counts it; others ignore it. Called under
   * the pool's lock: must be quick and must not block.
   */
  default void attemptStarted() {}

  /**
   * An attempt the pool started (and told of through {@link #attemptStarted}) ended. A leased
   * source counts the attempts running from these two calls, exactly, for the promise its
   * renewals carry. Must be quick and must not block.
   */
  default void attemptEnded() {}

  /**
   * A source that always permits {@code n} concurrent jobs and never expires.
   *
   * @param n the permits
   * @return a source that always grants them
   */
  static SlotSource fixed(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("fixed slot count " + n + " must be >= 0");
    }
    return new SlotSource() {
      @Override
      public int permits() {
        return n;
      }

      @Override
      public Instant validUntil() {
        return Instant.MAX;
      }

      @Override
      public void addListener(Runnable onChange) {
        // Never changes, so never calls back.
      }

      @Override
      public void reportUsage(int running, int queued) {
        // A fixed grant does not depend on demand.
      }

      @Override
      public String toString() {
        return "fixed(" + n + ")";
      }
    };
  }
}
