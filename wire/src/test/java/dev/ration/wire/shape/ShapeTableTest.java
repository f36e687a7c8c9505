package dev.ration.wire.shape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.Bytes;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShapeTableTest {
  public sealed interface Family permits Item, Order {}

  public record Item(String name, long amount) implements Family {
    public static final int CODE = 1;
    public static final Shape<Item> SHAPE =
        Shape.of(Item.class, Fields.str("name", Item::name), Fields.i64("amount", Item::amount));
  }

  /** Stored with its items last though they are its first component, and a value. */
  public record Order(List<Item> items, long id, Bytes note) implements Family {
    public static final int CODE = 2;
    public static final Shape<Order> SHAPE =
        Shape.reordered(
            Order.class,
            Fields.i64("id", Order::id),
            Fields.value("note", Order::note),
            Fields.list16("items", Order::items, Item.SHAPE));
  }

  public sealed interface Incomplete permits Bare {}

  public record Bare(long id) implements Incomplete {}

  public sealed interface Clashing permits A, B {}

  public record A(long id) implements Clashing {
    public static final int CODE = 7;
    public static final Shape<A> SHAPE = Shape.of(A.class, Fields.i64("id", A::id));
  }

  public record B(long id) implements Clashing {
    public static final int CODE = 7;
    public static final Shape<B> SHAPE = Shape.of(B.class, Fields.i64("id", B::id));
  }

  private static final ShapeTable<Family> TABLE = ShapeTable.ofSealed(Family.class, Set.of());

  private static ByteReader reader(String hex) {
    return new ByteReader(HexFormat.of().parseHex(hex), "test", IllegalStateException::new);
  }

  /** Goal: a reordered shape writes in its declared order and reads back the same record. */
  @Test
  void reorderedShapeWritesInItsOwnOrder() {
    Order order = new Order(List.of(new Item("a", 3)), 9, Bytes.utf8("hi"));
    ByteWriter w = new ByteWriter(16);
    TABLE.write(w, Order.CODE, order);
    String hex = HexFormat.of().formatHex(w.toByteArray());
    assertEquals("0000000000000009" + "00000002" + "6869" + "0001" + "000161"
        + "0000000000000003", hex);
    ByteReader r = reader(hex);
    assertEquals(order, TABLE.read(r, Order.CODE, "order"));
    r.end();
  }

  /** Goal: unknown codes, hostile counts and negative lengths are the reader's failures. */
  @Test
  void badInputIsTheReadersFailure() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> TABLE.read(reader(""), 9, "order"));
    assertTrue(e.getMessage().contains("unknown order code 9"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> TABLE.read(reader("0000000000000009" + "00000000" + "ffff"), Order.CODE, "order"));
    assertTrue(e.getMessage().contains("items.count"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> TABLE.read(reader("0000000000000009" + "ffffffff"), Order.CODE, "order"));
    assertTrue(e.getMessage().contains("note"), e.getMessage());
  }

  /** Goal: a member without CODE and SHAPE, or two members with one code, fail the table. */
  @Test
  void incompleteOrClashingFamiliesAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShapeTable.ofSealed(Incomplete.class, Set.of()));
    assertTrue(e.getMessage().contains("Bare declares no public static final int CODE"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> ShapeTable.ofSealed(Clashing.class, Set.of()));
    assertTrue(e.getMessage().contains("share code 7"), e.getMessage());
  }
}
