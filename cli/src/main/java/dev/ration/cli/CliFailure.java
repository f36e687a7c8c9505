package dev.ration.cli;

/**
 * Ends a command with an exit code and one line for stderr ("error: " is prefixed when printed).
 * Thrown by commands; turned into output by {@link RationCli}'s execution handler, never shown as
 * a stack trace.
 */
final class CliFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  CliFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  CliFailure(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
