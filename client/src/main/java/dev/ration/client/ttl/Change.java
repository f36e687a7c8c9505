package dev.ration.client.ttl;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.ChangeKind;
import java.util.Arrays;

/**
 * One change to a TTL entry, as a watch reports it.
 *
 * @param index the log index of the entry that made the change (a watch resumes after it)
 * @param kind what happened
 * @param namespace the entry's namespace
 * @param key the entry's key
 * @param version the entry's version after a put or refresh; the version removed otherwise
 * @param expiresAt the entry's expiry after a put or refresh (ledger time,
 *     {@link LedgerTime#NEVER} for none); the removed entry's expiry otherwise
 * @param value the value after a put or refresh (a copy); empty for a removal
 */
public record Change(long index, ChangeKind kind, String namespace, String key, long version,
    LedgerTime expiresAt, byte[] value) {
  /**
   * A change; {@code value} is copied.
   *
   * @param index the log index
   * @param kind what happened
   * @param namespace the namespace
   * @param key the key
   * @param version the version
   * @param expiresAt the expiry
   * @param value the value
   */
  public Change {
    value = value.clone();
  }

  /**
   * The value after a put or refresh.
   *
   * @return a copy of the value; empty for a removal
   */
  @Override
  public byte[] value() {
    return value.clone();
  }

  /**
   * The entry this change leaves, if it leaves one.
   *
   * @return the entry after a put or refresh; empty after a removal
   */
  public java.util.Optional<Entry> entry() {
    return kind.removes() ? java.util.Optional.empty()
        : java.util.Optional.of(new Entry(namespace, key, value, version, expiresAt));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Change c && index == c.index && kind == c.kind
        && namespace.equals(c.namespace) && key.equals(c.key) && version == c.version
        && expiresAt.equals(c.expiresAt) && Arrays.equals(value, c.value);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(index) * 31 + key.hashCode();
  }

  @Override
  public String toString() {
    return "Change[" + index + " " + kind + " " + namespace + "/" + key + " version=" + version
        + " expiresAt=" + expiresAt + " " + value.length + " bytes]";
  }
}
