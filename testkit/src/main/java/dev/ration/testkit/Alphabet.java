package dev.ration.testkit;

/**
 * The characters a generated string may hold, and how often each kind comes up.
 *
 * <p>{@link #BMP_TEXT} is every character of the Basic Multilingual Plane except the surrogates
 * (U+D800 to U+DFFF): every {@code char} that is a complete code point on its own, so any
 * string of them is valid UTF-16 and round-trips through UTF-8. It leans on the characters
 * where encoders break: the ends of each UTF-8 length class and control characters.
 */
public final class Alphabet {
  /** The first surrogate {@code char}: none from here to {@link #SURROGATE_END} is drawn. */
  private static final char SURROGATE_START = '\uD800';
  private static final char SURROGATE_END = '\uDFFF';

  /**
   * U+0000, the last 1-byte UTF-8 character (U+007F) and the first 2-byte one, the last 2-byte and
   * the first 3-byte, the neighbours of the surrogate block, and U+FFFF.
   */
  private static final char[] BMP_EDGES = {
    '\u0000', '\u0001', '\u007F', '\u0080', '\u07FF', '\u0800', '\uD7FF', '\uE000', '\uFFFE', '\uFFFF'
  };

  /** Every non-surrogate {@code char}, biased to edges, ASCII and two-byte UTF-8. */
  public static final Alphabet BMP_TEXT = new Alphabet(null);

  /** Non-null for an explicit alphabet; null for {@link #BMP_TEXT}. */
  private final String chars;

  private Alphabet(String chars) {
    this.chars = chars;
  }

  /** Exactly the characters of {@code chars}, each equally likely. */
  public static Alphabet of(String chars) {
    if (chars.isEmpty()) {
      throw new IllegalArgumentException("an alphabet needs at least one character");
    }
    return new Alphabet(chars);
  }

  /** One character of this alphabet. */
  public char next(Rng rng) {
    if (chars != null) {
      return chars.charAt(rng.uniform(0, chars.length() - 1));
    }
    if (rng.oneIn(rng.edgeOdds())) {
      return BMP_EDGES[rng.uniform(0, BMP_EDGES.length - 1)];
    }
    return switch (rng.uniform(0, 3)) {
      case 0 -> (char) rng.uniform(0x20, 0x7E); // printable ASCII
      case 1 -> (char) rng.uniform(0x80, 0x7FF); // two bytes in UTF-8
      default -> anyNonSurrogate(rng);
    };
  }

  /** Whether {@code c} may come from this alphabet. */
  public boolean contains(char c) {
    if (chars != null) {
      return chars.indexOf(c) >= 0;
    }
    return c < SURROGATE_START || c > SURROGATE_END;
  }

  private static char anyNonSurrogate(Rng rng) {
    int surrogates = SURROGATE_END - SURROGATE_START + 1;
    int c = rng.uniform(0, 0xFFFF - surrogates);
    return (char) (c < SURROGATE_START ? c : c + surrogates);
  }
}
