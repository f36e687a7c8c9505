package dev.ration.server.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Text layout of --output table: one object as aligned "label  value" lines (nested objects
 * flattened in place), a list as columns with an upper-case header. Labels come from the JSON
 * field names ({@code leaseDurationMillis} becomes "lease duration millis" and column
 * "LEASE-DURATION-MILLIS"). Stateless.
 */
final class Tables {
  private Tables() {}

  static String vertical(Fields f) {
    List<String[]> lines = new ArrayList<>();
    flatten(f, lines);
    int width = 0;
    for (String[] l : lines) {
      width = Math.max(width, l[0].length());
    }
    StringBuilder b = new StringBuilder();
    for (String[] l : lines) {
      b.append(pad(l[0], width)).append("  ").append(l[1]).append('\n');
    }
    return b.toString();
  }

  static String columns(List<Fields> rows, List<String> names) {
    List<String[]> cells = new ArrayList<>();
    String[] header = new String[names.size()];
    for (int i = 0; i < names.size(); i++) {
      header[i] = columnLabel(names.get(i));
    }
    cells.add(header);
    for (Fields row : rows) {
      String[] r = new String[names.size()];
      for (int i = 0; i < names.size(); i++) {
        Object v = row.get(names.get(i));
        r[i] = v == null ? "-" : text(v);
      }
      cells.add(r);
    }
    int[] width = new int[names.size()];
    for (String[] r : cells) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (String[] r : cells) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(i == r.length - 1 ? r[i] : pad(r[i], width[i]) + "  ");
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }

  static String label(String jsonName) {
    StringBuilder b = new StringBuilder();
    for (char c : jsonName.toCharArray()) {
      if (Character.isUpperCase(c)) {
        b.append(' ').append(Character.toLowerCase(c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  static String columnLabel(String jsonName) {
    return label(jsonName).replace(' ', '-').toUpperCase(Locale.ROOT);
  }

  private static void flatten(Fields f, List<String[]> lines) {
    for (Map.Entry<String, Object> e : f.values().entrySet()) {
      if (e.getValue() instanceof Fields nested) {
        flatten(nested, lines);
      } else if (!(e.getValue() instanceof List<?>)) {
        lines.add(new String[] {label(e.getKey()), text(e.getValue())});
      }
    }
  }

  private static String text(Object v) {
    String s = String.valueOf(v);
    return s.isEmpty() ? "-" : s;
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s : s + " ".repeat(width - s.length());
  }
}
