package dev.ration.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Adds the wall-clock instant next to every ledger time of an answer: after {@code
 * expiresAtMillis} (kept, so scripts that read it go on working) comes {@code expiresAt}, the
 * same point as UTC ISO-8601 ({@code 2026-12-06T07:20:31.123Z}), for JSON and tables alike. A
 * ledger time is a field named {@code atMillis}, {@code ...AtMillis}, {@code ...UntilMillis}, {@code
 * ...StartMillis} or {@code ...TimeMillis}; other {@code ...Millis} fields are durations. "No
 * expiry" (Long.MAX_VALUE in the ledger) becomes the string {@code "never"} in both fields, as
 * {@code token list} has always printed it: a number that large is no time, and JSON tools
 * round it. Stateless.
 */
final class Instants {
  private Instants() {}

  static boolean isLedgerTime(String name) {
    return name.equals("atMillis") || name.endsWith("AtMillis") || name.endsWith("UntilMillis") || name.endsWith("StartMillis")
        || name.endsWith("TimeMillis");
  }

  /** {@code expiresAtMillis} -> {@code expiresAt}. */
  static String instantName(String ledgerTimeName) {
    return ledgerTimeName.substring(0, ledgerTimeName.length() - "Millis".length());
  }

  static boolean isNever(Object v) {
    return "never".equals(v) || (v instanceof Long n && n == LedgerClock.NEVER);
  }

  /** Whether {@code f} (nested objects and lists included) holds a ledger time that maps to an instant. */
  static boolean needsClock(Fields f) {
    for (Map.Entry<String, Object> e : f.values().entrySet()) {
      Object v = e.getValue();
      if (isLedgerTime(e.getKey()) && v instanceof Long && !isNever(v)) {
        return true;
      }
      if (v instanceof Fields nested && needsClock(nested)) {
        return true;
      }
      if (v instanceof List<?> list) {
        for (Object item : list) {
          if (item instanceof Fields nested && needsClock(nested)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * {@code f} with an instant after each ledger time; without a clock the instants are null
   * (the ledger time could not be mapped), and "never" stays "never".
   */
  static Fields add(Fields f, Optional<LedgerClock> clock) {
    Fields out = new Fields();
    for (Map.Entry<String, Object> e : f.values().entrySet()) {
      String name = e.getKey();
      Object v = e.getValue();
      if (v instanceof Fields nested) {
        out.put(name, add(nested, clock));
      } else if (v instanceof List<?> list) {
        List<Object> items = new ArrayList<>(list.size());
        for (Object item : list) {
          items.add(item instanceof Fields nested ? add(nested, clock) : item);
        }
        out.put(name, items);
      } else if (isLedgerTime(name) && f.get(instantName(name)) == null && (v instanceof Long || isNever(v))) {
        if (isNever(v)) {
          out.put(name, "never").put(instantName(name), "never");
        } else {
          long t = (Long) v;
          out.put(name, t).put(instantName(name), clock.<Object>map(c -> c.iso(t)).orElse(Fields.NONE));
        }
      } else {
        out.put(name, v);
      }
    }
    return out;
  }
}
