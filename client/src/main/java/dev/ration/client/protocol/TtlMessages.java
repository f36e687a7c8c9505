package dev.ration.client.protocol;

import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Outcome;
import dev.ration.wire.ttl.NamespaceView;

import java.util.ArrayList;
import java.util.List;

/**
 * Bodies of the TTL kinds (0x20–0x2F); MessageCodec frames them (request: u32 timeoutMillis
 * first; response: u16 errorCode first) and delegates here. Big-endian; str = u16 length +
 * UTF-8; bytes = u32 length + bytes (value at most {@link #VALUE_BYTES_MAX}); list = u32 count
 * + items; optional = u8 present + struct. Field order is the record component order of
 * {@link TtlRequest} and {@link TtlResponse}, listed in docs/PROTOCOL.md; pinned by golden
 * tests. Stateless.
 */
final class TtlMessages {
  /** The state machine refuses values above 64 KiB; the codec refuses anything larger still. */
  static final int VALUE_BYTES_MAX = 65_536;

  private TtlMessages() {}

  static boolean isTtl(Kind kind) {
    return kind.code() >= 0x20 && kind.code() <= 0x2F;
  }

  // ---------------------------------------------------------------- requests

  static void encodeRequest(ByteWriter w, TtlRequest request) {
    if (request instanceof TtlRequest.Put p) {
      w.str("namespace", p.namespace()).str("key", p.key()).bytes("value", p.value())
          .i64(p.ttlMillis());
    } else if (request instanceof TtlRequest.CompareAndSet c) {
      w.str("namespace", c.namespace()).str("key", c.key()).i64(c.expectedVersion())
          .bytes("value", c.value()).i64(c.ttlMillis());
    } else if (request instanceof TtlRequest.Refresh r) {
      w.str("namespace", r.namespace()).str("key", r.key()).i64(r.ttlMillis())
          .i64(r.expectedVersion());
    } else if (request instanceof TtlRequest.Delete d) {
      w.str("namespace", d.namespace()).str("key", d.key()).i64(d.expectedVersion());
    } else if (request instanceof TtlRequest.Get g) {
      w.str("namespace", g.namespace()).str("key", g.key()).bool(g.stale());
    } else if (request instanceof TtlRequest.List l) {
      w.str("namespace", l.namespace()).str("prefix", l.prefix()).i32(l.limit())
          .bool(l.stale());
    } else if (request instanceof TtlRequest.SetNamespace s) {
      w.str("namespace", s.namespace()).i64(s.maxEntries()).i64(s.maxBytes())
          .u8("policy", MessageCodec.required("policy", s.policy()).code());
    } else if (request instanceof TtlRequest.GetNamespaces g) {
      w.str("namespace", g.namespace()).bool(g.stale());
    } else {
      throw new IllegalArgumentException("unknown ttl request " + request);
    }
  }

  static TtlRequest decodeRequest(Kind kind, ByteReader r) throws MalformedMessageException {
    return switch (kind) {
      case TTL_PUT -> new TtlRequest.Put(r.str("namespace"), r.str("key"),
          r.bytes("value", VALUE_BYTES_MAX), r.i64("ttlMillis"));
      case TTL_CAS -> new TtlRequest.CompareAndSet(r.str("namespace"), r.str("key"),
          r.i64("expectedVersion"), r.bytes("value", VALUE_BYTES_MAX), r.i64("ttlMillis"));
      case TTL_REFRESH -> new TtlRequest.Refresh(r.str("namespace"), r.str("key"),
          r.i64("ttlMillis"), r.i64("expectedVersion"));
      case TTL_DELETE -> new TtlRequest.Delete(r.str("namespace"), r.str("key"),
          r.i64("expectedVersion"));
      case TTL_GET -> new TtlRequest.Get(r.str("namespace"), r.str("key"), r.bool("stale"));
      case TTL_LIST -> new TtlRequest.List(r.str("namespace"), r.str("prefix"),
          r.i32("limit"), r.bool("stale"));
      case TTL_NAMESPACE_SET -> new TtlRequest.SetNamespace(r.str("namespace"),
          r.i64("maxEntries"), r.i64("maxBytes"), MessageCodec.code(r, "policy", CapacityPolicy::fromCode));
      case TTL_NAMESPACE_GET -> new TtlRequest.GetNamespaces(r.str("namespace"), r.bool("stale"));
      default -> throw new IllegalArgumentException("not a ttl kind " + kind);
    };
  }

  // ---------------------------------------------------------------- responses

