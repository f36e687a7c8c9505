package dev.ration.wire.shape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import org.junit.jupiter.api.Test;

class ShapeReadTest {
  /** A record whose fields decode alone but which refuses some combinations of them. */
  public record Range(long from, long to) {
    static final Shape<Range> SHAPE =
        Shape.of(Range.class, Fields.i64("from", Range::from), Fields.i64("to", Range::to));

    public Range {
      if (from > to) {
        throw new IllegalArgumentException("from " + from + " after to " + to);
      }
    }
  }

  static final class Malformed extends RuntimeException {
    Malformed(String message) {
      super(message);
    }
  }

  /** Goal: bytes the record refuses are the reader's failure, never a bare constructor error. */
  @Test
  void aRecordRefusingDecodedFieldsIsAMalformedInput() {
    byte[] bytes = new ByteWriter(16).i64(5).i64(3).toByteArray();
    Malformed e = assertThrows(Malformed.class,
        () -> Range.SHAPE.read(new ByteReader(bytes, "range", Malformed::new)));
    assertTrue(e.getMessage().contains("Range: from 5 after to 3"), e.getMessage());
    byte[] good = new ByteWriter(16).i64(3).i64(5).toByteArray();
    assertEquals(new Range(3, 5), Range.SHAPE.read(new ByteReader(good, "range", Malformed::new)));
  }
}
