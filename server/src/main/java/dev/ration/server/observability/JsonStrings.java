package dev.ration.server.observability;

/**
 * A JSON string literal, the one escaping every hand-built JSON of the server shares (status,
 * JSON log lines, the CLI's output): quotes, backslash and control characters escaped.
 */
public final class JsonStrings {
  private JsonStrings() {}

  /** Appends {@code s} to {@code out} as a quoted JSON string. */
  public static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }
}
