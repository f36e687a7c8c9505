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

  /** This field reporting its path under {@code prefix}. */
  Field<T> under(String prefix);
}
