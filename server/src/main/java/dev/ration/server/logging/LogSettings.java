package dev.ration.server.logging;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.slf4j.event.Level;

/**
 * How a node logs: the line format and the level per logger-name prefix (docs/OPERATIONS.md,
 * "Logs"). Read once, when the first logger is made, from (highest first) the system properties
 * {@code ration.log.format} and {@code ration.log.level}, the environment variables
 * {@code RATION_LOG_FORMAT} and {@code RATION_LOG_LEVEL}, a {@code ration-logging.properties}
 * on the class path (keys {@code format}, {@code level}; the tests ship one), else text at INFO.
 *
 * <p>A level spec is a comma-separated list: a bare level sets the default, {@code prefix=level}
 * sets it for loggers whose name starts with the prefix (the longest prefix wins), e.g.
 * {@code info,org.apache.ratis=warn,dev.ration.server.endpoint=debug}.
 *
 * @param json whether lines are JSON objects (else text)
 * @param rootLevel the level of loggers no prefix names
 * @param levels prefix → level
 * @param error why a given value was refused (then the defaults apply), or "" when all were valid
 */
public record LogSettings(boolean json, Level rootLevel, Map<String, Level> levels, String error) {
  public static final String FORMAT_ENV = "RATION_LOG_FORMAT";
  public static final String LEVEL_ENV = "RATION_LOG_LEVEL";
  public static final String FORMAT_PROPERTY = "ration.log.format";
  public static final String LEVEL_PROPERTY = "ration.log.level";

  public LogSettings {
    levels = Map.copyOf(levels);
  }

  static LogSettings resolve(Map<String, String> env, Properties system, Properties file) {
    String format = first(system.getProperty(FORMAT_PROPERTY), env.get(FORMAT_ENV), file.getProperty("format"), "text");
    String level = first(system.getProperty(LEVEL_PROPERTY), env.get(LEVEL_ENV), file.getProperty("level"), "info");
    StringBuilder error = new StringBuilder();
    boolean json = false;
    switch (format.trim().toLowerCase(Locale.ROOT)) {
      case "text" -> json = false;
      case "json" -> json = true;
      default -> error.append("log format must be text or json, not '").append(format).append("' (")
          .append(FORMAT_ENV).append(" or -D").append(FORMAT_PROPERTY).append(")");
    }
    Level root = Level.INFO;
    Map<String, Level> levels = new HashMap<>();
    for (String part : level.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      int eq = p.indexOf('=');
      Level l = parseLevel(eq < 0 ? p : p.substring(eq + 1).trim());
      if (l == null) {
        if (error.length() > 0) {
          error.append("; ");
        }
        error.append("log level must be trace, debug, info, warn or error, not '").append(p).append("' in '")
            .append(level).append("' (").append(LEVEL_ENV).append(" or -D").append(LEVEL_PROPERTY).append(")");
        continue;
      }
      if (eq < 0) {
        root = l;
      } else {
        levels.put(p.substring(0, eq).trim(), l);
      }
    }
    return new LogSettings(json, root, levels, error.toString());
  }

  private static Level parseLevel(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "trace" -> Level.TRACE;
      case "debug" -> Level.DEBUG;
      case "info" -> Level.INFO;
      case "warn", "warning" -> Level.WARN;
      case "error" -> Level.ERROR;
      default -> null;
    };
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    throw new IllegalArgumentException("no value");
  }

  /** The level of logger {@code name}: its longest configured prefix's, else the root level. */
  public Level levelOf(String name) {
    Level found = rootLevel;
    int longest = -1;
    for (Map.Entry<String, Level> e : levels.entrySet()) {
      String prefix = e.getKey();
      if (prefix.length() > longest && (name.equals(prefix) || name.startsWith(prefix + ".") || name.startsWith(prefix + "$"))) {
        found = e.getValue();
        longest = prefix.length();
      }
    }
    return found;
  }
}
