package dev.ration.statemachine;

/**
 * A broken invariant inside the state machine: a bug. Never caught and continued; the server
 * terminates (fail-stop beats divergence). Messages name every value involved.
 */
public final class InvariantViolation extends RuntimeException {
  public InvariantViolation(String message) {
    super(message);
  }
}
