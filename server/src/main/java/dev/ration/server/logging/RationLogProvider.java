package dev.ration.server.logging;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * Ration's SLF4J backend (found through {@code META-INF/services}): timestamped lines with
 * level, node, term and commit index, as text or JSON ({@link LogSettings}). A dozen classes
 * instead of a logging framework: it starts in a few milliseconds, which matters to every
 * admin command, and has nothing to configure but a format and levels.
 */
public final class RationLogProvider implements SLF4JServiceProvider {
  private static volatile LogSettings settings;

  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();
  private ILoggerFactory factory;

  /** The settings in force (resolving them if no logger was made yet). */
  public static LogSettings settings() {
    LogSettings s = settings;
    if (s == null) {
      synchronized (RationLogProvider.class) {
        if (settings == null) {
          settings = LogSettings.resolve(System.getenv(), System.getProperties(), classpathFile());
        }
        s = settings;
      }
    }
    return s;
  }

  private static Properties classpathFile() {
    Properties p = new Properties();
    try (InputStream in = RationLogProvider.class.getResourceAsStream("/ration-logging.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // An unreadable optional defaults file: the built-in defaults apply.
    }
    return p;
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return factory;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {
    LogSettings s = settings();
    ConcurrentHashMap<String, RationLogger> loggers = new ConcurrentHashMap<>();
    factory = name -> loggers.computeIfAbsent(name, n -> new RationLogger(n, s));
  }
}
