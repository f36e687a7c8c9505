package dev.ration.server.consensus;

import dev.ration.statemachine.query.EntryView;
import java.util.List;

/**
 * What a TTL watch poll found, read under one lock after a ReadIndex: the namespace's changes
 * with index in (from, {@code throughIndex}], the asked-for keys' live entries as of
 * {@code throughIndex} (none when {@code truncated}), the ledger time they were judged at, and
 * whether a ReadIndex confirmed it (then it covers every change committed before the poll).
 */
public record TtlWatchAnswer(List<TtlChangeLog.Indexed> changes, long throughIndex,
    boolean compacted, boolean truncated, List<EntryView> entries, long readAtMillis,
    boolean confirmed) {}
