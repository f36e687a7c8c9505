package dev.ration.server.config;

import java.util.List;

/**
 * A configuration that cannot be used: unreadable, not YAML, or invalid. Carries every problem
 * found (the loader collects them all rather than stopping at the first), each naming the key
 * path and the offending value, so an operator fixes the file in one pass.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final List<String> problems;

  public ConfigException(String source, List<String> problems) {
    super(render(source, problems));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("a ConfigException needs at least one problem, source " + source);
    }
    this.source = source;
    this.problems = List.copyOf(problems);
  }

  /** The file (or "embedded default") the problems were found in. */
  public String source() {
    return source;
  }

  /** One line per problem, e.g. {@code raft.election-timeout-min: 50ms is below the minimum 100ms}. */
  public List<String> problems() {
    return problems;
  }

  private static String render(String source, List<String> problems) {
    if (problems.size() == 1) {
      return "invalid configuration " + source + ": " + problems.get(0);
    }
    StringBuilder b = new StringBuilder();
    b.append("invalid configuration ").append(source).append(" (").append(problems.size()).append(" problems):");
    for (String p : problems) {
      b.append(System.lineSeparator()).append("  - ").append(p);
    }
    return b.toString();
  }
}
