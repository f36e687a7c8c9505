package dev.ration.server.endpoint;

import dev.ration.wire.Outcome;
import dev.ration.client.protocol.TtlRequest;
import dev.ration.client.protocol.TtlResponse;
import dev.ration.server.endpoint.Translation.Action;
import dev.ration.server.endpoint.Translation.Invalid;
import dev.ration.server.endpoint.Translation.Mutation;
import dev.ration.server.endpoint.Translation.Read;
import dev.ration.statemachine.command.CompareAndSetEntry;
import dev.ration.statemachine.command.DeleteEntry;
import dev.ration.statemachine.command.PutEntry;
import dev.ration.statemachine.command.RefreshEntry;
import dev.ration.statemachine.command.SetNamespace;
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

/**
 * TTL requests (kinds 0x20–0x2F) to state-machine commands and queries, and answers back.
 * Checks here are a courtesy (an obviously bad request never takes a log slot); the TTL
 * ledger re-validates everything it applies. Stateless.
 */
final class TtlTranslation {
  private TtlTranslation() {}

  static Action toAction(TtlRequest request) {
    if (request instanceof TtlRequest.Put r) {
      String p = problem(r.namespace(), r.key(), r.ttlMillis(), 0);
      return p != null ? new Invalid(p)
          : new Mutation(new PutEntry(r.namespace(), r.key(), new Bytes(r.value()), r.ttlMillis()));
    } else if (request instanceof TtlRequest.CompareAndSet r) {
      String p = problem(r.namespace(), r.key(), r.ttlMillis(), r.expectedVersion());
      return p != null ? new Invalid(p)
          : new Mutation(new CompareAndSetEntry(r.namespace(), r.key(), r.expectedVersion(),
              new Bytes(r.value()), r.ttlMillis()));
    } else if (request instanceof TtlRequest.Refresh r) {
      String p = problem(r.namespace(), r.key(), r.ttlMillis(), r.expectedVersion());
      return p != null ? new Invalid(p)
          : new Mutation(SameFields.copy(r, RefreshEntry.class));
    } else if (request instanceof TtlRequest.Delete r) {
      String p = problem(r.namespace(), r.key(), 0, r.expectedVersion());
      return p != null ? new Invalid(p)
          : new Mutation(new DeleteEntry(r.namespace(), r.key(), r.expectedVersion()));
    } else if (request instanceof TtlRequest.Get r) {
      String p = problem(r.namespace(), r.key(), 0, 0);
      return p != null ? new Invalid(p) : new Read(new Query.GetEntry(r.namespace(), r.key()), r.stale());
    } else if (request instanceof TtlRequest.List r) {
      if (r.prefix().length() > TtlLedger.MAX_KEY_BYTES) {
        return new Invalid("prefix longer than " + TtlLedger.MAX_KEY_BYTES + " bytes");
      }
      if (r.limit() < 1 || r.limit() > TtlLedger.MAX_LIST_LIMIT) {
        return new Invalid("limit " + r.limit() + " outside [1, " + TtlLedger.MAX_LIST_LIMIT + "]");
      }
      return new Read(new Query.ListEntries(r.namespace(), r.prefix(), r.limit()), r.stale());
    } else if (request instanceof TtlRequest.SetNamespace r) {
      if (r.policy() == null) {
        return new Invalid("policy is not set");
      }
      return new Mutation(
          new SetNamespace(r.namespace(), r.maxEntries(), r.maxBytes(), r.policy()));
    } else if (request instanceof TtlRequest.GetNamespaces r) {
      return new Read(r.namespace().isEmpty() ? new Query.ListNamespaces()
          : new Query.GetNamespace(r.namespace()), r.stale());
    }
    return new Invalid("ttl request " + request.kind() + " is not served here");
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

  /** The reply to a TTL mutation whose replicated result is {@code result}. */
  static TtlResponse toResponse(TtlRequest request, Result result) {
    if (result instanceof Result.Rejected rej) {
      Outcome outcome = Translation.wireOutcome(rej.outcome());
      return switch (request.kind()) {
        case TTL_DELETE -> new TtlResponse.DeleteReply(outcome, rej.message(),
            rej.currentVersion(), 0, false);
        case TTL_NAMESPACE_SET -> new TtlResponse.NamespaceReply(outcome, rej.message(), null);
        default -> new TtlResponse.WriteReply(outcome, rej.message(), rej.currentVersion(), 0, 0);
      };
    }
    if (result instanceof Result.EntryWritten w) {
      return new TtlResponse.WriteReply(Outcome.SUCCESS, "", w.version(), w.version(),
          w.expiresAtMillis());
    }
    if (result instanceof Result.EntryDeleted d) {
      return new TtlResponse.DeleteReply(Outcome.SUCCESS, "", d.version(), d.version(), d.existed());
    }
    if (result instanceof Result.NamespaceSet n) {
      return new TtlResponse.NamespaceReply(Outcome.SUCCESS, "", n.namespace());
    }
    throw new IllegalStateException("ttl request " + request.kind() + " answered by " + result);
  }

  /** The reply to a TTL read; null if {@code result} is not a TTL answer. */
  static TtlResponse toResponse(QueryResult result) {
    if (result instanceof QueryResult.EntryAnswer a) {
      return a.entry().map(e -> new TtlResponse.GetReply(true, entryInfo(e), a.readAtMillis()))
          .orElseGet(() -> new TtlResponse.GetReply(false, null, a.readAtMillis()));
    }
    if (result instanceof QueryResult.EntryList l) {
      List<TtlResponse.EntryInfo> out = new ArrayList<>(l.entries().size());
      for (EntryView e : l.entries()) {
        out.add(entryInfo(e));
      }
      return new TtlResponse.ListReply(out, l.truncated(), l.readAtMillis());
    }
    if (result instanceof QueryResult.NamespaceAnswer a) {
      return new TtlResponse.NamespaceList(a.namespace().map(n -> List.of(n))
          .orElse(List.of()));
    }
    if (result instanceof QueryResult.NamespaceList l) {
      return new TtlResponse.NamespaceList(l.namespaces());
    }
    return null;
  }

  static TtlResponse.EntryInfo entryInfo(EntryView e) {
    return new TtlResponse.EntryInfo(e.namespace(), e.key(), e.value().array(), e.version(),
        e.expiresAtMillis());
  }
}
