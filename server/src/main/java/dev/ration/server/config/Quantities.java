package dev.ration.server.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the two quantity formats of the configuration and the CLI: durations
 * ({@code 250ms}, {@code 2s}, {@code 5m}, {@code 1h}) and byte sizes ({@code 1MiB}, {@code 32MiB},
 * {@code 512KiB}, or a plain integer of bytes). Whole numbers only, so that what an operator
 * writes is exactly what the server uses. Stateless; thread-safe.
 */
public final class Quantities {
  private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h)");
  private static final Pattern SIZE = Pattern.compile("(\\d{1,15})\\s*(B|KiB|MiB|GiB)?");

  private Quantities() {}

  /**
   * A duration such as {@code 250ms}, {@code 2s}, {@code 5m}, {@code 1h}; a bare {@code 0} is
   * accepted as zero. Throws IllegalArgumentException with a message suitable after "key: ".
   */
  public static Duration parseDuration(String text) {
    String t = text.trim();
    if (t.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = DURATION.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration (use a whole number with a unit: ms, s, m or h, e.g. 250ms, 2s, 5m)");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> throw new IllegalStateException("unit " + m.group(2) + " matched but not handled");
    };
  }

  /**
   * A byte size such as {@code 1MiB}, {@code 512KiB}, {@code 1GiB}, {@code 4096B} or {@code 4096}.
   * Decimal units (MB, kb) are refused because they are ambiguous.
   */
  public static long parseSize(String text) {
    String t = text.trim();
    Matcher m = SIZE.matcher(t);
    if (!m.matches()) {
      String hint = t.toLowerCase(Locale.ROOT).matches("\\d+\\s*[kmg]i?b?") && !t.matches("\\d+\\s*[KMG]iB")
          ? " (binary units only, case-sensitive: KiB, MiB, GiB)"
          : " (use a whole number of bytes, or with a unit: B, KiB, MiB, GiB, e.g. 1MiB)";
      throw new IllegalArgumentException("'" + text + "' is not a size" + hint);
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2);
    long factor = switch (unit) {
      case "B" -> 1L;
      case "KiB" -> 1L << 10;
      case "MiB" -> 1L << 20;
      case "GiB" -> 1L << 30;
      default -> throw new IllegalStateException("unit " + unit + " matched but not handled");
    };
    try {
      return Math.multiplyExact(n, factor);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is too large a size", e);
    }
  }

  /** The shortest exact rendering: 1h, 5m, 2s or 250ms. */
  public static String formatDuration(Duration d) {
    long ms = d.toMillis();
    if (ms != 0 && ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms != 0 && ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  /** The shortest exact rendering: 1GiB, 32MiB, 512KiB or 100 (bytes). */
  public static String formatSize(long bytes) {
    if (bytes != 0 && bytes % (1L << 30) == 0) {
      return bytes / (1L << 30) + "GiB";
    }
    if (bytes != 0 && bytes % (1L << 20) == 0) {
      return bytes / (1L << 20) + "MiB";
    }
    if (bytes != 0 && bytes % (1L << 10) == 0) {
      return bytes / (1L << 10) + "KiB";
    }
    return Long.toString(bytes);
  }
}
