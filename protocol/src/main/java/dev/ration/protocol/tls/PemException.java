package dev.ration.protocol.tls;

import java.nio.file.Path;

/**
 * A PEM file that cannot be used: missing, unreadable, not PEM, or holding the wrong kind of
 * object. The message names the file and what is wrong with it.
 */
public final class PemException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  public PemException(Path file, String problem) {
    super(file + ": " + problem);
    this.file = file;
  }

  public PemException(Path file, String problem, Throwable cause) {
    super(file + ": " + problem, cause);
    this.file = file;
  }

  /** The file the problem is in. */
  public Path file() {
    return file;
  }

  /** The problem without the file name in front. */
  public String problem() {
    String m = getMessage();
    String prefix = file + ": ";
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }
}
