package dev.ration.wire.placement;

import dev.ration.wire.security.Tenants;
import java.nio.charset.StandardCharsets;

/**
 * The fixed slots tenants are placed by: a tenant (everything it owns — limits, leases, quotas at
 * every scope level, TTL namespaces, the grants that name it) lives in slot {@link #of}, and a
 * slot in one Raft group at a time. Groups own slots, not tenants, so placement is a table of
 * {@link #COUNT} rows and a move hands over one row.
 *
 * <p>Both the number of slots and the hash are part of the stored format: a tenant's slot must
 * be the same on every node, in every client and in every release, so neither ever changes
 * (a golden test pins them). The hash is FNV-1a over the tenant's UTF-8 bytes followed by
 * MurmurHash3's 64-bit finalizer, whose avalanche spreads similar names ("t-1", "t-2") over
 * all slots; the slot is that hash modulo {@link #COUNT}.
 */
public final class Slots {
  /** How many slots there are: many per group, few enough that placement stays a small table. */
  public static final int COUNT = 256;

  private Slots() {}

  /** The slot of {@code tenant}. */
  public static int of(String tenant) {
    long h = 0xcbf29ce484222325L;
    for (byte b : tenant.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return (int) Long.remainderUnsigned(h, COUNT);
  }

  /** The slot of the tenant a scope path or TTL namespace belongs to ({@link Tenants#ofPath}). */
  public static int ofPath(String path) {
    return of(Tenants.ofPath(path));
  }

  /** Throws IllegalArgumentException unless {@code slot} names a slot. */
  public static int check(int slot) {
    if (slot < 0 || slot >= COUNT) {
      throw new IllegalArgumentException("slot " + slot + " is not in [0, " + COUNT + ")");
    }
    return slot;
  }
}
