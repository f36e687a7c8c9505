package dev.ration.client.ttl;

import dev.ration.client.time.LedgerTime;
import java.util.Arrays;

/**
 * A live TTL entry as read from the cluster.
 *
 * @param namespace the entry's namespace
 * @param key the entry's key
 * @param value the stored bytes (a copy: changing it changes nothing stored)
 * @param version the entry's version, larger after every put or compare-and-set
 * @param expiresAt when the entry expires, in ledger time; {@link LedgerTime#NEVER} for no expiry
 */
public record Entry(String namespace, String key, byte[] value, long version, LedgerTime expiresAt) {
  /**
   * An entry; {@code value} is copied.
   *
   * @param namespace the entry's namespace
   * @param key the entry's key
   * @param value the stored bytes
   * @param version the entry's version
   * @param expiresAt its expiry in ledger time
   */
  public Entry {
    value = value.clone();
  }

  /**
   * The stored bytes.
   *
   * @return a copy of the value
   */
  @Override
  public byte[] value() {
    return value.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Entry e && namespace.equals(e.namespace) && key.equals(e.key)
        && Arrays.equals(value, e.value) && version == e.version && expiresAt.equals(e.expiresAt);
  }

  @Override
  public int hashCode() {
    return (namespace.hashCode() * 31 + key.hashCode()) * 31 + Long.hashCode(version);
  }

  @Override
  public String toString() {
    return "Entry[" + namespace + "/" + key + " version=" + version + " expiresAt=" + expiresAt
        + " " + value.length + " bytes]";
  }
}
