package dev.ration.cli;

/**
 * The CLI's exit codes, documented in docs/CLI.md. They follow the client's split between a
 * definite failure (the request certainly had no effect, or the domain said no) and an
 * indeterminate one (it may have applied): a script retries an indeterminate mutation only with
 * the same --client-id and --request-id.
 */
public final class Exit {
  public static final int OK = 0;
  /** Bad command line or bad configuration: nothing was sent. */
  public static final int USAGE = 1;
  /** A definite failure or a domain rejection (LIMIT_EXHAUSTED, NOT_LEADER, INVALID_ARGUMENT...). */
  public static final int FAILED = 2;
  /** Timeout, unavailable or unreachable: a mutation may or may not have applied. */
  public static final int INDETERMINATE = 3;

  private Exit() {}
}
