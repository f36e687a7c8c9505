package dev.ration.server.endpoint;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The translation of a request whose wire record and state-machine command carry the same
 * fields: the same component names and types (type arguments included: a list of wire records
 * is not a list of commands), in the same order. The protocol and the state
 * machine never share a type, so such a request and its command are two records; this copies
 * one into the other so that the translation of the request is one line and cannot drop or swap
 * a field. The pairing is checked the first time it is used and cached; a mismatch is an
 * {@link IllegalStateException} naming the component. Thread-safe.
 */
final class SameFields {
  private static final Map<Class<?>, Map<Class<?>, Copy>> COPIES = new ConcurrentHashMap<>();

  private SameFields() {}

  /** A {@code to} made from the components of {@code from}, in order. */
  static <C> C copy(Record from, Class<C> to) {
    Copy copy =
        COPIES.computeIfAbsent(from.getClass(), k -> new ConcurrentHashMap<>())
            .computeIfAbsent(to, k -> Copy.between(from.getClass(), to));
    return to.cast(copy.apply(from));
  }

  private record Copy(Method[] accessors, Constructor<?> constructor) {
    static Copy between(Class<?> from, Class<?> to) {
      RecordComponent[] source = from.getRecordComponents();
      RecordComponent[] target = to.getRecordComponents();
      if (source.length != target.length) {
        throw new IllegalStateException(from.getName() + " has " + source.length
            + " components, " + to.getName() + " has " + target.length);
      }
      Method[] accessors = new Method[source.length];
      Class<?>[] types = new Class<?>[target.length];
      for (int i = 0; i < source.length; i++) {
        if (!source[i].getName().equals(target[i].getName())
            || !source[i].getGenericType().equals(target[i].getGenericType())) {
          throw new IllegalStateException(from.getName() + " component " + i + " is "
              + source[i].getGenericType().getTypeName() + " " + source[i].getName() + ", "
              + to.getName() + "'s is " + target[i].getGenericType().getTypeName() + " "
              + target[i].getName());
        }
        accessors[i] = source[i].getAccessor();
        types[i] = target[i].getType();
      }
      try {
        return new Copy(accessors, to.getConstructor(types));
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException(to.getName() + " has no public canonical constructor", e);
      }
    }

    Object apply(Record from) {
      Object[] args = new Object[accessors.length];
      try {
        for (int i = 0; i < args.length; i++) {
          args[i] = accessors[i].invoke(from);
        }
        return constructor.newInstance(args);
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof RuntimeException re) {
          throw re;
        }
        throw new IllegalStateException(e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
