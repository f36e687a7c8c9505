package dev.ration.server.logging;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends java.util.logging records (gRPC inside Ratis logs that way) through the same lines as
 * everything else, so a JSON log stays one JSON object per line. Installed once at process start
 * ({@link #install}); it replaces the JUL root handlers, which would otherwise print their own
 * two-line format to standard error.
 */
public final class JulBridge extends Handler {
  private final SimpleFormatter messages = new SimpleFormatter();

  private JulBridge() {}

  /** Routes every JUL record to SLF4J from now on. */
  public static void install() {
    java.util.logging.Logger root = LogManager.getLogManager().getLogger("");
    for (Handler h : root.getHandlers()) {
      root.removeHandler(h);
    }
    root.addHandler(new JulBridge());
  }

  @Override
  public void publish(LogRecord record) {
    if (record == null) {
      return;
    }
    Logger log = LoggerFactory.getLogger(record.getLoggerName() == null ? "jul" : record.getLoggerName());
    String message = messages.formatMessage(record);
    Throwable t = record.getThrown();
    int level = record.getLevel().intValue();
    if (level >= Level.SEVERE.intValue()) {
      log.error(message, t);
    } else if (level >= Level.WARNING.intValue()) {
      log.warn(message, t);
    } else if (level >= Level.INFO.intValue()) {
      log.info(message, t);
    } else if (level >= Level.FINE.intValue()) {
      log.debug(message, t);
    } else {
      log.trace(message, t);
    }
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
