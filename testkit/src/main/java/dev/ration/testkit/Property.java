package dev.ration.testkit;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * Runs a property: a check that must hold for every input a generator makes, tried many times
 * with inputs drawn from seeded {@link Rng}s, from a JUnit test method:
 *
 * <pre>{@code
 * @Test
 * void roundTrips() {
 *   Property.forAll(500, MESSAGES, m -> assertEquals(m, decode(encode(m))));
 * }
 * }</pre>
 *
 * <p>Every try has its own seed, derived from the run's base seed, the test class and method,
 * and the try's number; the seed alone fixes the try's input, so a failure names the seed and
 * the command that replays exactly that try. The base seed is random in every run (and printed),
 * so each run tries new inputs; three system properties, passed to Maven with {@code -D}, change
 * that:
 *
 * <ul>
 *   <li>{@value #SEED}{@code =S} runs one try, with seed {@code S}, in every property run (with
 *       {@code -Dtest=Class#method}, just the one that failed);
 *   <li>{@value #BASE_SEED}{@code =B} fixes the base seed, so a whole run repeats;
 *   <li>{@value #TRIES}{@code =F} multiplies every property's tries by {@code F} (at least one
 *       try each): {@code 10} for a long soak, {@code 0.1} for a quick pass.
 * </ul>
 *
 * <p>A failure is rethrown as an {@link AssertionError} whose message has the seed, the replay
 * command, the original failure, and the failing input (one element a line for a list, such as
 * a command sequence); the original failure is its cause. There is no shrinking: the inputs are
 * kept short by {@link Rng#size(int, int)} instead.
 */
public final class Property {
  /** System property: replay only this seed. */
  public static final String SEED = "ration.seed";
  /** System property: the base seed every try's seed derives from. */
  public static final String BASE_SEED = "ration.baseSeed";
  /** System property: factor on every property's number of tries. */
  public static final String TRIES = "ration.tries";

  /** Failing input printed at most this many lines, so a report stays readable. */
  static final int MAX_INPUT_LINES = 400;

  private Property() {}

  /** A check of one input; it fails by throwing, usually an assertion. */
  @FunctionalInterface
  public interface Check<T> {
    void run(T input) throws Exception;
  }

  /**
   * Tries {@code check} on {@code tries} inputs from {@code gen} (scaled by {@value #TRIES}), or
   * on the one input of {@value #SEED}, and prints a line with the count and the base seed.
   *
   * @throws AssertionError on the first try that fails, naming its seed, the replay command and
   *     the input
   */
  public static <T> void forAll(int tries, Gen<T> gen, Check<? super T> check) {
    Site site = Site.caller();
    System.out.println(run(Settings.fromSystemProperties(), site, tries, gen, check));
  }

  /**
   * Like {@link #forAll} for a check that draws its own values from the try's {@link Rng}. A
   * failure's message shows the seed but no input, so prefer {@link #forAll} where the input can
   * be drawn first.
   */
  public static void check(int tries, Check<Rng> check) {
    Site site = Site.caller();
    System.out.println(run(Settings.fromSystemProperties(), site, tries, r -> r, check));
  }

  /** The run: every try, or the replayed one. Returns the line to print. */
  static <T> String run(Settings settings, Site site, int tries, Gen<T> gen, Check<? super T> check) {
    if (tries < 1) {
      throw new IllegalArgumentException("a property needs at least one try, got " + tries);
    }
    long started = System.nanoTime();
    if (settings.replaySeed().isPresent()) {
      long seed = settings.replaySeed().getAsLong();
      tryOnce(settings, site, tries, 1, 1, seed, gen, check);
      return String.format(Locale.ROOT, "property %s: seed %d (%s) passed", site.name(), seed, SEED);
    }
    int scaled = settings.scale(tries);
    SplittableRandom seeds = new SplittableRandom(propertySeed(settings.baseSeed(), site));
    for (int i = 1; i <= scaled; i++) {
      tryOnce(settings, site, tries, i, scaled, seeds.nextLong(), gen, check);
    }
    return String.format(Locale.ROOT, "property %s: %d tries passed in %.1f s (base seed %d; -D%s=%d repeats them)",
        site.name(), scaled, (System.nanoTime() - started) / 1e9, settings.baseSeed(), BASE_SEED,
        settings.baseSeed());
  }

  /**
   * One try. Its {@link Rng} is sized by the declared tries, not the scaled ones, so that a seed
   * replays the same input whatever {@value #TRIES} the replay runs with.
   */
  private static <T> void tryOnce(Settings settings, Site site, int declaredTries, int number, int of,
      long seed, Gen<T> gen, Check<? super T> check) {
    Rng rng = Rng.seeded(seed, declaredTries);
    boolean generated = false;
    T input = null;
    try {
      input = gen.next(rng);
      generated = true;
      check.run(input);
    } catch (OutOfMemoryError e) {
      throw e;
    } catch (Throwable failure) {
      throw new AssertionError(failureMessage(settings, site, number, of, rng, generated, input, failure),
          failure);
    }
  }

  /** Each property's tries differ from every other's, even under one base seed. */
  static long propertySeed(long baseSeed, Site site) {
    return mix(baseSeed ^ mix(site.name().hashCode()));
  }

  /** The finalizer of SplittableRandom's generator: neighbouring inputs give unrelated outputs. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  static String failureMessage(Settings settings, Site site, int number, int of, Rng rng,
      boolean generated, Object input, Throwable failure) {
    StringBuilder m = new StringBuilder();
    m.append("property ").append(site.name()).append(" failed on try ").append(number).append(" of ")
        .append(of).append(" with seed ").append(rng.seed());
    if (rng.edgeHeavy()) {
      m.append(" (an edge-heavy try)");
    }
    m.append('\n');
    m.append("  replay this try: -D").append(SEED).append('=').append(rng.seed()).append('\n');
    m.append("    ").append(site.replayCommand(rng.seed())).append('\n');
    if (settings.replaySeed().isEmpty()) {
      m.append("  rerun the whole run: -D").append(BASE_SEED).append('=').append(settings.baseSeed())
          .append('\n');
    }
    m.append("  failure: ").append(failure).append('\n');
    if (!generated) {
      m.append("  (the generator itself failed)\n");
    } else if (!(input instanceof Rng)) {
      appendInput(m, input);
    }
    return m.toString();
  }

  private static void appendInput(StringBuilder m, Object input) {
    if (input instanceof List<?> list) {
      m.append("  failing input, ").append(list.size()).append(" elements:\n");
      for (int i = 0; i < list.size(); i++) {
        if (i == MAX_INPUT_LINES) {
          m.append("    ... ").append(list.size() - i).append(" more\n");
          break;
        }
        m.append("    ").append(i).append(": ").append(list.get(i)).append('\n');
      }
    } else {
      m.append("  failing input: ").append(input).append('\n');
    }
  }

  /** What the system properties ask for; see the class comment. */
  record Settings(long baseSeed, OptionalLong replaySeed, double triesFactor) {
    Settings {
      if (!(triesFactor > 0) || Double.isInfinite(triesFactor)) {
        throw new IllegalArgumentException(TRIES + " must be a positive number, got " + triesFactor);
      }
    }

    /** One random base seed per test JVM, so the properties of one run print the same one. */
    private static final long RANDOM_BASE_SEED = new SplittableRandom().nextLong();

    static Settings fromSystemProperties() {
      return parse(System.getProperty(BASE_SEED), System.getProperty(SEED), System.getProperty(TRIES));
    }

    /** Settings from the three properties' texts, each null or blank when not given. */
    static Settings parse(String base, String seed, String factor) {
      return new Settings(
          base == null || base.isBlank() ? RANDOM_BASE_SEED : parseLong(BASE_SEED, base),
          seed == null || seed.isBlank() ? OptionalLong.empty() : OptionalLong.of(parseLong(SEED, seed)),
          factor == null || factor.isBlank() ? 1.0 : parseFactor(factor));
    }

    /** {@code tries} times the factor, rounded up: never fewer than one. */
    int scale(int tries) {
      return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(tries * triesFactor)));
    }

    private static long parseLong(String name, String value) {
      try {
        return Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("-D" + name + " must be a decimal long, got '" + value + "'", e);
      }
    }

    private static double parseFactor(String value) {
      try {
        return Double.parseDouble(value.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("-D" + TRIES + " must be a number, got '" + value + "'", e);
      }
    }
  }

  /**
   * Where a property is declared: the test class and method, and the Maven module whose test
   * classes hold it, which together make the replay command.
   */
  record Site(String className, String method, String module) {

    /** {@code SimpleClass.method}: what the printed lines call the property. */
    String name() {
      return simpleClassName() + "." + method;
    }

    String simpleClassName() {
      String simple = className.substring(className.lastIndexOf('.') + 1);
      return simple.substring(simple.lastIndexOf('$') + 1);
    }

    /** The Maven command that runs just this test method with just {@code seed}. */
    String replayCommand(long seed) {
      String modules = module == null ? "" : "-pl " + module + " -am ";
      return "mvn -B " + modules + "test -Dtest='" + simpleClassName() + "#" + method
          + "' -Dsurefire.failIfNoSpecifiedTests=false -D" + SEED + "=" + seed;
    }

    /**
     * The first caller outside this class: the test method (or its helper) running the property.
     */
    static Site caller() {
      StackWalker walker = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
      StackWalker.StackFrame frame = walker.walk(frames -> frames
          .filter(f -> f.getDeclaringClass().getNestHost() != Property.class)
          .findFirst()
          .orElseThrow());
      Class<?> type = frame.getDeclaringClass();
      return new Site(type.getName(), enclosingMethod(frame.getMethodName()), moduleOf(type));
    }

    /**
     * The method a lambda was written in ({@code lambda$roundTrips$3} is in {@code roundTrips}), so
     * that a property run inside a lambda still names a method {@code -Dtest} can select.
     */
    static String enclosingMethod(String method) {
      if (method.startsWith("lambda$") && method.lastIndexOf('$') > "lambda$".length()) {
        return method.substring("lambda$".length(), method.lastIndexOf('$'));
      }
      return method;
    }

    /**
     * The module directory of a class compiled by Maven into {@code <module>/target/test-classes}
     * (or {@code classes}), or null when the class came from elsewhere (a jar, an IDE).
     */
    static String moduleOf(Class<?> type) {
      try {
        var source = type.getProtectionDomain().getCodeSource();
        if (source == null) {
          return null;
        }
        Path classes = Path.of(source.getLocation().toURI());
        Path target = classes.getParent();
        if (target == null || target.getFileName() == null || !target.getFileName().toString().equals("target")
            || target.getParent() == null || target.getParent().getFileName() == null) {
          return null;
        }
        return target.getParent().getFileName().toString();
      } catch (URISyntaxException | RuntimeException e) {
        return null;
      }
    }
  }
}
