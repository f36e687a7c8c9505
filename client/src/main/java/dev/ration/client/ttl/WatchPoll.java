package dev.ration.client.ttl;

import java.util.List;

/**
 * One answered watch poll, as the watch and the near cache use it: the namespace's changes in
 * ({@code fromIndex}, {@code throughIndex}], and the asked-for keys' live entries as of
 * {@code throughIndex} (a key not listed was absent), unless {@code truncated}.
 * {@code sentNanos}: the client clock when the poll was sent; when {@code confirmed} (and not
 * truncated) every change committed before then is at or below {@code throughIndex}.
 */
record WatchPoll(long fromIndex, List<Change> changes, long throughIndex, boolean compacted,
    boolean truncated, List<Entry> entries, long readAtMillis, long sentNanos, boolean confirmed) {}
