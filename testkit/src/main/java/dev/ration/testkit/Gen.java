package dev.ration.testkit;

import java.util.List;
import java.util.function.Function;

/**
 * A generator of values of type {@code T}: a function of an {@link Rng}. Generators hold no state
 * of their own, so the same seed gives the same value; build bigger ones from smaller ones with
 * lambdas ({@code r -> new Step(r.between(0, 9), ops.next(r))}) and the combinators here.
 *
 * @param <T> the type of the values generated
 */
@FunctionalInterface
public interface Gen<T> {

  /** Draws one value from {@code rng}. */
  T next(Rng rng);

  /** A generator of {@code f} applied to this one's values. */
  default <R> Gen<R> map(Function<? super T, ? extends R> f) {
    return r -> f.apply(next(r));
  }

  /** Lists of this generator's values, sized by {@link Rng#size(int, int)}. */
  default Gen<List<T>> list(int minSize, int maxSize) {
    return r -> r.list(minSize, maxSize, this);
  }

  /** This generator's values, or {@code null} with the given probability. */
  default Gen<T> orNull(double probability) {
    return r -> r.chance(probability) ? null : next(r);
  }

  /** Always {@code value}. */
  static <T> Gen<T> constant(T value) {
    return r -> value;
  }

  /** {@code long}s in {@code [min, max]}, biased as {@link Rng#between(long, long)}. */
  static Gen<Long> longs(long min, long max) {
    return r -> r.between(min, max);
  }

  /** {@code int}s in {@code [min, max]}, biased as {@link Rng#between(int, int)}. */
  static Gen<Integer> ints(int min, int max) {
    return r -> r.between(min, max);
  }

  /** One of the values, each equally likely. */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only copied into an immutable list
  static <T> Gen<T> elements(T... values) {
    List<T> copy = List.of(values);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("elements needs at least one value");
    }
    return r -> r.oneOf(copy);
  }

  /** A value of one of the generators, each generator equally likely. */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only copied into an immutable list
  static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
    List<Gen<? extends T>> copy = List.of(gens);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("oneOf needs at least one generator");
    }
    return r -> r.oneOf(copy).next(r);
  }

  /** A generator with its weight in a {@link #frequency} choice. */
  record Weighted<T>(int weight, Gen<? extends T> gen) {
    public Weighted {
      if (weight < 0) {
        throw new IllegalArgumentException("negative weight " + weight);
      }
    }
  }

  /** {@code gen} with weight {@code weight}, for {@link #frequency}. */
  static <T> Weighted<T> weight(int weight, Gen<? extends T> gen) {
    return new Weighted<>(weight, gen);
  }

  /**
   * A value of one of the generators, each chosen with probability its weight over the total:
   * {@code frequency(weight(6, reserve), weight(1, setLimit))} reserves six times as often.
   */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only copied into an immutable list
  static <T> Gen<T> frequency(Weighted<? extends T>... choices) {
    List<Weighted<? extends T>> copy = List.of(choices);
    long total = 0;
    for (Weighted<? extends T> w : copy) {
      total += w.weight();
    }
    if (total <= 0 || total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("weights must sum to between 1 and 2^31-1, got " + total);
    }
    int sum = (int) total;
    return r -> {
      int ticket = r.uniform(0, sum - 1);
      for (Weighted<? extends T> w : copy) {
        if (ticket < w.weight()) {
          return w.gen().next(r);
        }
        ticket -= w.weight();
      }
      throw new AssertionError("unreachable: ticket beyond the weights' sum");
    };
  }
}