  static void encodeResponse(ByteWriter w, TtlResponse response) {
    if (response instanceof TtlResponse.WriteReply x) {
      outcome(w, x.outcome());
      w.str("message", x.message()).i64(x.currentVersion()).i64(x.version())
          .i64(x.expiresAtMillis());
    } else if (response instanceof TtlResponse.DeleteReply x) {
      outcome(w, x.outcome());
      w.str("message", x.message()).i64(x.currentVersion()).i64(x.version())
          .bool(x.existed());
    } else if (response instanceof TtlResponse.GetReply x) {
      w.bool(x.found());
      if (x.found()) {
        entry(w, x.entry());
      }
      w.i64(x.readAtMillis());
    } else if (response instanceof TtlResponse.ListReply x) {
      w.u32("entries.count", x.entries().size());
      for (TtlResponse.EntryInfo e : x.entries()) {
        entry(w, e);
      }
      w.bool(x.truncated()).i64(x.readAtMillis());
    } else if (response instanceof TtlResponse.NamespaceReply x) {
      outcome(w, x.outcome());
      w.str("message", x.message()).bool(x.namespace() != null);
      if (x.namespace() != null) {
        namespace(w, x.namespace());
      }
    } else if (response instanceof TtlResponse.NamespaceList x) {
      w.u32("namespaces.count", x.namespaces().size());
      for (NamespaceView n : x.namespaces()) {
        namespace(w, n);
      }
    } else {
      throw new IllegalArgumentException("unknown ttl response " + response);
    }
  }

  static TtlResponse decodeResponse(Kind kind, ByteReader r) throws MalformedMessageException {
    return switch (kind) {
      case TTL_PUT, TTL_CAS, TTL_REFRESH -> new TtlResponse.WriteReply(outcome(r),
          r.str("message"), r.i64("currentVersion"), r.i64("version"),
          r.i64("expiresAtMillis"));
      case TTL_DELETE -> new TtlResponse.DeleteReply(outcome(r), r.str("message"),
          r.i64("currentVersion"), r.i64("version"), r.bool("existed"));
      case TTL_GET -> {
        boolean found = r.present("entry");
        TtlResponse.EntryInfo entry = found ? entry(r) : null;
        yield new TtlResponse.GetReply(found, entry, r.i64("readAtMillis"));
      }
      case TTL_LIST -> {
        // namespace, key (2 + 2), value length 4, version and expiry 16: at least 24 bytes each
        int n = r.count("entries.count", 24);
        List<TtlResponse.EntryInfo> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          entries.add(entry(r));
        }
        yield new TtlResponse.ListReply(List.copyOf(entries), r.bool("truncated"),
            r.i64("readAtMillis"));
      }
      case TTL_NAMESPACE_SET -> {
        Outcome outcome = outcome(r);
        String message = r.str("message");
        NamespaceView ns = r.present("namespace") ? namespace(r) : null;
        yield new TtlResponse.NamespaceReply(outcome, message, ns);
      }
      case TTL_NAMESPACE_GET -> {
        // name 2, five i64 counters and limits 40 + policy 1 + max fields 8: at least 51 bytes
        int n = r.count("namespaces.count", 51);
        List<NamespaceView> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          all.add(namespace(r));
        }
        yield new TtlResponse.NamespaceList(List.copyOf(all));
      }
      default -> throw new IllegalArgumentException("not a ttl kind " + kind);
    };
  }

  private static void outcome(ByteWriter w, Outcome o) {
    w.u8("outcome", o.code());
  }

  private static Outcome outcome(ByteReader r) throws MalformedMessageException {
    int code = r.u8("outcome");
    try {
      return Outcome.fromCode(code);
    } catch (IllegalArgumentException e) {
      throw new MalformedMessageException(r.what() + ".outcome", "unknown outcome " + code);
    }
  }

  private static void entry(ByteWriter w, TtlResponse.EntryInfo e) {
    w.str("namespace", e.namespace()).str("key", e.key()).bytes("value", e.value())
        .i64(e.version()).i64(e.expiresAtMillis());
  }

  private static TtlResponse.EntryInfo entry(ByteReader r) throws MalformedMessageException {
    return new TtlResponse.EntryInfo(r.str("namespace"), r.str("key"),
        r.bytes("value", VALUE_BYTES_MAX), r.i64("version"), r.i64("expiresAtMillis"));
  }

  private static void namespace(ByteWriter w, NamespaceView n) {
    w.str("name", n.name()).i64(n.maxEntries()).i64(n.maxBytes()).u8("policy", MessageCodec.required("policy", n.policy()).code())
        .i64(n.entries()).i64(n.bytes()).i64(n.evictedExpired()).i64(n.evictedCapacity());
  }

  private static NamespaceView namespace(ByteReader r) throws MalformedMessageException {
    return new NamespaceView(r.str("name"), r.i64("maxEntries"), r.i64("maxBytes"),
        MessageCodec.code(r, "policy", CapacityPolicy::fromCode), r.i64("entries"), r.i64("bytes"), r.i64("evictedExpired"),
        r.i64("evictedCapacity"));
  }
}
