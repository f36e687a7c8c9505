package dev.ration.cli;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One object the CLI prints: named fields in a fixed order. The names are the stable JSON field
 * names (camelCase, documented in docs/CLI.md); table output derives its labels from them, so
 * the two outputs never disagree. Values are String, Long, Integer, Boolean, a nested
 * {@code Fields}, or a list of {@code Fields} or of scalars (JSON arrays; tables leave lists
 * out). Built and read on one thread.
 */
final class Fields {
  private final Map<String, Object> values = new LinkedHashMap<>();

  /** JSON null; "-" in a table. Only for a value that does not exist (an unreachable node's term). */
  static final Object NONE = new Object() {
    @Override
    public String toString() {
      return "-";
    }
  };

  Fields put(String name, Object value) {
    if (!(value == NONE || value instanceof String || value instanceof Long || value instanceof Integer
        || value instanceof Boolean || value instanceof Fields || value instanceof List<?>)) {
      throw new IllegalArgumentException("field " + name + " has unsupported value " + value);
    }
    if (values.putIfAbsent(name, value) != null) {
      throw new IllegalArgumentException("field " + name + " set twice");
    }
    return this;
  }

  Map<String, Object> values() {
    return Collections.unmodifiableMap(values);
  }

  Object get(String name) {
    return values.get(name);
  }

  void writeJson(JsonWriter w) {
    w.beginObject();
    for (Map.Entry<String, Object> e : values.entrySet()) {
      Object v = e.getValue();
      if (v instanceof Fields f) {
        w.name(e.getKey());
        f.writeJson(w);
      } else if (v instanceof List<?> list) {
        w.name(e.getKey());
        w.beginArray();
        for (Object item : list) {
          if (item instanceof Fields nested) {
            nested.writeJson(w);
          } else if (item instanceof Long || item instanceof Integer) {
            w.value(((Number) item).longValue());
          } else if (item instanceof Boolean b) {
            w.value(b);
          } else {
            w.value(String.valueOf(item));
          }
        }
        w.endArray();
      } else if (v == NONE) {
        w.field(e.getKey(), null);
      } else {
        w.field(e.getKey(), v);
      }
    }
    w.endObject();
  }

  String toJson() {
    JsonWriter w = new JsonWriter();
    writeJson(w);
    return w.finish();
  }
}
