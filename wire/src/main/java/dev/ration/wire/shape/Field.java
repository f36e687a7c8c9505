package dev.ration.wire.shape;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;

/**
 * One field of a {@link Shape}: its component name, the path it reports in errors, how to
 * write it from the record and how to read it back. Built by {@link Fields}.
 */
public interface Field<T> {
  /** The record component this field encodes. */
  String name();

  /** The fewest bytes this field can take. */
  int minBytes();

  void write(ByteWriter w, T record);

  Object read(ByteReader r);

  /**
   * Reads the field when its presence depends on a field read before it; {@code earlier} holds
   * the values read so far, in component order.
   */
  default Object read(ByteReader r, Object[] earlier) {
    return read(r);
  }

  /** This field bound to the record's component names (for fields that refer to another). */
  default Field<T> bind(java.util.List<String> components) {
    return this;
  }

  /** This field reporting its path under {@code prefix}. */
  Field<T> under(String prefix);
}
