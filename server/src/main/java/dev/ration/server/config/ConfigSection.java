package dev.ration.server.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One mapping of the YAML tree being validated, with its key path ("raft", "cluster.peers[2]").
 * Each value getter records a problem (never throws) and returns empty when the value is bad, so
 * the loader reports every problem of a file at once; an absent value is empty and silent, since
 * whether it is required or defaulted is the schema's business ({@link ConfigSchema}). Remembers
 * which keys were asked for so {@link #rejectUnknownKeys()} can flag typos. Used by one thread
 * during one load.
 */
final class ConfigSection {
  private final String path;
  private final Map<String, Object> values;
  private final List<String> problems;
  private final Set<String> known = new TreeSet<>();

  private ConfigSection(String path, Map<String, Object> values, List<String> problems) {
    this.path = path;
    this.values = values;
    this.problems = problems;
  }

  /** The root mapping of a document. */
  static Optional<ConfigSection> root(Object document, List<String> problems) {
    return of("", document, problems);
  }

  /** A mapping found at {@code path}; records a problem if {@code raw} is not a string-keyed mapping. */
  static Optional<ConfigSection> of(String path, Object raw, List<String> problems) {
    if (!(raw instanceof Map<?, ?> map)) {
      problems.add((path.isEmpty() ? "the document" : path) + ": expected a mapping of keys to values, got "
          + describe(raw));
      return Optional.empty();
    }
    Map<String, Object> copy = new LinkedHashMap<>();
    boolean ok = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (e.getKey() instanceof String s) {
        copy.put(s, e.getValue());
      } else {
        problems.add(join(path, String.valueOf(e.getKey())) + ": keys must be strings, got " + describe(e.getKey()));
        ok = false;
      }
    }
    return ok || !copy.isEmpty() ? Optional.of(new ConfigSection(path, copy, problems)) : Optional.empty();
  }

  String path() {
    return path;
  }

  String pathOf(String key) {
    return join(path, key);
  }

  void problem(String key, String message) {
    problems.add(pathOf(key) + ": " + message);
  }

  boolean has(String key) {
    known.add(key);
    return values.containsKey(key) && values.get(key) != null;
  }

  /** A nested mapping; empty if absent (a problem only if {@code required}) or not a mapping. */
  Optional<ConfigSection> section(String key, boolean required) {
    known.add(key);
    if (!values.containsKey(key) || values.get(key) == null) {
      if (required) {
        problem(key, "is required");
      }
      return Optional.empty();
    }
    return of(pathOf(key), values.get(key), problems);
  }

  /** An empty mapping at {@code key}, for an optional section that is absent: all its defaults. */
  ConfigSection emptySection(String key) {
    return new ConfigSection(pathOf(key), Map.of(), problems);
  }

  /** A list of mappings. */
  Optional<List<ConfigSection>> sectionList(String key) {
    known.add(key);
    Object raw = values.get(key);
    if (raw == null) {
      return Optional.empty();
    }
    if (!(raw instanceof List<?> list)) {
      problem(key, "expected a list, got " + describe(raw));
      return Optional.empty();
    }
    List<ConfigSection> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      of(pathOf(key) + "[" + i + "]", list.get(i), problems).ifPresent(out::add);
    }
    return Optional.of(out);
  }

  /**
   * A string. Numbers are accepted as their decimal text; YAML booleans (yes, no, on, off) are
   * refused, because `id: no` silently becoming "false" is worse than an error.
   */
  Optional<String> string(String key) {
    known.add(key);
    Object raw = values.get(key);
    if (raw == null) {
      return Optional.empty();
    }
    if (raw instanceof String s) {
      if (s.isBlank()) {
        problem(key, "must not be empty");
        return Optional.empty();
      }
      return Optional.of(s.trim());
    }
    if (raw instanceof Integer || raw instanceof Long || raw instanceof java.math.BigInteger) {
      return Optional.of(raw.toString());
    }
    problem(key, "expected a string, got " + describe(raw) + " (quote it)");
    return Optional.empty();
  }

  /** A list of non-empty strings. */
  Optional<List<String>> stringList(String key) {
    known.add(key);
    Object raw = values.get(key);
    if (raw == null) {
      return Optional.empty();
    }
    if (!(raw instanceof List<?> list)) {
      problem(key, "expected a list of strings, got " + describe(raw));
      return Optional.empty();
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      Object item = list.get(i);
      if (!(item instanceof String str) || str.isBlank()) {
        problem(key + "[" + i + "]", "expected a non-empty string, got " + describe(item));
        return Optional.empty();
      }
      out.add(str.trim());
    }
    return Optional.of(out);
  }

  /** A boolean (true/false). */
  Optional<Boolean> bool(String key) {
    known.add(key);
    Object raw = values.get(key);
    if (raw == null) {
      return Optional.empty();
    }
    if (raw instanceof Boolean b) {
      return Optional.of(b);
    }
    problem(key, "expected true or false, got " + describe(raw));
    return Optional.empty();
  }

  Optional<Long> integer(String key, long min, long max) {
    known.add(key);
    Object raw = values.get(key);
    if (raw == null) {
      return Optional.empty();
    }
    if (!(raw instanceof Integer || raw instanceof Long || raw instanceof java.math.BigInteger)) {
      problem(key, "expected a whole number, got " + describe(raw));
      return Optional.empty();
    }
    if (raw instanceof java.math.BigInteger) {
      problem(key, raw + " is above the maximum " + max);
      return Optional.empty();
    }
    long v = ((Number) raw).longValue();
    return bounded(key, v, Long.toString(v), min, max, Long::toString);
  }

  Optional<Duration> duration(String key, Duration min, Duration max) {
    known.add(key);
    Object raw = values.get(key);
    if (raw == null) {
      return Optional.empty();
    }
    Duration d;
    if (raw instanceof Integer i && i == 0) {
      d = Duration.ZERO;
    } else if (raw instanceof String s) {
      try {
        d = Quantities.parseDuration(s);
      } catch (IllegalArgumentException e) {
        problem(key, e.getMessage());
        return Optional.empty();
      }
    } else {
      problem(key, "expected a duration with a unit (e.g. 250ms, 2s, 5m), got " + describe(raw));
      return Optional.empty();
    }
    String shown = raw.toString().trim();
    if (d.compareTo(min) < 0) {
      problem(key, shown + " is below the minimum " + Quantities.formatDuration(min));
      return Optional.empty();
    }
    if (d.compareTo(max) > 0) {
      problem(key, shown + " is above the maximum " + Quantities.formatDuration(max));
      return Optional.empty();
    }
    return Optional.of(d);
  }

  Optional<Long> size(String key, long min, long max) {
    known.add(key);
    Object raw = values.get(key);
    if (raw == null) {
      return Optional.empty();
    }
    long v;
    if (raw instanceof Integer || raw instanceof Long) {
      v = ((Number) raw).longValue();
    } else if (raw instanceof String s) {
      try {
        v = Quantities.parseSize(s);
      } catch (IllegalArgumentException e) {
        problem(key, e.getMessage());
        return Optional.empty();
      }
    } else {
      problem(key, "expected a size (e.g. 1MiB, 512KiB, or a number of bytes), got " + describe(raw));
      return Optional.empty();
    }
    return bounded(key, v, raw.toString().trim(), min, max, Quantities::formatSize);
  }

  private Optional<Long> bounded(
      String key, long v, String shown, long min, long max, java.util.function.LongFunction<String> fmt) {
    if (v < min) {
      problem(key, shown + " is below the minimum " + fmt.apply(min));
      return Optional.empty();
    }
    if (v > max) {
      problem(key, shown + " is above the maximum " + fmt.apply(max));
      return Optional.empty();
    }
    return Optional.of(v);
  }

  /** Flags every key of this mapping no getter asked for: a misspelt key must not be ignored. */
  void rejectUnknownKeys() {
    for (String key : values.keySet()) {
      if (!known.contains(key)) {
        problem(key, "unknown key (known keys here: " + String.join(", ", known) + ")");
      }
    }
  }

  static String describe(Object raw) {
    if (raw == null) {
      return "nothing";
    }
    if (raw instanceof Map<?, ?>) {
      return "a mapping";
    }
    if (raw instanceof List<?>) {
      return "a list";
    }
    if (raw instanceof Boolean b) {
      return "the boolean " + b;
    }
    if (raw instanceof Number n) {
      return "the number " + n;
    }
    return "'" + raw + "'";
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }
}
