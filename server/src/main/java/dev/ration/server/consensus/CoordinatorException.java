package dev.ration.server.consensus;

/** Why a submit or query did not produce a result. */
public final class CoordinatorException extends RuntimeException {
  public enum Reason {
    /** This node is not the leader; {@link #leaderClientAddress()} names it if known. */
    NOT_LEADER,
    /** The group-commit queue is full: try again after {@link #retryAfterMillis()}. */
    OVERLOADED,
    /** The deadline passed before the command was proposed (definite) or answered. */
    DEADLINE_EXCEEDED,
    /** No leader / shutting down / log failure: the command may or may not have applied. */
    UNAVAILABLE,
    /** Withdrawn by its caller before it was proposed: never applied. */
    CANCELLED
  }

  private final Reason reason;
  private final String leaderClientAddress;
  private final int retryAfterMillis;
  private final boolean proposed;

  public CoordinatorException(
      Reason reason, String message, String leaderClientAddress, int retryAfterMillis, boolean proposed) {
    super(message);
    this.reason = reason;
    this.leaderClientAddress = leaderClientAddress == null ? "" : leaderClientAddress;
    this.retryAfterMillis = retryAfterMillis;
    this.proposed = proposed;
  }

  public Reason reason() {
    return reason;
  }

  public String leaderClientAddress() {
    return leaderClientAddress;
  }

  public int retryAfterMillis() {
    return retryAfterMillis;
  }

  /** True if the command reached Raft: its effect is then unknown, not absent. */
  public boolean proposed() {
    return proposed;
  }
}
