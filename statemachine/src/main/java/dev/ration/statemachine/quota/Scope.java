package dev.ration.statemachine.quota;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A scope path: {@code org}, {@code org/tenant} or {@code org/tenant/project}. Each segment is
 * 1–64 characters of {@code [A-Za-z0-9._-]}. The levels of a scope are its prefixes, from the
 * organisation down: every level with a catalog entry for a resource is checked on admission.
 */
public final class Scope {
  public static final int MAX_DEPTH = 3;
  public static final int MAX_SEGMENT_CHARS = 64;

  private Scope() {}

  /** Why {@code scope} is not a valid scope path, or empty if it is. */
  public static Optional<String> problem(String scope) {
    if (scope.isEmpty()) {
      return Optional.of("scope is empty");
    }
    String[] segments = scope.split("/", -1);
    if (segments.length > MAX_DEPTH) {
      return Optional.of("scope '" + scope + "' has " + segments.length + " levels, at most "
          + MAX_DEPTH + " (org/tenant/project)");
    }
    for (String segment : segments) {
      if (segment.isEmpty() || segment.length() > MAX_SEGMENT_CHARS) {
        return Optional.of("scope '" + scope + "' has a segment of " + segment.length()
            + " characters, must be 1.." + MAX_SEGMENT_CHARS);
      }
      for (int i = 0; i < segment.length(); i++) {
        char c = segment.charAt(i);
        boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '.' || c == '_' || c == '-';
        if (!ok) {
          return Optional.of("scope '" + scope + "' has character '" + c
              + "'; segments use [A-Za-z0-9._-]");
        }
      }
    }
    return Optional.empty();
  }

  /** The levels of a valid scope, from the organisation down to the scope itself. */
  public static List<String> levels(String scope) {
    List<String> levels = new ArrayList<>(MAX_DEPTH);
    int from = 0;
    while (true) {
      int slash = scope.indexOf('/', from);
      if (slash < 0) {
        levels.add(scope);
        return levels;
      }
      levels.add(scope.substring(0, slash));
      from = slash + 1;
    }
  }

  /** Whether {@code scope} is {@code prefix} or below it ("" is above every scope). */
  static boolean under(String scope, String prefix) {
    // "acme/" is how a tenant-scoped caller pins its tenant (docs/SECURITY.md): it means acme
    // and everything below it, as "acme" does.
    String path = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    return path.isEmpty() || scope.equals(path) || scope.startsWith(path + "/");
  }
}
