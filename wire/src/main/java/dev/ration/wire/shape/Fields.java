package dev.ration.wire.shape;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.Bytes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The field descriptors a {@link Shape} is declared with. Big-endian throughout: i64, i32, u8,
 * bool as u8 0/1, str as u16 length + strict UTF-8 (null written as empty), bytes as u32 length
 * + bytes, enumerations as their explicit one-byte code, lists as u32 count + items, and a
 * struct that may be absent as u8 present + struct. The log and store formats predate the
 * protocol and count lists in u16 and prefix a {@link Bytes} value with an i32 length; their
 * fields ({@link #list16}, {@link #longs16}, {@link #value}) say so in their names. Writing a value the encoding cannot hold
 * (a missing enumeration, an over-long string) is an {@link IllegalArgumentException} naming the
 * field; reading one that does not decode is the reader's failure naming the field.
 */
public final class Fields {
  private Fields() {}

  /** Writes one component of the record to the writer, reporting {@code path} on failure. */
  private interface Put<T> {
    void put(ByteWriter w, String path, T record);
  }

  /** Reads one component back, reporting {@code path} on failure. */
  private interface Get {
    Object get(ByteReader r, String path);
  }

  /** A field of fixed meaning: the path is its only state besides the two halves. */
  private record Leaf<T>(String name, String path, int minBytes, Put<T> put, Get get)
      implements Field<T> {
    @Override
    public void write(ByteWriter w, T record) {
      put.put(w, path, record);
    }

    @Override
    public Object read(ByteReader r) {
      return get.get(r, path);
    }

    @Override
    public Field<T> under(String prefix) {
      return new Leaf<>(name, prefix + "." + path, minBytes, put, get);
    }
  }

  public static <T> Field<T> i64(String name, ToLongFunction<T> get) {
    return new I64<>(name, name, get);
  }

  /** The commonest field gets its own class: one indirection fewer on the hot messages. */
  private record I64<T>(String name, String path, ToLongFunction<T> get) implements Field<T> {
    @Override
    public int minBytes() {
      return 8;
    }

    @Override
    public void write(ByteWriter w, T record) {
      w.i64(get.applyAsLong(record));
    }

    @Override
    public Object read(ByteReader r) {
      return r.i64(path);
    }

    @Override
    public Field<T> under(String prefix) {
      return new I64<>(name, prefix + "." + path, get);
    }
  }

  public static <T> Field<T> i32(String name, ToIntFunction<T> get) {
    return new Leaf<>(name, name, 4, (w, p, t) -> w.i32(get.applyAsInt(t)), ByteReader::i32);
  }

  /** An unsigned byte that is a number, not a code (a protocol version). */
  public static <T> Field<T> u8(String name, ToIntFunction<T> get) {
    return new Leaf<>(name, name, 1, (w, p, t) -> w.u8(p, get.applyAsInt(t)), ByteReader::u8);
  }

  public static <T> Field<T> bool(String name, Predicate<T> get) {
    return new Leaf<>(name, name, 1, (w, p, t) -> w.bool(get.test(t)), ByteReader::bool);
  }

  public static <T> Field<T> str(String name, Function<T, String> get) {
    return new Str<>(name, name, get);
  }

  private record Str<T>(String name, String path, Function<T, String> get) implements Field<T> {
    @Override
    public int minBytes() {
      return 2;
    }

    @Override
    public void write(ByteWriter w, T record) {
      w.str(path, get.apply(record));
    }

    @Override
    public Object read(ByteReader r) {
      return r.str(path);
    }

    @Override
    public Field<T> under(String prefix) {
      return new Str<>(name, prefix + "." + path, get);
    }
  }

  /** u32 length + bytes, at most {@code maxBytes} in either direction. */
  public static <T> Field<T> bytes(String name, Function<T, byte[]> get, int maxBytes) {
    return new Leaf<>(
        name,
        name,
        4,
        (w, p, t) -> {
          byte[] value = get.apply(t);
          if (value != null && value.length > maxBytes) {
            throw new IllegalArgumentException(
                p + " is " + value.length + " bytes, max " + maxBytes);
          }
          w.bytes(p, value);
        },
        (r, p) -> r.bytes(p, maxBytes));
  }

  /** An enumeration as its one-byte code; an unknown code does not decode. */
  public static <T, E> Field<T> code(
      String name, Function<T, E> get, IntFunction<E> fromCode, ToIntFunction<E> code) {
    return new Leaf<>(
        name,
        name,
        1,
        (w, p, t) -> {
          E value = get.apply(t);
          if (value == null) {
            throw new IllegalArgumentException(p + " is null");
          }
          w.u8(p, code.applyAsInt(value));
        },
        (r, p) -> decode(r, p, r.u8(p), fromCode));
  }

  /** An enumeration that may be absent, sent as code 0 (which no such enumeration uses). */
  public static <T, E> Field<T> optionalCode(
      String name, Function<T, E> get, IntFunction<E> fromCode, ToIntFunction<E> code) {
    return new Leaf<>(
        name,
        name,
        1,
        (w, p, t) -> {
          E value = get.apply(t);
          w.u8(p, value == null ? 0 : code.applyAsInt(value));
        },
        (r, p) -> {
          int c = r.u8(p);
          return c == 0 ? null : decode(r, p, c, fromCode);
        });
  }

  private static <E> E decode(ByteReader r, String path, int code, IntFunction<E> fromCode) {
    try {
      return fromCode.apply(code);
    } catch (IllegalArgumentException e) {
      throw r.fail(path, e.getMessage());
    }
  }

  /** A list of i64: u32 count + values. */
  public static <T> Field<T> longs(String name, Function<T, List<Long>> get) {
    return new Leaf<>(
        name,
        name,
        4,
        (w, p, t) -> {
          List<Long> values = get.apply(t);
          w.u32(p + ".count", values.size());
          for (long v : values) {
            w.i64(v);
          }
        },
        (r, p) -> {
          int n = r.count(p + ".count", 8);
          List<Long> out = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            out.add(r.i64(p));
          }
          return out;
        });
  }

  /** A list of i64 as the log stores it: u16 count + values. */
  public static <T> Field<T> longs16(String name, Function<T, List<Long>> get) {
    return new Leaf<>(
        name,
        name,
        2,
        (w, p, t) -> {
          List<Long> values = get.apply(t);
          w.u16(p + ".count", values.size());
          for (long v : values) {
            w.i64(v);
          }
        },
        (r, p) -> {
          int n = r.count16(p + ".count", 8);
          List<Long> out = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            out.add(r.i64(p));
          }
          return out;
        });
  }

  /**
   * A {@link Bytes} value as the log stores it: i32 length + bytes. The length is checked
   * against the bytes left before anything is allocated; a negative one does not decode.
   */
  public static <T> Field<T> value(String name, Function<T, Bytes> get) {
    return new Leaf<>(
        name,
        name,
        4,
        (w, p, t) -> {
          Bytes value = get.apply(t);
          if (value == null) {
            throw new IllegalArgumentException(p + " is null");
          }
          w.i32(value.length()).raw(value.unsafeArray());
        },
        (r, p) -> new Bytes(r.raw(r.i32(p + ".length"), p)));
  }

  /**
   * A component this encoding does not carry: nothing is written, and reading gives
   * {@code value}. For an older code of a record that has since grown a component (the code
   * without it keeps its bytes; a newer code carries it).
   */
  public static <T> Field<T> absent(String name, Object value) {
    return new Leaf<>(name, name, 0, (w, p, t) -> { }, (r, p) -> value);
  }

  /** A string (u16 length + UTF-8) that must not be empty, neither written nor read. */
  public static <T> Field<T> nonEmptyStr(String name, Function<T, String> get) {
    return new Leaf<>(
        name,
        name,
        3,
        (w, p, t) -> {
          String value = get.apply(t);
          if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(p + " is empty");
          }
          w.str(p, value);
        },
        (r, p) -> {
          String value = r.str(p);
          if (value.isEmpty()) {
            throw r.fail(p + " is empty");
          }
          return value;
        });
  }

  /** A nested record written flat, its fields in place (no presence byte). */
  public static <T, S extends Record> Field<T> struct(
      String name, Function<T, S> get, Shape<S> shape) {
    return nested(name, name, shape, Nesting.FLAT, get);
  }

  /** A nested record that may be absent: u8 present + struct; absent reads as null. */
  public static <T, S extends Record> Field<T> optional(
      String name, Function<T, S> get, Shape<S> shape) {
    return nested(name, name, shape, Nesting.NULLABLE, get);
  }

  /** As {@link #optional}, for a component typed {@link Optional}. */
  public static <T, S extends Record> Field<T> optionalOf(
      String name, Function<T, Optional<S>> get, Shape<S> shape) {
    return nested(name, name, shape, Nesting.OPTIONAL, get);
  }

  /**
   * A nested record present exactly when the earlier boolean component {@code flag} is true:
   * the flag is its presence byte, so nothing more is written for it.
   */
  public static <T, S extends Record> Field<T> presentIf(
      String name, Function<T, S> get, Shape<S> shape, String flag) {
    return new PresentIf<>(name, name, shape.under(name), get, flag, -1);
  }

  private record PresentIf<T, S extends Record>(
      String name, String path, Shape<S> shape, Function<T, S> get, String flag, int flagIndex)
      implements Field<T> {
    @Override
    public int minBytes() {
      return 0;
    }

    @Override
    public void write(ByteWriter w, T record) {
      S value = get.apply(record);
      if (value != null) {
        shape.write(w, value);
      }
    }

    @Override
    public Object read(ByteReader r) {
      throw new IllegalStateException(path + " is read only after its flag " + flag);
    }

    @Override
    public Object read(ByteReader r, Object[] earlier) {
      return Boolean.TRUE.equals(earlier[flagIndex]) ? shape.read(r) : null;
    }

    @Override
    public Field<T> bind(java.util.List<String> components) {
      int index = components.indexOf(flag);
      if (index < 0 || index >= components.indexOf(name)) {
        throw new IllegalArgumentException(flag + " is not a component before " + name);
      }
      return new PresentIf<>(name, path, shape, get, flag, index);
    }

    @Override
    public Field<T> under(String prefix) {
      return new PresentIf<>(name, prefix + "." + path, shape.under(prefix), get, flag, flagIndex);
    }
  }

  /** u32 count + items; the count is checked against the bytes left before allocating. */
  public static <T, S extends Record> Field<T> list(
      String name, Function<T, List<S>> get, Shape<S> shape) {
    return nested(name, name, shape, Nesting.LIST, get);
  }

  /** A list as the log stores it: u16 count + items, the count checked like {@link #list}'s. */
  public static <T, S extends Record> Field<T> list16(
      String name, Function<T, List<S>> get, Shape<S> shape) {
    return nested(name, name, shape, Nesting.LIST16, get);
  }

  private enum Nesting {
    FLAT,
    NULLABLE,
    OPTIONAL,
    LIST,
    LIST16
  }

  private static <T, S extends Record> Field<T> nested(
      String name, String path, Shape<S> shape, Nesting nesting, Function<T, ?> get) {
    return new Nested<>(name, path, shape.under(path), nesting, get);
  }

  private record Nested<T, S extends Record>(
      String name, String path, Shape<S> shape, Nesting nesting, Function<T, ?> get)
      implements Field<T> {

    @Override
    public int minBytes() {
      return switch (nesting) {
        case FLAT -> shape.minBytes();
        case NULLABLE, OPTIONAL -> 1;
        case LIST -> 4;
        case LIST16 -> 2;
      };
    }

    @Override
    @SuppressWarnings("unchecked")
    public void write(ByteWriter w, T record) {
      Object value = get.apply(record);
      switch (nesting) {
        case FLAT -> shape.write(w, shape.type().cast(value));
        case NULLABLE -> {
          w.bool(value != null);
          if (value != null) {
            shape.write(w, shape.type().cast(value));
          }
        }
        case OPTIONAL -> {
          Optional<S> o = (Optional<S>) value;
          w.bool(o.isPresent());
          o.ifPresent(s -> shape.write(w, s));
        }
        case LIST -> {
          List<S> items = value == null ? List.of() : (List<S>) value;
          w.u32(path + ".count", items.size());
          for (S item : items) {
            shape.write(w, item);
          }
        }
        case LIST16 -> {
          List<S> items = value == null ? List.of() : (List<S>) value;
          w.u16(path + ".count", items.size());
          for (S item : items) {
            shape.write(w, item);
          }
        }
      }
    }

    @Override
    public Object read(ByteReader r) {
      return switch (nesting) {
        case FLAT -> shape.read(r);
        case NULLABLE -> r.present(path) ? shape.read(r) : null;
        case OPTIONAL -> r.present(path) ? Optional.of(shape.read(r)) : Optional.empty();
        case LIST, LIST16 -> {
          int n =
              nesting == Nesting.LIST
                  ? r.count(path + ".count", shape.minBytes())
                  : r.count16(path + ".count", shape.minBytes());
          List<S> out = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            out.add(shape.read(r));
          }
          yield List.copyOf(out);
        }
      };
    }

    @Override
    public Field<T> under(String prefix) {
      return new Nested<>(name, prefix + "." + path, shape.under(prefix), nesting, get);
    }
  }
}
