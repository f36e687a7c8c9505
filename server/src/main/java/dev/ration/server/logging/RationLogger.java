package dev.ration.server.logging;

import java.io.PrintStream;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * A logger writing one line per event to standard error (so an admin command's standard output
 * stays its answer alone), at or above its level. Thread-safe: a line is formatted first and
 * written with one call under the stream's lock, so lines of concurrent threads never interleave.
 */
final class RationLogger extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final transient LogSettings settings;
  private final int threshold;

  RationLogger(String name, LogSettings settings) {
    this.name = name;
    this.settings = settings;
    this.threshold = settings.levelOf(name).toInt();
  }

  private boolean enabled(Level level) {
    return level.toInt() >= threshold;
  }

  @Override
  public boolean isTraceEnabled() {
    return enabled(Level.TRACE);
  }

  @Override
  public boolean isDebugEnabled() {
    return enabled(Level.DEBUG);
  }

  @Override
  public boolean isInfoEnabled() {
    return enabled(Level.INFO);
  }

  @Override
  public boolean isWarnEnabled() {
    return enabled(Level.WARN);
  }

  @Override
  public boolean isErrorEnabled() {
    return enabled(Level.ERROR);
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
      Throwable throwable) {
    String message = arguments == null || arguments.length == 0
        ? String.valueOf(pattern)
        : MessageFormatter.basicArrayFormat(pattern, arguments);
    String line = LogLine.format(settings.json(), System.currentTimeMillis(), level, LogContext.nodeId(),
        LogContext.raftPosition(), Thread.currentThread().getName(), name, message, throwable);
    PrintStream err = System.err;
    synchronized (err) {
      err.print(line);
      err.flush();
    }
  }
}
