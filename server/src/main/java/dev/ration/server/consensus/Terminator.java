package dev.ration.server.consensus;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the state machine does when applying an entry breaks an invariant or the store fails:
 * stop the process (fail-stop beats divergence, as Ozone terminates on a DB error). Tests inject
 * one that records the failure instead of halting the JVM.
 */
@FunctionalInterface
public interface Terminator {
  void terminate(String message, Throwable cause);

  /** Logs, then {@link Runtime#halt}: no shutdown hooks, so nothing else touches the state. */
  static Terminator halting() {
    return (message, cause) -> {
      Logger log = LoggerFactory.getLogger(Terminator.class);
      log.error("FATAL, halting: {}", message, cause);
      System.err.println("FATAL, halting: " + message + ": " + cause);
      System.err.flush();
      Runtime.getRuntime().halt(70);
    };
  }
}
