package dev.ration.protocol;

import static dev.ration.wire.shape.Fields.bool;
import static dev.ration.wire.shape.Fields.bytes;
import static dev.ration.wire.shape.Fields.code;
import static dev.ration.wire.shape.Fields.i32;
import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.list;
import static dev.ration.wire.shape.Fields.optional;
import static dev.ration.wire.shape.Fields.presentIf;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Outcome;
import dev.ration.wire.shape.Shape;
import dev.ration.wire.ChangeKind;
import dev.ration.wire.ttl.NamespaceView;

/**
 * The reply shapes of the TTL kinds (0x20–0x2F): each field list is written once here and
 * serves both directions; the requests declare theirs next to their records in
 * {@link TtlRequest}. Values are at most {@link #VALUE_BYTES_MAX} bytes. The order is the wire
 * order, pinned by the golden tests and listed in docs/PROTOCOL.md.
 */
final class TtlMessages {
  /** The state machine refuses values above 64 KiB; the codec refuses anything larger still. */
  static final int VALUE_BYTES_MAX = 65_536;

  private TtlMessages() {}

  static final Shape<TtlResponse.EntryInfo> ENTRY =
      Shape.of(
          TtlResponse.EntryInfo.class,
          str("namespace", TtlResponse.EntryInfo::namespace),
          str("key", TtlResponse.EntryInfo::key),
          bytes("value", TtlResponse.EntryInfo::value, VALUE_BYTES_MAX),
          i64("version", TtlResponse.EntryInfo::version),
          i64("expiresAtMillis", TtlResponse.EntryInfo::expiresAtMillis));

  static final Shape<NamespaceView> NAMESPACE = NamespaceView.SHAPE;

  static final Shape<TtlResponse.WriteReply> WRITE_REPLY =
      Shape.of(
          TtlResponse.WriteReply.class,
          code("outcome", TtlResponse.WriteReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", TtlResponse.WriteReply::message),
          i64("currentVersion", TtlResponse.WriteReply::currentVersion),
          i64("version", TtlResponse.WriteReply::version),
          i64("expiresAtMillis", TtlResponse.WriteReply::expiresAtMillis));

  static final Shape<TtlResponse.DeleteReply> DELETE_REPLY =
      Shape.of(
          TtlResponse.DeleteReply.class,
          code("outcome", TtlResponse.DeleteReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", TtlResponse.DeleteReply::message),
          i64("currentVersion", TtlResponse.DeleteReply::currentVersion),
          i64("version", TtlResponse.DeleteReply::version),
          bool("existed", TtlResponse.DeleteReply::existed));

  /** {@code found} doubles as the entry's presence byte. */
  static final Shape<TtlResponse.GetReply> GET_REPLY =
      Shape.of(
          TtlResponse.GetReply.class,
          bool("found", TtlResponse.GetReply::found),
          presentIf("entry", TtlResponse.GetReply::entry, ENTRY, "found"),
          i64("readAtMillis", TtlResponse.GetReply::readAtMillis));

  static final Shape<TtlResponse.ListReply> LIST_REPLY =
      Shape.of(
          TtlResponse.ListReply.class,
          list("entries", TtlResponse.ListReply::entries, ENTRY),
          bool("truncated", TtlResponse.ListReply::truncated),
          i64("readAtMillis", TtlResponse.ListReply::readAtMillis));

  static final Shape<TtlResponse.NamespaceReply> NAMESPACE_REPLY =
      Shape.of(
          TtlResponse.NamespaceReply.class,
          code("outcome", TtlResponse.NamespaceReply::outcome, Outcome::fromCode, Outcome::code),
          str("message", TtlResponse.NamespaceReply::message),
          optional("namespace", TtlResponse.NamespaceReply::namespace, NAMESPACE));

  static final Shape<TtlResponse.NamespaceList> NAMESPACE_LIST =
      Shape.of(
          TtlResponse.NamespaceList.class,
          list("namespaces", TtlResponse.NamespaceList::namespaces, NAMESPACE));

  static final Shape<TtlResponse.ChangeInfo> CHANGE =
      Shape.of(
          TtlResponse.ChangeInfo.class,
          i64("index", TtlResponse.ChangeInfo::index),
          code("kind", TtlResponse.ChangeInfo::kind, ChangeKind::fromCode, ChangeKind::code),
          str("key", TtlResponse.ChangeInfo::key),
          i64("version", TtlResponse.ChangeInfo::version),
          i64("expiresAtMillis", TtlResponse.ChangeInfo::expiresAtMillis),
          bytes("value", TtlResponse.ChangeInfo::value, VALUE_BYTES_MAX));

  static final Shape<TtlResponse.WatchReply> WATCH_REPLY =
      Shape.of(
          TtlResponse.WatchReply.class,
          list("changes", TtlResponse.WatchReply::changes, CHANGE),
          i64("throughIndex", TtlResponse.WatchReply::throughIndex),
          bool("compacted", TtlResponse.WatchReply::compacted),
          bool("truncated", TtlResponse.WatchReply::truncated),
          list("entries", TtlResponse.WatchReply::entries, ENTRY),
          i64("readAtMillis", TtlResponse.WatchReply::readAtMillis),
          bool("confirmed", TtlResponse.WatchReply::confirmed));
}
