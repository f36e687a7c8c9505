package dev.ration.server.loadgen;

import java.util.Locale;

/** The operation mix of a run: only acquires, only renewals, or renewals with a ratio. */
public enum Workload {
  ACQUIRE,
  RENEW,
  MIXED;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether slots hold a lease of their own that they renew. */
  boolean holdsLeases() {
    return this != ACQUIRE;
  }
}
