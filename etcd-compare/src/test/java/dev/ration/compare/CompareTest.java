package dev.ration.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CompareTest {

  @Test
  void percentilesOfSortedLatencies() {
    long[] sorted = new long[100];
    for (int i = 0; i < 100; i++) {
      sorted[i] = i + 1;
    }
    assertEquals(50, Compare.percentile(sorted, 0.50));
    assertEquals(99, Compare.percentile(sorted, 0.99));
    assertEquals(7, Compare.percentile(new long[] {7}, 0.99));
    assertEquals(0, Compare.percentile(new long[0], 0.50));
  }

  @Test
  void medianOfOddAndEvenCounts() {
    assertEquals(3.0, Compare.median(new double[] {9, 1, 3}));
    assertEquals(2.5, Compare.median(new double[] {4, 1, 3, 2}));
  }

  /** The table shows medians of the measured runs; the prewarm (run 0) is left out. */
  @Test
  void tableTakesMediansOfMeasuredRunsOnly() {
    List<Compare.Cell> cells = List.of(
        new Compare.Cell("etcd", "renew", 1, 0, 1.0, 1, 1, 0, 1, 0.1),
        new Compare.Cell("etcd", "renew", 1, 1, 100, 1_000, 2_000, 0, 500, 0.05),
        new Compare.Cell("etcd", "renew", 1, 2, 300, 3_000, 6_000, 0, 700, 0.2),
        new Compare.Cell("etcd", "renew", 1, 3, 200, 2_000, 4_000, 0, 600, 0.1),
        new Compare.Cell("ration", "renew", 1, 0, 99_999, 1, 1, 0, 1, 0.1),
        new Compare.Cell("ration", "renew", 1, 1, 400, 500, 900, 0, 2_000, 0.8),
        new Compare.Cell("ration", "renew", 1, 2, 600, 700, 800, 0, 1_000, 0.6),
        new Compare.Cell("ration", "renew", 1, 3, 500, 600, 700, 0, 1_500, 0.75));
    String table = Compare.table(cells, List.of("renew", "acquire"), new int[] {1, 16});
    assertTrue(table.contains("| renew | 1 | 200 | 2.00 / 4.00 | 600 | 500 | 0.60 / 0.80 | 1500 | 2.50 | 3 |"),
        table);
    assertFalse(table.contains("| acquire |"), "no row without measurements: " + table);
  }

  @Test
  void cpuTicksOfThisProcessAndAClearErrorForAMissingOne() {
    long self = ProcessHandle.current().pid();
    long before = Compare.cpuTicks(new long[] {self});
    long spin = System.nanoTime() + 300_000_000L;
    long sink = 0;
    while (System.nanoTime() < spin) {
      sink += System.nanoTime() % 7;
    }
    assertTrue(sink >= 0);
    assertTrue(Compare.cpuTicks(new long[] {self}) > before, "300 ms of work shows in utime");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Compare.cpuTicks(new long[] {Integer.MAX_VALUE}));
    assertTrue(e.getMessage().contains("is gone"), e.getMessage());
  }
}
