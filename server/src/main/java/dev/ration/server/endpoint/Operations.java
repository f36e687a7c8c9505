package dev.ration.server.endpoint;

import dev.ration.protocol.Kind;
import dev.ration.protocol.Request;
import dev.ration.server.endpoint.Translation.Action;
import dev.ration.server.endpoint.Translation.Mutation;
import dev.ration.statemachine.command.Command;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One handler per operation kind: what the endpoint does with a decoded request of that kind.
 * Each family registers its handlers ({@link Translation} for limits, leases and status,
 * {@link TtlTranslation}, {@link QuotaTranslation}); a mutation whose request record carries the
 * same components as exactly one state-machine command needs no handler of its own — its request
 * is copied into that command ({@link SameFields}), and the ledger's own checks answer a bad
 * value. The table is complete or the node does not start: a kind with no handler, or a kind
 * registered twice, is an {@link IllegalStateException} naming it. Immutable once built.
 */
final class Operations {
  private final Map<Kind, Function<Request, Action>> handlers = new EnumMap<>(Kind.class);
  private final Map<Kind, Class<? extends Command>> derived = new EnumMap<>(Kind.class);

  /**
   * Registers the handler of {@code kind}, whose request body is a {@code type} (for TTL and
   * quota kinds, the record inside {@link Request.Ttl} or {@link Request.Quota}).
   */
  <Q> Operations on(Kind kind, Class<Q> type, Function<Q, Action> handler) {
    if (handlers.containsKey(kind)) {
      throw new IllegalStateException("two handlers for " + kind);
    }
    if (kind.requestType() != type) {
      throw new IllegalStateException(kind + " carries " + kind.requestType().getName()
          + ", its handler takes " + type.getName());
    }
    handlers.put(kind, request -> handler.apply(type.cast(body(request))));
    return this;
  }

  /**
   * Completes the table: every mutation kind without a handler gets the copy into its one
   * same-component command; any kind still without a handler fails the start.
   */
  Operations complete() {
    List<Class<? extends Command>> commands = new ArrayList<>();
    collect(Command.class, commands);
    List<String> missing = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      if (handlers.containsKey(kind)) {
        continue;
      }
      List<Class<? extends Command>> same = kind.mutation()
          ? commands.stream().filter(c -> sameComponents(kind.requestType(), c)).toList()
          : List.of();
      if (same.size() == 1) {
        Class<? extends Command> command = same.get(0);
        derived.put(kind, command);
        handlers.put(kind, request -> new Mutation(SameFields.copy((Record) body(request), command)));
      } else {
        missing.add(kind + (same.isEmpty() ? "" : " (same components as " + same + ")"));
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("no endpoint handler for " + missing
          + ": register one, or give the request the components of exactly one command");
    }
    return this;
  }

  Action act(Request request) {
    Function<Request, Action> handler = handlers.get(request.kind());
    if (handler == null) {
      return new Translation.Invalid("request kind " + request.kind() + " is not served here");
    }
    return handler.apply(request);
  }

  /** The kinds served by copying into a same-component command, and that command. */
  Map<Kind, Class<? extends Command>> derived() {
    return Map.copyOf(derived);
  }

  private static Object body(Request request) {
    if (request instanceof Request.Ttl t) {
      return t.request();
    }
    if (request instanceof Request.Quota q) {
      return q.request();
    }
    return request;
  }

  @SuppressWarnings("unchecked")
  private static void collect(Class<?> type, List<Class<? extends Command>> into) {
    if (type.isRecord()) {
      into.add((Class<? extends Command>) type);
    }
    Class<?>[] permitted = type.getPermittedSubclasses();
    if (permitted != null) {
      for (Class<?> sub : permitted) {
        collect(sub, into);
      }
    }
  }

  private static boolean sameComponents(Class<?> request, Class<?> command) {
    RecordComponent[] a = request.getRecordComponents();
    RecordComponent[] b = command.getRecordComponents();
    if (a == null || b == null || a.length != b.length) {
      return false;
    }
    return Arrays.equals(signature(a), signature(b));
  }

  private static String[] signature(RecordComponent[] components) {
    return Arrays.stream(components)
        .map(c -> c.getGenericType().getTypeName() + " " + c.getName())
        .toArray(String[]::new);
  }
}
