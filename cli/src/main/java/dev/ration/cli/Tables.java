package dev.ration.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Text layout of --output table: one object as aligned "label  value" lines (nested objects
 * flattened in place), a list as columns with an upper-case header. Labels come from the JSON
 * field names ({@code ratePerSecond} becomes "rate per second" and column "RATE-PER-SECOND").
 *
 * <p>Times are for people here: a duration field ({@code leaseDurationMillis}, {@code
 * retryAfterMillis}) prints as {@code 9m58s} under the label "lease duration", the one style of
 * every duration the CLI prints. A ledger time that {@link Instants} gave an instant ({@code
 * expiresAtMillis} next to {@code expiresAt}) prints once, under the instant's name: in an
 * object as {@code 2026-12-06T07:20:31.123Z (in 9m58s, ledger 30263)}, in a column as the
 * instant alone; "never" for no expiry, and "ledger 30263" when the cluster's clock could not
 * be read. Stateless.
 */
final class Tables {
  private Tables() {}

  static String vertical(Fields f) {
    return vertical(f, Optional.empty());
  }

  /** One object; {@code clock} says how far away its instants are ("in 9m58s"). */
  static String vertical(Fields f, Optional<LedgerClock> clock) {
    List<String[]> lines = new ArrayList<>();
    flatten(f, lines, clock);
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
      header[i] = columnLabel(humanLabel(names.get(i)));
    }
    cells.add(header);
    for (Fields row : rows) {
      String[] r = new String[names.size()];
      for (int i = 0; i < names.size(); i++) {
        r[i] = columnCell(row, names.get(i));
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

  private static String columnCell(Fields row, String name) {
    Object v = row.get(name);
    if ((v == null || v == Fields.NONE) && row.get(name + "Millis") instanceof Long t
        && Instants.isLedgerTime(name + "Millis")) {
      return "ledger " + t; // an instant the cluster's clock could not be read for
    }
    return v == null ? "-" : cell(name, v);
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

  private static void flatten(Fields f, List<String[]> lines, Optional<LedgerClock> clock) {
    for (Map.Entry<String, Object> e : f.values().entrySet()) {
      String name = e.getKey();
      Object v = e.getValue();
      if (v instanceof Fields nested) {
        flatten(nested, lines, clock);
      } else if (v instanceof List<?>) {
        continue;
      } else if (Instants.isLedgerTime(name) && f.values().containsKey(Instants.instantName(name))) {
        String instantName = Instants.instantName(name);
        lines.add(new String[] {label(instantName), when(v, f.get(instantName), clock)});
      } else if (Instants.isLedgerTime(name + "Millis") && f.values().containsKey(name + "Millis")) {
        continue; // printed with its ledger time, above
      } else {
        lines.add(new String[] {label(humanLabel(name)), cell(name, v)});
      }
    }
  }

  /** A ledger time {@code ledger} whose instant is {@code instant}, for a person. */
  private static String when(Object ledger, Object instant, Optional<LedgerClock> clock) {
    if (Instants.isNever(ledger)) {
      return "never";
    }
    if (instant instanceof String iso && clock.isPresent() && ledger instanceof Long t) {
      return iso + " (" + clock.get().relative(t) + ", ledger " + t + ")";
    }
    return "ledger " + ledger;
  }

  static boolean isDuration(String name) {
    return name.endsWith("Millis") && !Instants.isLedgerTime(name) && !name.equals("ledgerNowMillis");
  }

  /** The field name a table shows: without "Millis" where the value is shown as a duration. */
  static String humanLabel(String name) {
    return isDuration(name) ? name.substring(0, name.length() - "Millis".length()) : name;
  }

  static String cell(String name, Object v) {
    if (v instanceof Long n && n >= 0 && isDuration(name)) {
      return duration(n);
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
