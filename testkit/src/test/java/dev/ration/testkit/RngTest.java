package dev.ration.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The generator's contract: a seed fixes every draw; draws stay in their ranges; edges, small
 * magnitudes and both ends of collection sizes come up far more often than uniform draws would
 * give them. Seeds here are fixed, so every count below is the same on every run.
 */
class RngTest {

  /** Every kind of draw, in one order, as a list to compare. */
  private static List<Object> draws(long seed) {
    Rng r = Rng.seeded(seed);
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      out.add(r.between(-300, 900));
      out.add(r.anyLong());
      out.add(r.anyInt());
      out.add(r.uniform(0L, 1L << 40));
      out.add(r.bool());
      out.add(r.oneIn(7));
      out.add(r.size(1, 60));
      out.add(r.oneOf(TimeUnit.class));
      out.add(r.string(40, Alphabet.BMP_TEXT));
      out.add(List.of(r.list(0, 5, x -> x.between(0, 9))));
      out.add(java.util.Arrays.toString(r.bytes(64)));
    }
    return out;
  }

  @Test
  void theSameSeedDrawsTheSameValues() {
    assertEquals(draws(42), draws(42));
    assertEquals(draws(-7_777_777_777L), draws(-7_777_777_777L));
    assertNotEquals(draws(42), draws(43), "neighbouring seeds draw unrelated values");
    assertEquals(Rng.seeded(42).edgeHeavy(), Rng.seeded(42).edgeHeavy());
    assertEquals(123L, Rng.seeded(123).seed());
  }

  @Test
  void drawsStayInTheirRanges() {
    long[][] ranges = {
      {0, 0}, {5, 5}, {-3, -3}, {0, 1}, {-1, 0}, {1, 40}, {-300, 900}, {0, 1_000_000_000},
      {0, Long.MAX_VALUE / 2}, {Long.MIN_VALUE, Long.MAX_VALUE}, {Long.MIN_VALUE, Long.MIN_VALUE + 1},
      {Long.MAX_VALUE - 1, Long.MAX_VALUE}, {Long.MIN_VALUE, -1}, {-1, Long.MAX_VALUE}, {1, Long.MAX_VALUE},
      {Long.MIN_VALUE, 0}, {-500, -7}, {Integer.MIN_VALUE, Integer.MAX_VALUE},
    };
    for (long seed = 0; seed < 200; seed++) {
      Rng r = Rng.seeded(seed);
      for (long[] range : ranges) {
        for (int i = 0; i < 50; i++) {
          long b = r.between(range[0], range[1]);
          assertTrue(b >= range[0] && b <= range[1], b + " outside " + range[0] + ".." + range[1]);
          long u = r.uniform(range[0], range[1]);
          assertTrue(u >= range[0] && u <= range[1], u + " outside " + range[0] + ".." + range[1]);
        }
      }
      for (int i = 0; i < 50; i++) {
        int n = r.between(Integer.MIN_VALUE + 1, -2);
        assertTrue(n >= Integer.MIN_VALUE + 1 && n <= -2, "int " + n);
        int s = r.size(3, 80);
        assertTrue(s >= 3 && s <= 80, "size " + s);
        assertTrue(r.bytes(64).length <= 64);
      }
    }
    assertThrows(IllegalArgumentException.class, () -> Rng.seeded(1).between(2, 1));
    assertThrows(IllegalArgumentException.class, () -> Rng.seeded(1).size(-1, 3));
    assertThrows(IllegalArgumentException.class, () -> Rng.seeded(1).oneIn(0));
  }

  /** Counts of each value drawn by {@code between(min, max)}, 40 draws from each of 1,000 seeds. */
  private static Map<Long, Integer> histogram(long min, long max) {
    Map<Long, Integer> counts = new HashMap<>();
    for (long seed = 0; seed < 1_000; seed++) {
      Rng r = Rng.seeded(seed);
      for (int i = 0; i < 40; i++) {
        counts.merge(r.between(min, max), 1, Integer::sum);
      }
    }
    return counts;
  }

  @Test
  void edgesComeUpOftenInAWideRange() {
    // 40,000 draws; uniform draws would hit any one value about once in 25,000 runs of this test.
    Map<Long, Integer> counts = histogram(0, 1_000_000_000);
    for (long edge : new long[] {0, 1, 2, 999_999_999, 1_000_000_000}) {
      assertTrue(counts.getOrDefault(edge, 0) >= 400, "edge " + edge + " drawn " + counts.get(edge) + " times");
    }
  }

  @Test
  void edgesOfTheFullLongRangeComeUpOften() {
    Map<Long, Integer> counts = histogram(Long.MIN_VALUE, Long.MAX_VALUE);
    for (long edge : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 1, -2, -1, 0, 1, 2, Long.MAX_VALUE - 1, Long.MAX_VALUE}) {
      assertTrue(counts.getOrDefault(edge, 0) >= 200, "edge " + edge + " drawn " + counts.get(edge) + " times");
    }
    // The magnitude draws: numbers of every size, small ones included (uniform: almost none).
    long small = counts.entrySet().stream()
        .filter(e -> Math.abs(e.getKey()) < 1 << 16).mapToLong(Map.Entry::getValue).sum();
    assertTrue(small >= 1_000, small + " of 40,000 full-range draws below 2^16 in magnitude");
    long midsize = counts.entrySet().stream()
        .filter(e -> Math.abs(e.getKey()) >= 1L << 20 && Math.abs(e.getKey()) < 1L << 40)
        .mapToLong(Map.Entry::getValue).sum();
    assertTrue(midsize >= 1_000, midsize + " of 40,000 full-range draws between 2^20 and 2^40 in magnitude");
  }

  @Test
  void aNegativeRangeHasItsEdgesAndNoZero() {
    Map<Long, Integer> counts = histogram(-300, -7);
    for (long edge : new long[] {-300, -299, -8, -7}) {
      assertTrue(counts.getOrDefault(edge, 0) >= 400, "edge " + edge + " drawn " + counts.get(edge) + " times");
    }
    assertFalse(counts.containsKey(0L));
    assertEquals(294, counts.size(), "every value of the range comes up");
  }

  @Test
  void aboutOneTryInFiveIsEdgeHeavy() {
    int heavy = 0;
    for (long seed = 0; seed < 10_000; seed++) {
      Rng r = Rng.seeded(seed);
      if (r.edgeHeavy()) {
        heavy++;
        assertEquals(Rng.EDGE_HEAVY_ODDS, r.edgeOdds());
      } else {
        assertEquals(Rng.EDGE_ODDS, r.edgeOdds());
      }
    }
    assertTrue(heavy > 1_700 && heavy < 2_300, heavy + " of 10,000 tries edge-heavy");
  }

  @Test
  void sizesAreMostlyShortButReachBothEnds() {
    int[] counts = new int[61];
    long sum = 0;
    for (long seed = 0; seed < 2_000; seed++) {
      Rng r = Rng.seeded(seed);
      for (int i = 0; i < 10; i++) {
        int n = r.size(1, 60);
        counts[n]++;
        sum += n;
      }
    }
    assertEquals(0, counts[0]);
    assertTrue(counts[1] >= 500, "minimum size drawn " + counts[1] + " times of 20,000");
    assertTrue(counts[60] >= 500, "maximum size drawn " + counts[60] + " times of 20,000");
    int tail = 0;
    for (int n = 12; n < 60; n++) {
      tail += counts[n];
    }
    assertTrue(tail >= 1_000, "sizes 12..59 drawn " + tail + " times of 20,000");
    // Longer on average than nine in ten at most 10 past the minimum and one in ten in the tail
    // above that (9.0).
    assertTrue(sum / 20_000.0 > 9.0, "mean size " + sum / 20_000.0);
  }

  @Test
  void choicesCoverEveryValue() {
    Rng r = Rng.seeded(9);
    Set<TimeUnit> units = EnumSet.noneOf(TimeUnit.class);
    Set<String> picked = new java.util.HashSet<>();
    int trues = 0;
    for (int i = 0; i < 1_000; i++) {
      units.add(r.oneOf(TimeUnit.class));
      picked.add(r.oneOf("a", "b", "c"));
      trues += r.bool() ? 1 : 0;
    }
    assertEquals(EnumSet.allOf(TimeUnit.class), units);
    assertEquals(Set.of("a", "b", "c"), picked);
    assertTrue(trues > 400 && trues < 600, trues + " of 1,000 booleans true");
  }

  @Test
  void bytesReachTheirEdgesAndEveryLength() {
    int[] byValue = new int[256];
    boolean empty = false;
    boolean full = false;
    for (long seed = 0; seed < 500; seed++) {
      byte[] b = Rng.seeded(seed).bytes(64);
      empty |= b.length == 0;
      full |= b.length == 64;
      for (byte x : b) {
        byValue[x & 0xFF]++;
      }
    }
    assertTrue(empty && full, "lengths 0 and 64 both drawn");
    for (int edge : new int[] {0, 1, 0xFF, 0x80, 0x7F}) {
      assertTrue(byValue[edge] >= 20, "byte " + edge + " drawn " + byValue[edge] + " times");
    }
  }

  @Test
  void textHasNoSurrogatesAndReachesTheUtf8Boundaries() {
    Set<Character> seen = new java.util.HashSet<>();
    boolean empty = false;
    boolean full = false;
    int nonAscii = 0;
    for (long seed = 0; seed < 2_000; seed++) {
      String s = Rng.seeded(seed).string(40, Alphabet.BMP_TEXT);
      assertTrue(s.length() <= 40);
      empty |= s.isEmpty();
      full |= s.length() == 40;
      for (char c : s.toCharArray()) {
        assertFalse(Character.isSurrogate(c), "surrogate " + (int) c + " in " + s);
        assertTrue(Alphabet.BMP_TEXT.contains(c));
        seen.add(c);
        nonAscii += c > 0x7F ? 1 : 0;
      }
    }
    assertTrue(empty && full, "lengths 0 and 40 both drawn");
    for (char edge : new char[] {'\u0000', '\u007F', '\u0080', '\u07FF', '\u0800', '\uD7FF', '\uE000', '\uFFFF'}) {
      assertTrue(seen.contains(edge), "character U+" + Integer.toHexString(edge) + " never drawn");
    }
    assertTrue(nonAscii > 1_000, nonAscii + " non-ASCII characters");
    assertTrue(seen.stream().anyMatch(c -> c > '\uE000' && c < '\uFFFE'), "characters above the surrogates");
  }

  @Test
  void anExplicitAlphabetDrawsOnlyItsCharacters() {
    Alphabet ab = Alphabet.of("ab");
    Set<Character> seen = new java.util.HashSet<>();
    for (long seed = 0; seed < 100; seed++) {
      for (char c : Rng.seeded(seed).string(10, ab).toCharArray()) {
        seen.add(c);
      }
    }
    assertEquals(Set.of('a', 'b'), seen);
    assertTrue(ab.contains('a') && !ab.contains('c'));
    assertThrows(IllegalArgumentException.class, () -> Alphabet.of(""));
  }

  @Test
  void edgesAreTheEndsTheirNeighboursAndMinusTwoToTwo() {
    assertEquals(List.of(0L, 10L, 1L, 9L, 2L), Rng.edges(0, 10));
    assertEquals(List.of(-5L, 5L, -4L, 4L, 0L, 1L, -1L, 2L, -2L), Rng.edges(-5, 5));
    assertEquals(List.of(7L), Rng.edges(7, 7));
    assertEquals(List.of(Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, 0L, 1L, -1L, 2L, -2L),
        Rng.edges(Long.MIN_VALUE, Long.MAX_VALUE));
    assertArrayEquals(new Object[] {3L, 4L}, Rng.edges(3, 4).toArray());
  }

  @Test
  void propertiesWithMoreTriesDrawLongerCollections() {
    assertEquals(10, Rng.seeded(1).shortSizes());
    assertEquals(10, Rng.seeded(1, 60).shortSizes());
    assertEquals(22, Rng.seeded(1, 500).shortSizes());
    assertEquals(32, Rng.seeded(1, 1000).shortSizes());
    long sum = 0;
    for (long seed = 0; seed < 20_000; seed++) {
      sum += Rng.seeded(seed, 500).size(0, 40);
    }
    // Nine in ten at most 22 long and one in ten 23..40 would average 13.05.
    assertTrue(sum / 20_000.0 > 13.05, "mean length " + sum / 20_000.0);
    assertThrows(IllegalArgumentException.class, () -> Rng.seeded(1, 0));
  }
}
