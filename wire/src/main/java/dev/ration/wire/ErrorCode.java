package dev.ration.wire;

/**
 * Protocol-level error codes carried by every response (0 = OK). Stable, documented in
 * docs/PROTOCOL.md, append-only. Domain outcomes (LIMIT_EXHAUSTED, LEASE_EXPIRED, ...) are not
 * errors: they travel inside an OK response's body as {@link Outcome}.
 *
 * <p>{@link #definite()} tells the client whether the request certainly had no effect (a
 * definite failure, Jepsen's {@code :fail}) or may have (indeterminate, {@code :info}).
 */
public enum ErrorCode {
  OK(0, true),
  NOT_LEADER(1, true),
  OVERLOADED(2, true),
  INVALID_ARGUMENT(3, true),
  STALE_CONFIG(4, true),
  UNAUTHENTICATED(5, true),
  PERMISSION_DENIED(6, true),
  /** The deadline passed; if the request was already proposed it may still commit. */
  DEADLINE_EXCEEDED(7, false),
  /** No leader, shutting down, or the log could not be reached; may or may not have applied. */
  UNAVAILABLE(8, false),
  FRAME_TOO_LARGE(9, true),
  UNSUPPORTED_VERSION(10, true),
  UNKNOWN_KIND(11, true),
  MALFORMED(12, true),
  /** HELLO was not the first frame, or was sent twice. */
  HELLO_REQUIRED(13, true),
  INTERNAL(14, false),
  /** Withdrawn by CANCEL (or by its connection closing) before it was proposed: never applied. */
  CANCELLED(15, true),
  /** The tenant's slot is served by another Raft group (the message names the owner this group
   *  last knew): nothing was applied; send it to the owner. */
  WRONG_GROUP(16, true),
  /** The tenant's slot is being moved between groups: nothing was applied; retry shortly
   *  ({@code retryAfterMillis}), under the same request id. */
  MOVING(17, true);

  private final int code;
  private final boolean definite;

  ErrorCode(int code, boolean definite) {
    this.code = code;
    this.definite = definite;
  }

  public int code() {
    return code;
  }

  public boolean definite() {
    return definite;
  }

  /** The error for a code, or null if unknown (a newer server): treat as INTERNAL. */
  public static ErrorCode fromCode(int code) {
    for (ErrorCode e : values()) {
      if (e.code == code) {
        return e;
      }
    }
    return null;
  }
}
