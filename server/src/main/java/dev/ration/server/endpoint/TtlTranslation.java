package dev.ration.server.endpoint;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Kind;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlResponse;
import dev.ration.server.consensus.TtlChangeLog;
import dev.ration.server.consensus.TtlWatchAnswer;
import dev.ration.statemachine.ttl.TtlChange;
import dev.ration.server.endpoint.Translation.Action;
import dev.ration.server.endpoint.Translation.Invalid;
import dev.ration.server.endpoint.Translation.Mutation;
import dev.ration.server.endpoint.Translation.Read;
import dev.ration.statemachine.command.TtlCommand.CompareAndSetEntry;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand.UpdateEntry;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import dev.ration.wire.CapacityPolicy;
import dev.ration.statemachine.query.EntryView;
import dev.ration.wire.ttl.NamespaceView;
import dev.ration.statemachine.ttl.TtlLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * TTL requests (kinds 0x20–0x2F) to state-machine commands and queries, and answers back.
 * Checks here are a courtesy (an obviously bad request never takes a log slot); the TTL
 * ledger re-validates everything it applies. Stateless.
 */
final class TtlTranslation {
  private TtlTranslation() {}

  /**
   * The TTL kinds' handlers. TTL_REFRESH has none: its request carries exactly the components of
   * {@link dev.ration.statemachine.command.TtlCommand.RefreshEntry}, so the endpoint copies one
   * into the other and the ledger's checks answer a bad value.
   */
  static void register(Operations ops) {
    ops.on(Kind.TTL_PUT, TtlRequest.Put.class, r -> checked(
            problem(r.namespace(), r.key(), r.ttlMillis(), 0),
            () -> new PutEntry(r.namespace(), r.key(), new Bytes(r.value()), r.ttlMillis())))
        .on(Kind.TTL_CAS, TtlRequest.CompareAndSet.class, r -> checked(
            problem(r.namespace(), r.key(), r.ttlMillis(), r.expectedVersion()),
            () -> new CompareAndSetEntry(r.namespace(), r.key(), r.expectedVersion(),
                new Bytes(r.value()), r.ttlMillis())))
        .on(Kind.TTL_UPDATE, TtlRequest.Update.class, r -> checked(
            problem(r.namespace(), r.key(), 0, r.expectedVersion()),
            () -> new UpdateEntry(r.namespace(), r.key(), new Bytes(r.value()),
                r.expectedVersion())))
        .on(Kind.TTL_DELETE, TtlRequest.Delete.class, r -> checked(
            problem(r.namespace(), r.key(), 0, r.expectedVersion()),
            () -> SameFields.copy(r, DeleteEntry.class)))
        .on(Kind.TTL_GET, TtlRequest.Get.class, r -> {
          String p = problem(r.namespace(), r.key(), 0, 0);
          return p != null ? new Invalid(p)
              : new Read(new Query.GetEntry(r.namespace(), r.key()), r.stale());
        })
        .on(Kind.TTL_LIST, TtlRequest.List.class, TtlTranslation::list)
        .on(Kind.TTL_NAMESPACE_SET, TtlRequest.SetNamespace.class, r -> r.policy() == null
            ? new Invalid("policy is not set")
            : new Mutation(SameFields.copy(r, SetNamespace.class)))
        .on(Kind.TTL_NAMESPACE_GET, TtlRequest.GetNamespaces.class, r -> new Read(
            r.namespace().isEmpty() ? new Query.ListNamespaces()
                : new Query.GetNamespace(r.namespace()), r.stale()))
        .on(Kind.TTL_WATCH, TtlRequest.Watch.class, TtlTranslation::watch);
  }

  /** Most a watch poll may wait: a poll is a request, and requests have a maximum deadline. */
  static final long WATCH_WAIT_MAX_MILLIS = 60_000;

