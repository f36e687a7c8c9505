package dev.ration.client;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger that keeps every line, at every level, for a test to read. */
final class CapturingLogger extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  /** A line as written: its level and its message with the arguments filled in. */
  record Line(Level level, String message) {}

  final List<Line> lines = new CopyOnWriteArrayList<>();

  CapturingLogger(String name) {
    this.name = name;
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern,
      Object[] arguments, Throwable throwable) {
    lines.add(new Line(level, MessageFormatter.basicArrayFormat(messagePattern, arguments)));
  }

  @Override
  public boolean isTraceEnabled() {
    return true;
  }

  @Override
  public boolean isDebugEnabled() {
    return true;
  }

  @Override
  public boolean isInfoEnabled() {
    return true;
  }

  @Override
  public boolean isWarnEnabled() {
    return true;
  }

  @Override
  public boolean isErrorEnabled() {
    return true;
  }
}
