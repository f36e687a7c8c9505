package dev.ration.cli.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader for tests that parse the CLI's `--output json`: objects become
 * LinkedHashMap, arrays ArrayList, integers Long, other numbers Double, plus String, Boolean and
 * null. Anything malformed (or trailing text) throws IllegalArgumentException naming the offset.
 */
final class TestJson {
  private final String s;
  private int i;

  private TestJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    TestJson p = new TestJson(text);
    p.ws();
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) {
      throw p.error("trailing text");
    }
    return v;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> object(String text) {
    Object v = parse(text);
    if (!(v instanceof Map)) {
      throw new IllegalArgumentException("expected a JSON object, got: " + text);
    }
    return (Map<String, Object>) v;
  }

  private Object value() {
    if (i >= s.length()) {
      throw error("unexpected end");
    }
    char c = s.charAt(i);
    switch (c) {
      case '{': return obj();
      case '[': return arr();
      case '"': return str();
      case 't': return lit("true", Boolean.TRUE);
      case 'f': return lit("false", Boolean.FALSE);
      case 'n': return lit("null", null);
      default: return num();
    }
  }

  private Map<String, Object> obj() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++;
    ws();
    if (peek('}')) {
      i++;
      return m;
    }
    while (true) {
      ws();
      String k = str();
      ws();
      expect(':');
      ws();
      m.put(k, value());
      ws();
      if (peek(',')) {
        i++;
        continue;
      }
      expect('}');
      return m;
    }
  }

  private List<Object> arr() {
    List<Object> l = new ArrayList<>();
    i++;
    ws();
    if (peek(']')) {
      i++;
      return l;
    }
    while (true) {
      ws();
      l.add(value());
      ws();
      if (peek(',')) {
        i++;
        continue;
      }
      expect(']');
      return l;
    }
  }

  private String str() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      if (i >= s.length()) {
        throw error("unterminated string");
      }
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = s.charAt(i++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
        }
        default -> throw error("bad escape \\" + e);
      }
    }
  }

  private Object num() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    String t = s.substring(start, i);
    if (t.isEmpty()) {
      throw error("unexpected character '" + s.charAt(start) + "'");
    }
    try {
      return t.matches("-?\\d+") ? (Object) Long.parseLong(t) : (Object) Double.parseDouble(t);
    } catch (NumberFormatException e) {
      throw error("bad number " + t);
    }
  }

  private Object lit(String word, Object v) {
    if (!s.startsWith(word, i)) {
      throw error("expected " + word);
    }
    i += word.length();
    return v;
  }

  private boolean peek(char c) {
    return i < s.length() && s.charAt(i) == c;
  }

  private void expect(char c) {
    if (!peek(c)) {
      throw error("expected '" + c + "'");
    }
    i++;
  }

  private void ws() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at offset " + i + " of: " + s);
  }
}