  private static Action watch(TtlRequest.Watch r) {
    if (r.namespace().isEmpty()) {
      return new Invalid("namespace is empty");
    }
    if (r.fromIndex() < -1) {
      return new Invalid("fromIndex " + r.fromIndex() + " < -1 (-1: from now)");
    }
    if (r.waitMillis() < 0 || r.waitMillis() > WATCH_WAIT_MAX_MILLIS) {
      return new Invalid("waitMillis " + r.waitMillis() + " outside [0, " + WATCH_WAIT_MAX_MILLIS + "]");
    }
    if (r.keys().size() > TtlRequest.Watch.MAX_KEYS) {
      return new Invalid(r.keys().size() + " keys, at most " + TtlRequest.Watch.MAX_KEYS);
    }
    List<String> keys = new ArrayList<>(r.keys().size());
    for (TtlRequest.WatchKey k : r.keys()) {
      String p = problem(r.namespace(), k.key(), 0, 0);
      if (p != null) {
        return new Invalid(p);
      }
      keys.add(k.key());
    }
    return new Translation.WatchTtl(r.namespace(), r.fromIndex(), r.waitMillis(), keys, r.confirm());
  }

  /** The reply to TTL_WATCH. */
  static Response toResponse(TtlWatchAnswer a) {
    List<TtlResponse.ChangeInfo> changes = new ArrayList<>(a.changes().size());
    for (TtlChangeLog.Indexed i : a.changes()) {
      TtlChange c = i.change();
      changes.add(new TtlResponse.ChangeInfo(i.index(), c.kind(), c.key(), c.version(),
          c.expiresAtMillis(), c.value().unsafeArray()));
    }
    List<TtlResponse.EntryInfo> entries = new ArrayList<>(a.entries().size());
    for (EntryView e : a.entries()) {
      entries.add(entryInfo(e));
    }
    return new Response.Ttl(new TtlResponse.WatchReply(changes, a.throughIndex(), a.compacted(),
        a.truncated(), entries, a.readAtMillis(), a.confirmed()));
  }

  private static Action checked(String problem, Supplier<Command> command) {
    return problem != null ? new Invalid(problem) : new Mutation(command.get());
  }

  private static Action list(TtlRequest.List r) {
    if (r.prefix().length() > TtlLedger.MAX_KEY_BYTES) {
      return new Invalid("prefix longer than " + TtlLedger.MAX_KEY_BYTES + " bytes");
    }
    if (r.limit() < 1 || r.limit() > TtlLedger.MAX_LIST_LIMIT) {
      return new Invalid("limit " + r.limit() + " outside [1, " + TtlLedger.MAX_LIST_LIMIT + "]");
    }
    return new Read(new Query.ListEntries(r.namespace(), r.prefix(), r.limit()), r.stale());
  }

  private static String problem(String namespace, String key, long ttlMillis, long expectedVersion) {
    if (namespace.isEmpty()) {
      return "namespace is empty";
    }
    if (key.isEmpty()) {
      return "key is empty";
    }
    if (ttlMillis < TtlLedger.NO_EXPIRY_TTL) {
      return "ttlMillis " + ttlMillis + " < 0 (use -1 for no expiry)";
    }
    if (expectedVersion < 0) {
      return "expectedVersion " + expectedVersion + " < 0";
    }
    return null;
  }

  /** The reply to TTL_GET. */
  static TtlResponse toResponse(QueryResult.EntryAnswer a) {
    return a.entry().map(e -> new TtlResponse.GetReply(true, entryInfo(e), a.readAtMillis()))
        .orElseGet(() -> new TtlResponse.GetReply(false, null, a.readAtMillis()));
  }

  /** The reply to TTL_LIST. */
  static TtlResponse toResponse(QueryResult.EntryList l) {
    List<TtlResponse.EntryInfo> out = new ArrayList<>(l.entries().size());
    for (EntryView e : l.entries()) {
      out.add(entryInfo(e));
    }
    return new TtlResponse.ListReply(out, l.truncated(), l.readAtMillis());
  }

  /** The reply to TTL_NAMESPACE_GET naming one namespace. */
  static TtlResponse toResponse(QueryResult.NamespaceAnswer a) {
    return new TtlResponse.NamespaceList(a.namespace().map(n -> List.of(n)).orElse(List.of()));
  }

  /** The reply to TTL_NAMESPACE_GET of every namespace. */
  static TtlResponse toResponse(QueryResult.NamespaceList l) {
    return new TtlResponse.NamespaceList(l.namespaces());
  }

  static TtlResponse.EntryInfo entryInfo(EntryView e) {
    return new TtlResponse.EntryInfo(e.namespace(), e.key(), e.value().array(), e.version(),
        e.expiresAtMillis());
  }
}
