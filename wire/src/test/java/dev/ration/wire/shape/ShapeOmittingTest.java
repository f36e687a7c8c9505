package dev.ration.wire.shape;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import org.junit.jupiter.api.Test;

class ShapeOmittingTest {
  public record Stamped(String name, long version, long stampedAt, String note) {
    static final Shape<Stamped> SHAPE =
        Shape.of(Stamped.class,
            Fields.str("name", Stamped::name),
            Fields.i64("version", Stamped::version),
            Fields.i64("stampedAt", Stamped::stampedAt),
            Fields.str("note", Stamped::note));
    static final Shape<Stamped> PROPOSAL = SHAPE.omitting("stampedAt", 0L);
  }

  private static byte[] write(Shape<Stamped> shape, Stamped value) {
    ByteWriter w = new ByteWriter(64);
    shape.write(w, value);
    return w.toByteArray();
  }

  @Test
  void omittedComponentIsNeitherWrittenNorRead() {
    Stamped stamped = new Stamped("a", 7, 123_456, "why");
    byte[] full = write(Stamped.SHAPE, stamped);
    byte[] proposal = write(Stamped.PROPOSAL, stamped);
    assertEquals(full.length - 8, proposal.length, "the omitted i64 takes no bytes");
    ByteReader r = new ByteReader(proposal, "test", IllegalStateException::new);
    assertEquals(new Stamped("a", 7, 0, "why"), Stamped.PROPOSAL.read(r));
    assertEquals(0, r.remaining());
    // The other fields keep their bytes and order.
    ByteWriter expected = new ByteWriter(64);
    expected.str("name", "a").i64(7).str("note", "why");
    assertArrayEquals(expected.toByteArray(), proposal);
  }

  @Test
  void unknownComponentIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Stamped.SHAPE.omitting("nope", 0L));
    assertEquals(Stamped.class.getName() + " has no component nope", e.getMessage());
  }
}
