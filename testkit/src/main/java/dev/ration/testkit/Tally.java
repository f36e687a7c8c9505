package dev.ration.testkit;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of labels over a property run (which results a command sequence produced, how much a
 * Tick freed), printed after the run to show what the generated inputs exercised.
 */
public final class Tally {
  private final String title;
  private final Map<String, Long> counts = new TreeMap<>();
  private long total;

  /** An empty tally printed under {@code title}. */
  public Tally(String title) {
    this.title = title;
  }

  /** Counts one occurrence of {@code label}'s text. */
  public void add(Object label) {
    counts.merge(String.valueOf(label), 1L, Long::sum);
    total++;
  }

  /** How often {@code label}'s text was counted. */
  public long count(Object label) {
    return counts.getOrDefault(String.valueOf(label), 0L);
  }

  /** Every count. */
  public long total() {
    return total;
  }

  /** One line: the title, then each label with its count and share, in label order. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder(title).append(':');
    for (Map.Entry<String, Long> e : counts.entrySet()) {
      out.append(String.format(Locale.ROOT, " %s %d (%.0f%%)", e.getKey(), e.getValue(),
          100.0 * e.getValue() / total));
    }
    return out.toString();
  }
}
