package dev.ration.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The runner: how many tries, from which seeds, and what a failure tells — above all that its
 * seed, fed back through {@value Property#SEED}, fails the same way on the same input.
 */
class PropertyTest {
  static final Property.Site SITE =
      new Property.Site(PropertyTest.class.getName(), "someProperty", "testkit");

  static Property.Settings base(long baseSeed) {
    return new Property.Settings(baseSeed, OptionalLong.empty(), 1.0);
  }

  /** The seeds of every try of a passing run. */
  static List<Long> seedsOfRun(Property.Settings settings, Property.Site site, int tries) {
    List<Long> seeds = new ArrayList<>();
    Property.run(settings, site, tries, r -> r.seed(), seeds::add);
    return seeds;
  }

  @Test
  void runsEveryTryFromItsOwnSeedAndRepeatsUnderTheSameBaseSeed() {
    List<Long> seeds = seedsOfRun(base(11), SITE, 200);
    assertEquals(200, seeds.size());
    assertEquals(200, new HashSet<>(seeds).size(), "every try has its own seed");
    assertEquals(seeds, seedsOfRun(base(11), SITE, 200), "a base seed repeats the run");
    assertNotEquals(seeds, seedsOfRun(base(12), SITE, 200), "another base seed tries other inputs");
    Property.Site other = new Property.Site(PropertyTest.class.getName(), "otherProperty", "testkit");
    assertNotEquals(seeds, seedsOfRun(base(11), other, 200), "properties of one run differ");
  }

  @Test
  void theTriesFactorScalesEveryRunAndKeepsOneTry() {
    assertEquals(25, seedsOfRun(new Property.Settings(1, OptionalLong.empty(), 2.5), SITE, 10).size());
    assertEquals(1, seedsOfRun(new Property.Settings(1, OptionalLong.empty(), 0.01), SITE, 10).size());
    assertEquals(List.of(777L), seedsOfRun(new Property.Settings(1, OptionalLong.of(777), 2.5), SITE, 10),
        "a replay runs the one seed it names");
    assertThrows(IllegalArgumentException.class, () -> new Property.Settings(1, OptionalLong.empty(), 0));
    assertThrows(IllegalArgumentException.class, () -> seedsOfRun(base(1), SITE, 0));
  }

  @Test
  void settingsAreReadFromTheirPropertyTexts() {
    Property.Settings s = Property.Settings.parse("-42", " 99 ", "3");
    assertEquals(-42, s.baseSeed());
    assertEquals(OptionalLong.of(99), s.replaySeed());
    assertEquals(3.0, s.triesFactor());
    Property.Settings defaults = Property.Settings.parse(null, "", null);
    assertEquals(OptionalLong.empty(), defaults.replaySeed());
    assertEquals(1.0, defaults.triesFactor());
    assertEquals(defaults.baseSeed(), Property.Settings.parse(null, null, null).baseSeed(),
        "one random base seed per run");
    assertThrows(IllegalArgumentException.class, () -> Property.Settings.parse("x", null, null));
    assertThrows(IllegalArgumentException.class, () -> Property.Settings.parse(null, "0x10", null));
    assertThrows(IllegalArgumentException.class, () -> Property.Settings.parse(null, null, "-1"));
  }

  record Case(long amount, List<Integer> steps) {}

  static final Gen<Case> CASES = r -> new Case(r.between(0, 1_000), Gen.ints(0, 9).list(0, 8).next(r));

  /** Fails whenever the amount is above 900: about one try in ten. */
  static void amountAtMost900(Case c) {
    assertTrue(c.amount() <= 900, "amount " + c.amount() + " above 900");
  }

  @Test
  void aFailureNamesItsSeedAndReplayingThatSeedFailsOnTheSameInput() {
    List<Case> tried = new ArrayList<>();
    AssertionError failure = assertThrows(AssertionError.class, () -> Property.run(base(5), SITE, 1_000, CASES, c -> {
      tried.add(c);
      amountAtMost900(c);
    }));
    Case failing = tried.get(tried.size() - 1);
    String message = failure.getMessage();
    Matcher seed = Pattern.compile("-Dration\\.seed=(-?\\d+)").matcher(message);
    assertTrue(seed.find(), message);
    long failingSeed = Long.parseLong(seed.group(1));
    assertTrue(message.startsWith("property PropertyTest.someProperty failed on try " + tried.size()
        + " of 1000 with seed " + failingSeed), message);
    assertTrue(message.contains("mvn -B -pl testkit -am test -Dtest='PropertyTest#someProperty'"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dration.seed=" + failingSeed), message);
    assertTrue(message.contains("-Dration.baseSeed=5"), message);
    assertTrue(message.contains("amount " + failing.amount() + " above 900"), "the original failure: " + message);
    assertTrue(message.contains("failing input: " + failing), "the failing input: " + message);
    assertTrue(failure.getCause() instanceof AssertionError, "the original failure is the cause");

    List<Case> replayed = new ArrayList<>();
    Property.Settings replay = new Property.Settings(5, OptionalLong.of(failingSeed), 1.0);
    AssertionError again = assertThrows(AssertionError.class, () -> Property.run(replay, SITE, 1_000, CASES, c -> {
      replayed.add(c);
      amountAtMost900(c);
    }));
    assertEquals(List.of(failing), replayed, "the replay tries exactly the failing input");
    assertTrue(again.getMessage().contains("failed on try 1 of 1 with seed " + failingSeed), again.getMessage());
    assertFalse(again.getMessage().contains("baseSeed"), "a replay has no run to repeat");
  }

  @Test
  void aFailingSequenceIsPrintedOneStepALine() {
    Gen<List<Integer>> steps = Gen.ints(0, 9).list(3, 3);
    AssertionError failure = assertThrows(AssertionError.class,
        () -> Property.run(base(6), SITE, 10, steps, s -> {
          throw new IllegalStateException("step " + s.get(1) + " broke the model");
        }));
    List<Integer> first = steps.next(Rng.seeded(seedsOfRun(base(6), SITE, 1).get(0), 10));
    String message = failure.getMessage();
    assertTrue(message.contains("failing input, 3 elements:\n    0: " + first.get(0) + "\n    1: " + first.get(1)
        + "\n    2: " + first.get(2) + "\n"), message);
    assertTrue(message.contains("failure: java.lang.IllegalStateException: step " + first.get(1)), message);
    assertTrue(failure.getCause() instanceof IllegalStateException);
  }

  @Test
  void aFailingGeneratorIsReportedWithItsSeed() {
    RuntimeException boom = new RuntimeException("generator broke");
    AssertionError failure = assertThrows(AssertionError.class,
        () -> Property.run(base(7), SITE, 10, r -> {
          throw boom;
        }, x -> {}));
    assertSame(boom, failure.getCause());
    assertTrue(failure.getMessage().contains("the generator itself failed"), failure.getMessage());
    assertTrue(failure.getMessage().contains("-Dration.seed="), failure.getMessage());
  }

  @Test
  void aPassingRunSaysHowManyTriesAndTheBaseSeed() {
    String line = Property.run(base(8), SITE, 30, CASES, c -> {});
    assertTrue(line.startsWith("property PropertyTest.someProperty: 30 tries passed in "), line);
    assertTrue(line.contains("-Dration.baseSeed=8"), line);
  }

  @Test
  void theSiteIsTheCallingTestMethodInItsModule() {
    List<Long> seeds = new ArrayList<>();
    Property.check(3, r -> seeds.add(r.seed()));
    Property.Settings given = Property.Settings.fromSystemProperties();
    assertEquals(given.replaySeed().isPresent() ? 1 : given.scale(3), seeds.size());
    assertEquals("testkit", Property.Site.moduleOf(PropertyTest.class),
        "compiled into testkit/target/test-classes");
    // The public entry points record this method as the property's site.
    AssertionError failure = assertThrows(AssertionError.class, () -> Property.forAll(5, CASES, c -> {
      throw new AssertionError("always");
    }));
    assertTrue(failure.getMessage().contains("-Dtest='PropertyTest#theSiteIsTheCallingTestMethodInItsModule'"),
        failure.getMessage());
    assertEquals("roundTrips", Property.Site.enclosingMethod("lambda$roundTrips$3"));
    assertEquals("roundTrips", Property.Site.enclosingMethod("roundTrips"));
  }
}
