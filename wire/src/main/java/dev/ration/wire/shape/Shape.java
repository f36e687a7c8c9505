package dev.ration.wire.shape;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;

/**
 * The encoding of one record, declared once as its ordered field list and used both to write
 * and to read. Each {@link Field} names a record component, reads it through a typed accessor
 * when writing, and reads its bytes back when decoding; the decoded values are handed to the
 * record's canonical constructor, found once through reflection and cached. (On Java 17 a
 * cached {@link Constructor} outruns a spread method handle held in a field: after a few calls
 * it is a generated accessor that unboxes in bytecode.)
 *
 * <p>Declaring the fields in any order other than the record's components, or under other
 * names, fails when the shape is built, so a shape cannot silently disagree with its record.
 * A format older than its record may keep another order: {@link #reordered} takes the fields in
 * the format's order and matches them to the components by name, still one field each.
 * Field paths in errors are fixed when the shape is built ({@code limit.tenant} for a nested
 * struct), so decoding builds no strings unless it fails. Immutable and thread-safe.
 *
 * <pre>{@code
 * static final Shape<RenewLease> RENEW = Shape.of(RenewLease.class,
 *     Fields.i64("leaseId", RenewLease::leaseId),
 *     Fields.i64("presentedVersion", RenewLease::presentedVersion), ...);
 * RENEW.write(writer, renew);              // the fields, in order
 * RenewLease back = RENEW.read(reader);    // the same fields, same order
 * }</pre>
 */
public final class Shape<T extends Record> {
  private final Class<T> type;
  private final Field<T>[] fields;
  /** The component each field fills, in field order; null when they are in component order. */
  private final int[] slots;
  private final Constructor<T> constructor;
  private final int minBytes;

  private Shape(Class<T> type, Field<T>[] fields, int[] slots, Constructor<T> constructor) {
    this.type = type;
    this.fields = fields;
    this.slots = slots;
    this.constructor = constructor;
    int min = 0;
    for (Field<T> f : fields) {
      min += f.minBytes();
    }
    this.minBytes = min;
  }

  /** The shape of {@code type}: one field per record component, in component order. */
  @SafeVarargs
  public static <T extends Record> Shape<T> of(Class<T> type, Field<T>... fields) {
    return build(type, fields, false);
  }

  /**
   * The shape of {@code type} whose fields are written and read in the order given, which is
   * not the components' order: each field is matched to the component of its name.
   */
  @SafeVarargs
  public static <T extends Record> Shape<T> reordered(Class<T> type, Field<T>... fields) {
    return build(type, fields, true);
  }

  private static <T extends Record> Shape<T> build(
      Class<T> type, Field<T>[] fields, boolean reordered) {
    RecordComponent[] components = type.getRecordComponents();
    if (components == null || components.length != fields.length) {
      throw new IllegalArgumentException(
          type.getName() + " has " + (components == null ? 0 : components.length)
              + " components, shape declares " + fields.length);
    }
    Class<?>[] types = new Class<?>[components.length];
    java.util.List<String> names =
        Arrays.stream(components).map(RecordComponent::getName).toList();
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
    }
    int[] slots = new int[fields.length];
    boolean[] taken = new boolean[fields.length];
    for (int i = 0; i < fields.length; i++) {
      int slot = reordered ? names.indexOf(fields[i].name()) : i;
      if (slot < 0 || !names.get(slot).equals(fields[i].name()) || taken[slot]) {
        throw new IllegalArgumentException(
            type.getName() + " component " + i + " is " + names.get(i)
                + ", shape declares " + fields[i].name());
      }
      taken[slot] = true;
      slots[i] = slot;
    }
    Field<T>[] bound = fields.clone();
    for (int i = 0; i < bound.length; i++) {
      bound[i] = bound[i].bind(names);
    }
    try {
      return new Shape<>(type, bound, reordered ? slots : null, type.getConstructor(types));
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(type.getName() + " has no public canonical constructor", e);
    }
  }

  /**
   * This shape without the component {@code name} in its bytes: it is neither written nor read,
   * and reads as {@code readAs}. For a message that carries a value minus what its receiver
   * fills in itself (a proposal the ledger stamps with its own time).
   */
  public Shape<T> omitting(String name, Object readAs) {
    Field<T>[] kept = fields.clone();
    java.util.List<String> names =
        Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
    for (int i = 0; i < kept.length; i++) {
      if (kept[i].name().equals(name)) {
        kept[i] = Fields.<T>absent(name, readAs).bind(names);
        return new Shape<>(type, kept, slots, constructor);
      }
    }
    throw new IllegalArgumentException(type.getName() + " has no component " + name);
  }

  public Class<T> type() {
    return type;
  }

  /** The fewest bytes one value can take: bounds a declared list count before allocating. */
  public int minBytes() {
    return minBytes;
  }

  public void write(ByteWriter w, T value) {
    for (Field<T> f : fields) {
      f.write(w, value);
    }
  }

  public T read(ByteReader r) {
    Field<T>[] fs = fields;
    Object[] args = new Object[fs.length];
    int[] to = slots;
    if (to == null) {
      for (int i = 0; i < args.length; i++) {
        args[i] = fs[i].read(r, args);
      }
    } else {
      for (int i = 0; i < args.length; i++) {
        args[to[i]] = fs[i].read(r, args);
      }
    }
    try {
      return constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof IllegalArgumentException invalid) {
        // Fields that decode one by one but that the record refuses together (a renewal that
        // succeeded without its lease): the bytes are malformed, in the reader's own failure.
        throw r.fail(type.getSimpleName() + ": " + invalid.getMessage());
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(type.getName() + " constructor failed", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(type.getName() + " constructor failed", e);
    }
  }

  /** This shape with every field path under {@code prefix} (a nested struct or list item). */
  Shape<T> under(String prefix) {
    @SuppressWarnings("unchecked")
    Field<T>[] moved = Arrays.stream(fields).map(f -> f.under(prefix)).toArray(Field[]::new);
    return new Shape<>(type, moved, slots, constructor);
  }
}
