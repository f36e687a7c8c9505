package dev.ration.wire.shape;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The shapes of a sealed family of records, by their one-byte code: what a log or store format
 * dispatches through instead of an instanceof chain and a switch. The family is its sealed
 * hierarchy, so the table cannot miss a member: every record the root permits (through sealed
 * sub-interfaces too) declares {@code public static final int CODE} and {@code public static
 * final Shape<Self> SHAPE}, and building the table fails naming the record that does not, or
 * the two records that share a code. A new member is then declared in one place, its own file.
 * Immutable and thread-safe.
 */
public final class ShapeTable<T> {
  private final String family;
  private final Shape<?>[] byCode = new Shape<?>[256];

  private ShapeTable(String family) {
    this.family = family;
  }

  /** The table of every record {@code root} permits, less the {@code except} ones. */
  public static <T> ShapeTable<T> ofSealed(Class<T> root, Set<Class<?>> except) {
    ShapeTable<T> table = new ShapeTable<>(root.getSimpleName());
    for (Class<?> member : members(root)) {
      if (!except.contains(member)) {
        table.add(member);
      }
    }
    return table;
  }

  private static List<Class<?>> members(Class<?> root) {
    List<Class<?>> out = new ArrayList<>();
    if (root.isRecord()) {
      out.add(root);
    } else if (root.isSealed()) {
      for (Class<?> sub : root.getPermittedSubclasses()) {
        out.addAll(members(sub));
      }
    } else {
      throw new IllegalArgumentException(root.getName() + " is neither a record nor sealed");
    }
    return out;
  }

  private void add(Class<?> member) {
    int code = (int) constant(member, "CODE", int.class);
    Shape<?> shape = (Shape<?>) constant(member, "SHAPE", Shape.class);
    if (shape.type() != member) {
      throw new IllegalArgumentException(
          member.getName() + ".SHAPE is the shape of " + shape.type().getName());
    }
    if (code < 0 || code >= byCode.length) {
      throw new IllegalArgumentException(member.getName() + ".CODE " + code + " is not a u8");
    }
    if (byCode[code] != null) {
      throw new IllegalArgumentException(
          member.getName() + " and " + byCode[code].type().getName() + " share code " + code);
    }
    byCode[code] = shape;
  }

  private static Object constant(Class<?> member, String name, Class<?> type) {
    try {
      Field f = member.getField(name);
      int m = f.getModifiers();
      if (!Modifier.isStatic(m) || !Modifier.isFinal(m) || f.getType() != type) {
        throw new NoSuchFieldException(name);
      }
      return f.get(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(
          member.getName() + " declares no public static final " + type.getSimpleName() + " "
              + name, e);
    }
  }

  /**
   * Adds a second code of a member (a newer encoding of the same record, carrying more of its
   * components); refused when the code is taken or the shape is of no member.
   */
  public ShapeTable<T> with(int code, Shape<?> shape) {
    if (code < 0 || code >= byCode.length) {
      throw new IllegalArgumentException(shape.type().getName() + " extra code " + code + " is not a u8");
    }
    if (byCode[code] != null) {
      throw new IllegalArgumentException(shape.type().getName() + " and "
          + byCode[code].type().getName() + " share code " + code);
    }
    byCode[code] = shape;
    return this;
  }

  /** True when {@code code} is one of the family's. */
  public boolean knows(int code) {
    return code >= 0 && code < byCode.length && byCode[code] != null;
  }

  /** Writes {@code value}'s fields (not its code) through the shape of {@code code}. */
  @SuppressWarnings("unchecked")
  public void write(ByteWriter w, int code, T value) {
    Shape<?> shape = knows(code) ? byCode[code] : null;
    if (shape == null || shape.type() != value.getClass()) {
      throw new IllegalStateException(
          family + " code " + code + " has no shape for " + value.getClass().getName());
    }
    ((Shape<Record>) shape).write(w, (Record) value);
  }

  /**
   * Reads the fields of the member with {@code code}; an unknown code is the reader's failure,
   * "unknown {@code what} code n".
   */
  @SuppressWarnings("unchecked")
  public T read(ByteReader r, int code, String what) {
    if (!knows(code)) {
      throw r.fail("unknown " + what + " code " + code);
    }
    return (T) byCode[code].read(r);
  }
}
