package dev.ration.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Text layout of --output table: one object as aligned "label  value" lines (nested objects
 * flattened in place), a list as columns with an upper-case header. Labels come from the JSON
 * field names ({@code ratePerSecond} becomes "rate per second" and column "RATE-PER-SECOND").
 *
 * <p>Times are for people here, raw in JSON: a duration field ({@code leaseDurationMillis},
 * {@code retryAfterMillis}) prints as {@code 9m58s} under the label "lease duration"; a ledger
 * time ({@code expiresAtMillis}, {@code countedUntilMillis}) prints relative to the ledger time
 * the answer was read at, when the answer carries it ({@code readAtMillis} or
 * {@code ledgerNowMillis}): "expires  in 9m58s". Without it, ledger times print raw. Stateless.
 */
final class Tables {
  private Tables() {}

  static String vertical(Fields f) {
    List<String[]> lines = new ArrayList<>();
    flatten(f, lines, nowOf(f));
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
    return columns(rows, names, OptionalLong.empty());
  }

  /** Columns; ledger times relative to {@code now} (the ledger time the list was read at). */
  static String columns(List<Fields> rows, List<String> names, OptionalLong now) {
    List<String[]> cells = new ArrayList<>();
    String[] header = new String[names.size()];
    for (int i = 0; i < names.size(); i++) {
      header[i] = columnLabel(humanLabel(names.get(i), now));
    }
    cells.add(header);
    for (Fields row : rows) {
      String[] r = new String[names.size()];
      for (int i = 0; i < names.size(); i++) {
        Object v = row.get(names.get(i));
        r[i] = v == null ? "-" : cell(names.get(i), v, now);
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

  private static void flatten(Fields f, List<String[]> lines, OptionalLong now) {
    for (Map.Entry<String, Object> e : f.values().entrySet()) {
      if (e.getValue() instanceof Fields nested) {
        flatten(nested, lines, now);
      } else if (!(e.getValue() instanceof List<?>)) {
        lines.add(new String[] {label(humanLabel(e.getKey(), now)), cell(e.getKey(), e.getValue(), now)});
      }
    }
  }

  /** The ledger time an answer was read at, if it says. */
  static OptionalLong nowOf(Fields f) {
    for (String name : List.of("readAtMillis", "ledgerNowMillis")) {
      if (f.get(name) instanceof Long n && n >= 0) {
        return OptionalLong.of(n);
      }
    }
    return OptionalLong.empty();
  }

  /** A point in ledger time (compared with the answer's read time), not a length of time. */
  static boolean isLedgerTime(String name) {
    return name.endsWith("AtMillis") || name.endsWith("UntilMillis") || name.equals("ledgerNowMillis");
  }

  static boolean isDuration(String name) {
    return name.endsWith("Millis") && !isLedgerTime(name);
  }

  /** The field name a table shows: without "Millis" where the value is shown for people. */
  static String humanLabel(String name, OptionalLong now) {
    if (isDuration(name)) {
      return name.substring(0, name.length() - "Millis".length());
    }
    if (now.isPresent() && isLedgerTime(name) && !name.equals("readAtMillis") && !name.equals("ledgerNowMillis")) {
      String base = name.substring(0, name.length() - "Millis".length());
      return base.endsWith("At") ? base.substring(0, base.length() - 2) : base;
    }
    return name;
  }

  static String cell(String name, Object v, OptionalLong now) {
    if (v instanceof Long n && n >= 0) {
      if (isDuration(name)) {
        return duration(n);
      }
      if (now.isPresent() && isLedgerTime(name) && !name.equals("readAtMillis") && !name.equals("ledgerNowMillis")) {
        long delta = n - now.getAsLong();
        return delta >= 0 ? "in " + duration(delta) : duration(-delta) + " ago";
      }
    }
    return text(v);
  }

  /** 250ms, 1.5s, 10s, 9m58s, 1h, 2h3m: the units Ration's duration options take. */
  static String duration(long millis) {
    if (millis < 1000) {
      return millis + "ms";
    }
    if (millis < 60_000) {
      long ms = millis % 1000;
      if (ms == 0) {
        return millis / 1000 + "s";
      }
      String frac = String.format(Locale.ROOT, "%03d", ms).replaceAll("0+$", "");
      return millis / 1000 + "." + frac + "s";
    }
    long s = millis / 1000;
    long h = s / 3600;
    long m = (s % 3600) / 60;
    long sec = s % 60;
    StringBuilder b = new StringBuilder();
    if (h > 0) {
      b.append(h).append('h');
    }
    if (m > 0) {
      b.append(m).append('m');
    }
    if (sec > 0) {
      b.append(sec).append('s');
    }
    return b.toString();
  }

  private static String text(Object v) {
    String s = String.valueOf(v);
    return s.isEmpty() ? "-" : s;
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s : s + " ".repeat(width - s.length());
  }
}
