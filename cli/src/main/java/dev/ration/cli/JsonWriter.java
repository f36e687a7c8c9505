package dev.ration.cli;

import dev.ration.server.observability.JsonStrings;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small JSON writer for the CLI's --output json (no library: the server ships no JSON
 * dependency). Compact output, one document per command. Tracks nesting so commas come out
 * right; misuse (a value where a name is due) fails fast. One instance per document; not
 * thread-safe.
 */
final class JsonWriter {
  private final StringBuilder out = new StringBuilder();
  /** For each open container: true until its first element has been written. */
  private final Deque<Boolean> first = new ArrayDeque<>();
  /** For each open container: true if it is an object. */
  private final Deque<Boolean> isObject = new ArrayDeque<>();
  private boolean nameWritten;

  JsonWriter beginObject() {
    beforeValue();
    out.append('{');
    first.push(true);
    isObject.push(true);
    return this;
  }

  JsonWriter endObject() {
    close(true, '}');
    return this;
  }

  JsonWriter beginArray() {
    beforeValue();
    out.append('[');
    first.push(true);
    isObject.push(false);
    return this;
  }

  JsonWriter endArray() {
    close(false, ']');
    return this;
  }

  JsonWriter name(String name) {
    if (isObject.isEmpty() || !isObject.peek() || nameWritten) {
      throw new IllegalStateException("a name is only allowed inside an object, before its value: " + name);
    }
    if (!first.pop()) {
      out.append(',');
    }
    first.push(false);
    string(name);
    out.append(':');
    nameWritten = true;
    return this;
  }

  JsonWriter value(String v) {
    beforeValue();
    string(v);
    return this;
  }

  JsonWriter value(long v) {
    beforeValue();
    out.append(v);
    return this;
  }

  JsonWriter value(boolean v) {
    beforeValue();
    out.append(v);
    return this;
  }

  JsonWriter nullValue() {
    beforeValue();
    out.append("null");
    return this;
  }

  /** A field whose value is a String, Long/Integer, Boolean or null. */
  JsonWriter field(String name, Object v) {
    name(name);
    if (v == null) {
      return nullValue();
    }
    if (v instanceof String s) {
      return value(s);
    }
    if (v instanceof Long || v instanceof Integer) {
      return value(((Number) v).longValue());
    }
    if (v instanceof Boolean b) {
      return value(b);
    }
    throw new IllegalArgumentException("field " + name + " has unsupported type " + v.getClass());
  }

  /** The finished document. */
  String finish() {
    if (!first.isEmpty()) {
      throw new IllegalStateException(first.size() + " containers still open in " + out);
    }
    return out.toString();
  }

  private void beforeValue() {
    if (isObject.isEmpty()) {
      if (out.length() > 0) {
        throw new IllegalStateException("a document has one top-level value: " + out);
      }
      return;
    }
    if (isObject.peek()) {
      if (!nameWritten) {
        throw new IllegalStateException("a value inside an object needs a name first: " + out);
      }
      nameWritten = false;
    } else if (!first.pop()) {
      out.append(',');
      first.push(false);
    } else {
      first.push(false);
    }
  }

  private void close(boolean object, char c) {
    if (isObject.isEmpty() || isObject.peek() != object || nameWritten) {
      throw new IllegalStateException("cannot close " + c + " here: " + out);
    }
    isObject.pop();
    first.pop();
    out.append(c);
  }

  private void string(String s) {
    JsonStrings.quote(out, s);
  }
}
