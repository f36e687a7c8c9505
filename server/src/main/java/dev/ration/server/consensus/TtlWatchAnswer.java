package dev.ration.server.consensus;

import dev.ration.statemachine.query.EntryView;
import java.util.List;

/**
 * What a TTL watch poll found, read under one lock after a ReadIndex: the namespace's changes
 * with index in (from, {@code throughIndex}], the asked-for keys' live entries as of
 * {@code throughIndex} (none when {@code truncated}), and the ledger time they were judged at.
 */
public record TtlWatchAnswer(List<TtlChangeLog.Indexed> changes, long throughIndex,
    boolean compacted, boolean truncated, List<EntryView> entries, long readAtMillis) {}
