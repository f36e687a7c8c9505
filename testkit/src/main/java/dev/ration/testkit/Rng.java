package dev.ration.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The one source of randomness of a property try: a {@link SplittableRandom} seeded by the try's
 * seed, so the seed alone fixes every value the try draws, in the order it draws them.
 *
 * <p>Numbers drawn with {@link #between(long, long)} are biased on purpose, because uniform
 * numbers almost never land on the values where code breaks. Of the draws:
 *
 * <ul>
 *   <li>one in {@link #edgeOdds()} is an <em>edge</em>: the range's ends and their neighbours,
 *       and -2, -1, 0, 1 and 2 where the range holds them;
 *   <li>half of the rest (in ranges wider than {@value #SMALL_RANGE}) has a random magnitude: a
 *       bit count is chosen uniformly, then an offset of that many bits from the value nearest
 *       zero, so small numbers and every power of two's neighbourhood come up often even in the
 *       full {@code long} range;
 *   <li>the rest is uniform over the range.
 * </ul>
 *
 * <p>One try in {@value #EDGE_HEAVY_ONE_IN} is <em>edge-heavy</em> (half of its draws are edges),
 * so combinations of several edge values at once, such as a zero rate with a zero burst and an
 * empty sequence, are tried every run and not left to chance. Whether a try is edge-heavy
 * follows from its seed, like everything else.
 *
 * <p>Collection sizes ({@link #size(int, int)}) are mostly short, which keeps a try cheap, with
 * both ends as edges. How short follows the property's number of tries: a property tried more
 * often can afford longer inputs.
 */
public final class Rng {
  /** One try in this many is edge-heavy. */
  static final int EDGE_HEAVY_ONE_IN = 5;
  /** In an edge-heavy try one draw in this many is an edge. */
  static final int EDGE_HEAVY_ODDS = 2;
  /** In an ordinary try one draw in this many is an edge. */
  static final int EDGE_ODDS = 10;
  /** Ranges at most this wide are drawn uniformly between edges (a magnitude adds nothing). */
  static final long SMALL_RANGE = 64;
  /** Collections are mostly at most this many elements past their minimum, or √tries if more. */
  static final int SHORT_SIZES = 10;
  /** The tries assumed by {@link #seeded(long)}, which gives {@link #SHORT_SIZES}. */
  static final int DEFAULT_TRIES = 100;

  private final long seed;
  private final SplittableRandom random;
  private final int edgeOdds;
  private final int shortSizes;

  private Rng(long seed, int tries) {
    if (tries < 1) {
      throw new IllegalArgumentException("tries must be positive, got " + tries);
    }
    this.seed = seed;
    this.random = new SplittableRandom(seed);
    this.edgeOdds = random.nextInt(EDGE_HEAVY_ONE_IN) == 0 ? EDGE_HEAVY_ODDS : EDGE_ODDS;
    this.shortSizes = (int) Math.max(SHORT_SIZES, Math.round(Math.sqrt(tries)));
  }

  /** A generator whose every draw follows from {@code seed}. */
  public static Rng seeded(long seed) {
    return new Rng(seed, DEFAULT_TRIES);
  }

  /**
   * A generator whose every draw follows from {@code seed} and {@code tries}, the number of tries
   * the property declares: its collections are mostly up to max(10, √tries) long.
   */
  public static Rng seeded(long seed, int tries) {
    return new Rng(seed, tries);
  }

  /** The seed this generator started from: replaying it draws the same values. */
  public long seed() {
    return seed;
  }

  /** One draw in this many from {@link #between} is an edge value. */
  public int edgeOdds() {
    return edgeOdds;
  }

  /** Whether this try leans on edge values (half its biased draws are edges). */
  public boolean edgeHeavy() {
    return edgeOdds == EDGE_HEAVY_ODDS;
  }

  /** Collections are nine times in ten at most this many elements past their minimum. */
  public int shortSizes() {
    return shortSizes;
  }

  // ---------------------------------------------------------------- uniform draws

  /** A uniform {@code long} in {@code [min, max]}, both included. */
  public long uniform(long min, long max) {
    checkRange(min, max);
    if (max < Long.MAX_VALUE) {
      return random.nextLong(min, max + 1);
    }
    if (min > Long.MIN_VALUE) {
      return random.nextLong(min - 1, max) + 1;
    }
    return random.nextLong();
  }

  /** A uniform {@code int} in {@code [min, max]}, both included. */
  public int uniform(int min, int max) {
    return (int) uniform((long) min, (long) max);
  }

  /** True or false, each half the time. */
  public boolean bool() {
    return random.nextBoolean();
  }

  /** True with probability {@code 1 / n}. */
  public boolean oneIn(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("oneIn needs n >= 1, got " + n);
    }
    return random.nextInt(n) == 0;
  }

  /** True with the given probability, in {@code [0, 1]}. */
  public boolean chance(double probability) {
    if (!(probability >= 0 && probability <= 1)) {
      throw new IllegalArgumentException("probability outside [0, 1]: " + probability);
    }
    return random.nextDouble() < probability;
  }

  // ---------------------------------------------------------------- biased draws

  /** A {@code long} in {@code [min, max]}, both included, biased to edges and small magnitudes. */
  public long between(long min, long max) {
    checkRange(min, max);
    if (min == max) {
      return min;
    }
    if (random.nextInt(edgeOdds) == 0) {
      List<Long> edges = edges(min, max);
      return edges.get(random.nextInt(edges.size()));
    }
    if (wider(min, max, SMALL_RANGE) && random.nextBoolean()) {
      return magnitude(min, max);
    }
    return uniform(min, max);
  }

  /** An {@code int} in {@code [min, max]}, both included, biased like {@link #between(long, long)}. */
  public int between(int min, int max) {
    return (int) between((long) min, (long) max);
  }

  /** Any {@code long}, biased to edges ({@code MIN_VALUE}, {@code MAX_VALUE}, 0, ±1, ±2) and magnitudes. */
  public long anyLong() {
    return between(Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /** Any {@code int}, biased like {@link #anyLong()}. */
  public int anyInt() {
    return between(Integer.MIN_VALUE, Integer.MAX_VALUE);
  }

  /**
   * A collection size in {@code [min, max]}. Ends are edges (drawn as often as {@link #between}
   * draws edges); otherwise nine sizes in ten are at most {@link #shortSizes()} past {@code min}
   * and the tenth is in the long tail above that, so short collections keep tries cheap while
   * long ones still come up every run.
   */
  public int size(int min, int max) {
    if (min < 0) {
      throw new IllegalArgumentException("negative minimum size " + min);
    }
    checkRange(min, max);
    if (min == max) {
      return min;
    }
    if (random.nextInt(edgeOdds) == 0) {
      return random.nextBoolean() ? min : max;
    }
    int shortEnd = (int) Math.min((long) min + shortSizes, max);
    if (shortEnd == max || random.nextInt(10) != 0) {
      return uniform(min, shortEnd);
    }
    return uniform(shortEnd + 1, max);
  }

  // ---------------------------------------------------------------- choices and containers

  /** One of the values, each equally likely. */
  @SafeVarargs
  public final <T> T oneOf(T... values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("oneOf needs at least one value");
    }
    return values[random.nextInt(values.length)];
  }

  /** One of the values, each equally likely. */
  public <T> T oneOf(List<? extends T> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("oneOf needs at least one value");
    }
    return values.get(random.nextInt(values.size()));
  }

  /** One of the enum's constants, each equally likely. */
  public <E extends Enum<E>> E oneOf(Class<E> type) {
    return oneOf(type.getEnumConstants());
  }

  /** A list of {@link #size(int, int)} elements, each drawn by {@code element} in order. */
  public <T> List<T> list(int minSize, int maxSize, Gen<? extends T> element) {
    int n = size(minSize, maxSize);
    List<T> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(element.next(this));
    }
    return out;
  }

  /** Between 0 and {@code maxLength} bytes, each any byte value, biased like {@link #between}. */
  public byte[] bytes(int maxLength) {
    byte[] out = new byte[size(0, maxLength)];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) between(Byte.MIN_VALUE, Byte.MAX_VALUE);
    }
    return out;
  }

  /** A string of 0 to {@code maxLength} characters, each drawn from {@code alphabet}. */
  public String string(int maxLength, Alphabet alphabet) {
    int n = size(0, maxLength);
    StringBuilder out = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      out.append(alphabet.next(this));
    }
    return out.toString();
  }

  // ---------------------------------------------------------------- internals

  /** The range's ends and their neighbours, and -2 to 2 where the range holds them. */
  static List<Long> edges(long min, long max) {
    List<Long> out = new ArrayList<>(9);
    addIfIn(out, min, min, max);
    addIfIn(out, max, min, max);
    if (min < Long.MAX_VALUE) {
      addIfIn(out, min + 1, min, max);
    }
    if (max > Long.MIN_VALUE) {
      addIfIn(out, max - 1, min, max);
    }
    for (long v : new long[] {0, 1, -1, 2, -2}) {
      addIfIn(out, v, min, max);
    }
    return out;
  }

  private static void addIfIn(List<Long> out, long v, long min, long max) {
    if (v >= min && v <= max && !out.contains(v)) {
      out.add(v);
    }
  }

  /**
   * A value a random number of bits away from the range's value nearest zero, toward either end
   * that has room. Distances are unsigned, so the full {@code long} range needs no special case.
   */
  private long magnitude(long min, long max) {
    long anchor = Math.max(min, Math.min(max, 0));
    boolean up = anchor == min || (anchor != max && random.nextBoolean());
    long room = up ? max - anchor : anchor - min; // > 0, read unsigned
    int bits = 1 + random.nextInt(64 - Long.numberOfLeadingZeros(room));
    long offset = random.nextLong() >>> (64 - bits);
    if (Long.compareUnsigned(offset, room) > 0) {
      offset >>>= 1; // below 2^(bits-1), which room reaches
    }
    return up ? anchor + offset : anchor - offset;
  }

  /** Whether {@code [min, max]} holds more than {@code width} values. */
  private static boolean wider(long min, long max, long width) {
    long span = max - min; // unsigned: the count of values minus one
    return Long.compareUnsigned(span, width) > 0;
  }

  private static void checkRange(long min, long max) {
    if (min > max) {
      throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
    }
  }
}
