package dev.ration.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The figures `ration bench --op rebalance` prints, on series built by hand. */
class RebalanceBenchTest {
  @Test
  void firstSustainedIsTheEndOfTheFirstFullWindowThatReachesTheNeed() {
    int[] s = new int[20];
    // Nothing before 10 (the move), then 1 a millisecond from 12 on.
    for (int ms = 12; ms < 20; ms++) {
      s[ms] = 1;
    }
    assertEquals(6, RebalanceBench.firstSustained(s, 10, 4, 4), "window [12, 16) is the first with 4");
    assertEquals(4, RebalanceBench.firstSustained(s, 10, 4, 2), "window [10, 14) already holds 2");
    assertEquals(-1, RebalanceBench.firstSustained(s, 10, 4, 5), "never 5 in 4 ms");
    int[] before = new int[20];
    before[5] = 100; // before the move: not counted
    assertEquals(-1, RebalanceBench.firstSustained(before, 10, 4, 1));
  }

  @Test
  void maxInWindowAddsBothRegionsAndSlides() {
    int[] a = {5, 0, 0, 0, 3, 0};
    int[] b = {0, 1, 0, 0, 0, 4};
    assertEquals(7, RebalanceBench.maxInWindow(a, b, 2), "3 + 4 at 4..5");
    assertEquals(13, RebalanceBench.maxInWindow(a, b, 6), "everything");
    assertEquals(5, RebalanceBench.maxInWindow(a, b, 1), "the busiest single millisecond");
  }

  @Test
  void medianOfRunsAndOfNone() {
    assertEquals(3, RebalanceBench.median(List.of(5L, 1L, 3L)));
    assertEquals(-1, RebalanceBench.median(List.of()));
  }
}
