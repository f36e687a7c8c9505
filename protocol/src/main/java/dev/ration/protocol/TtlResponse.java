package dev.ration.protocol;

import dev.ration.wire.ChangeKind;
import dev.ration.wire.Outcome;
import dev.ration.wire.ttl.NamespaceView;

/**
 * Replies to {@link TtlRequest}s, carried as {@link Response.Ttl}. Domain outcomes
 * (VERSION_MISMATCH, ENTRY_UNKNOWN, NAMESPACE_FULL, INVALID_ARGUMENT) travel inside OK
 * replies; {@code currentVersion} is set with VERSION_MISMATCH (0 = absent or expired).
 */
public sealed interface TtlResponse {

  /** A live entry. {@code expiresAtMillis} is ledger time; Long.MAX_VALUE = no expiry. */
  record EntryInfo(String namespace, String key, byte[] value, long version,
      long expiresAtMillis) {}

  /** Answer to TTL_PUT, TTL_CAS and TTL_REFRESH: on SUCCESS the entry's version and expiry. */
  record WriteReply(Outcome outcome, String message, long currentVersion, long version,
      long expiresAtMillis) implements TtlResponse, OutcomeReply {}

  /** Answer to TTL_DELETE: {@code existed} false when no live entry was there. */
  record DeleteReply(Outcome outcome, String message, long currentVersion, long version,
      boolean existed) implements TtlResponse, OutcomeReply {}

  /**
   * Answer to TTL_GET. {@code readAtMillis} is the ledger time the read was judged at
   * (max(state now, the leader's log time)); remaining TTL = expiresAt − readAt.
   */
  record GetReply(boolean found, EntryInfo entry, long readAtMillis) implements TtlResponse {}

  /** Answer to TTL_LIST; {@code truncated}: more matched than were returned. */
  record ListReply(java.util.List<EntryInfo> entries, boolean truncated, long readAtMillis)
      implements TtlResponse {}

  /** Answer to TTL_NAMESPACE_SET: on SUCCESS the namespace as now configured. */
  record NamespaceReply(Outcome outcome, String message, NamespaceView namespace)
      implements TtlResponse, OutcomeReply {}

  /** Answer to TTL_NAMESPACE_GET. */
  record NamespaceList(java.util.List<NamespaceView> namespaces) implements TtlResponse {}

  /**
   * One change a watch reports: the log index of the entry that made it, what happened, and the
   * entry after it (a removal names the version removed and carries no value).
   */
  record ChangeInfo(long index, ChangeKind kind, String key, long version, long expiresAtMillis,
      byte[] value) {}

  /**
   * Answer to TTL_WATCH: the namespace's changes with index in (fromIndex, throughIndex], in
   * order, and the asked-for keys' live entries as of {@code throughIndex} (absent ones are not
   * listed; none when {@code truncated}, i.e. more changes wait and {@code throughIndex} is below
   * the applied index). {@code compacted}: the changes after fromIndex are no longer held; the
   * watcher drops what it cached and continues from {@code throughIndex}. {@code readAtMillis}
   * is the ledger time the entries were judged at. {@code confirmed}: a ReadIndex preceded the
   * answer, so it covers every change committed before the request was sent.
   */
  record WatchReply(java.util.List<ChangeInfo> changes, long throughIndex, boolean compacted,
      boolean truncated, java.util.List<EntryInfo> entries, long readAtMillis, boolean confirmed)
      implements TtlResponse {}
}
