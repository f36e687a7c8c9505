package dev.ration.client.pool;

import java.time.Duration;

/** The pool's immediate answer to a submission. */
public sealed interface SubmitResult<T> {
  /** The job is queued; its outcome arrives through the handle. */
  record Accepted<T>(JobHandle<T> handle) implements SubmitResult<T> {
  }

  /** Refused for good: resubmitting the same job will be refused again. */
  record Rejected<T>(RejectReason reason, String detail) implements SubmitResult<T> {
  }

  /** The queue is full now; try again after {@code retryAfter} (an estimate, never zero). */
  record Overloaded<T>(Duration retryAfter) implements SubmitResult<T> {
  }

  /** Why a submission was rejected. */
  enum RejectReason {
    /** The pool is shutting down. */
    STOPPING,
    /** The job's deadline has passed. */
    DEADLINE_PASSED
  }
}
