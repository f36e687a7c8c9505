package dev.ration.server.config;

import java.util.Locale;

/**
 * Which requests take a place in their tenant's share of a node's admission
 * ({@code endpoint.tenant-fairness}).
 */
public enum TenantFairness {
  /** Every request that can add work: one hot tenant fills at most its share of the queue. */
  ALL,
  /** Reservations and usage ingests only (the behaviour before every kind was gated). */
  QUOTA,
  /** No per-tenant share; only the per-connection cap and the queue bound admission. */
  NONE;

  /** The config spelling: lower case. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The value for a config spelling, or null if there is none. */
  public static TenantFairness parse(String text) {
    for (TenantFairness f : values()) {
      if (f.configName().equals(text)) {
        return f;
      }
    }
    return null;
  }
}
