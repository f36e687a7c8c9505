package dev.ration.testkit;

import static dev.ration.testkit.Gen.weight;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The combinators: reproducible from a seed, and each choosing as its comment says. */
class GenTest {
  record Step(int kind, List<Long> amounts, String note) {}

  static final Gen<Step> STEP = r -> new Step(r.between(0, 9),
      Gen.longs(-300, 900).list(0, 6).next(r), Gen.elements("a", "b", "c").orNull(0.3).next(r));

  @Test
  void aComposedGeneratorIsFixedByItsSeed() {
    Gen<List<Step>> steps = STEP.list(1, 60);
    assertEquals(steps.next(Rng.seeded(5)), steps.next(Rng.seeded(5)));
    assertNotEquals(steps.next(Rng.seeded(5)), steps.next(Rng.seeded(6)));
  }

  @Test
  void frequencyFollowsTheWeightsAndNeverPicksAZeroWeight() {
    Gen<String> g = Gen.frequency(weight(6, Gen.constant("six")), weight(1, Gen.constant("one")),
        weight(0, Gen.constant("never")), weight(2, Gen.constant("two")));
    Map<String, Integer> counts = new HashMap<>();
    Rng r = Rng.seeded(1);
    for (int i = 0; i < 9_000; i++) {
      counts.merge(g.next(r), 1, Integer::sum);
    }
    assertEquals(Set.of("six", "one", "two"), counts.keySet());
    assertTrue(Math.abs(counts.get("six") - 6_000) < 300, "six: " + counts);
    assertTrue(Math.abs(counts.get("two") - 2_000) < 200, "two: " + counts);
    assertTrue(Math.abs(counts.get("one") - 1_000) < 150, "one: " + counts);
    assertThrows(IllegalArgumentException.class, () -> Gen.frequency(weight(0, Gen.constant(1))));
    assertThrows(IllegalArgumentException.class, () -> weight(-1, Gen.constant(1)));
  }

  @Test
  void orNullInjectsNullsAtItsRate() {
    Gen<Integer> g = Gen.ints(0, 5).orNull(0.3);
    Rng r = Rng.seeded(2);
    int nulls = 0;
    for (int i = 0; i < 10_000; i++) {
      nulls += g.next(r) == null ? 1 : 0;
    }
    assertTrue(nulls > 2_800 && nulls < 3_200, nulls + " nulls of 10,000 at 0.3");
  }

  @Test
  void oneOfAndElementsReachEveryChoice() {
    Gen<Object> g = Gen.oneOf(Gen.constant("x"), Gen.longs(7, 7), Gen.elements(true));
    Set<String> seen = new TreeSet<>();
    Rng r = Rng.seeded(3);
    for (int i = 0; i < 300; i++) {
      seen.add(String.valueOf(g.next(r)));
    }
    assertEquals(Set.of("7", "true", "x"), seen);
  }

  @Test
  void listAndMapKeepSizesAndValues() {
    Gen<List<Integer>> g = Gen.ints(1, 40).map(n -> n * 2).list(5, 40);
    Rng r = Rng.seeded(4);
    boolean min = false;
    boolean max = false;
    for (int i = 0; i < 2_000; i++) {
      List<Integer> l = g.next(r);
      assertTrue(l.size() >= 5 && l.size() <= 40, "size " + l.size());
      min |= l.size() == 5;
      max |= l.size() == 40;
      for (int x : l) {
        assertTrue(x % 2 == 0 && x >= 2 && x <= 80, "element " + x);
      }
    }
    assertTrue(min && max, "both end sizes drawn");
  }
}
