package dev.ration.client.ttl;

import dev.ration.wire.CapacityPolicy;
import java.util.Objects;

/**
 * The capacity of a TTL namespace, for {@link TtlEntries#setNamespace}: how many entries and
 * bytes it may hold, and what a write that does not fit does. Built with {@link #builder}.
 *
 * <pre>{@code
 * NamespaceSpec spec = NamespaceSpec.builder("sessions")
 *     .maxEntries(100_000).maxBytes(64L << 20)
 *     .whenFull(CapacityPolicy.EVICT_SOONEST_EXPIRING).build();
 * }</pre>
 *
 * @param name the namespace
 * @param maxEntries the most entries it may hold (expired ones count until removed)
 * @param maxBytes the most key and value bytes it may hold
 * @param whenFull what a write that needs room does once expired entries are gone
 */
public record NamespaceSpec(String name, long maxEntries, long maxBytes, CapacityPolicy whenFull) {
  /**
   * A namespace spec.
   *
   * @param name the namespace, not empty
   * @param maxEntries positive
   * @param maxBytes positive
   * @param whenFull not null
   * @throws IllegalArgumentException on an empty name or a bound that is not positive
   */
  public NamespaceSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(whenFull, "whenFull");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("namespace name must not be empty");
    }
    if (maxEntries <= 0 || maxBytes <= 0) {
      throw new IllegalArgumentException("maxEntries and maxBytes must be positive: "
          + maxEntries + ", " + maxBytes);
    }
  }

  /**
   * A builder for namespace {@code name}: by default 10,000 entries, 16 MiB, and
   * {@link CapacityPolicy#REJECT} when full.
   *
   * @param name the namespace
   * @return a builder
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** Builds a {@link NamespaceSpec}; not thread-safe. */
  public static final class Builder {
    private final String name;
    private long maxEntries = 10_000;
    private long maxBytes = 16L << 20;
    private CapacityPolicy whenFull = CapacityPolicy.REJECT;

    private Builder(String name) {
      this.name = name;
    }

    /**
     * The most entries the namespace may hold.
     *
     * @param n positive
     * @return this builder
     */
    public Builder maxEntries(long n) {
      this.maxEntries = n;
      return this;
    }

    /**
     * The most key and value bytes the namespace may hold.
     *
     * @param n positive
     * @return this builder
     */
    public Builder maxBytes(long n) {
      this.maxBytes = n;
      return this;
    }

    /**
     * What a write that needs room does when the namespace is full.
     *
     * @param policy refuse, or evict the entries soonest to expire
     * @return this builder
     */
    public Builder whenFull(CapacityPolicy policy) {
      this.whenFull = policy;
      return this;
    }

    /**
     * The spec.
     *
     * @return the namespace spec
     * @throws IllegalArgumentException if a bound is not positive
     */
    public NamespaceSpec build() {
      return new NamespaceSpec(name, maxEntries, maxBytes, whenFull);
    }
  }
}
