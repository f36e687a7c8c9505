package dev.ration.statemachine.replica;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.command.Fingerprint;
import dev.ration.statemachine.command.RequestKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The replica's memory of answers: a client request's first result, stored under its request
 * key and returned to every retry until it expires, one retention after it was applied.
 *
 * <p>Records live only in the store, in {@link IdempotencyGeneration}s on the retention grid:
 * a record costs one write, and a generation is dropped whole (one range delete) by the first
 * entry after all its records expired, which bounds the disk at about a retention plus a
 * generation of records. Only the live generations and the record counter are in memory.
 *
 * <p>Thread: the single applying thread. Invariant I6 (idempotency part): every stored record
 * lies in a live generation that holds its expiry time, each generation's count is the number
 * of records stored in it, and the counter is their sum; checked by {@link #verify(long)}.
 */
final class Idempotency {
  private final LedgerStore store;
  private final long retentionMillis;
  /**
   * Stored records (expired ones too, until their generation is dropped) plus this entry's;
   * kept in meta, so Status need not count. Always the sum of the generations' counts.
   */
  private long records = 0;
  /** The live generations by start; disjoint, so also in end order. */
  private final TreeMap<Long, IdempotencyGeneration> generations = new TreeMap<>();

  Idempotency(LedgerStore store, long retentionMillis) {
    this.store = store;
    this.retentionMillis = retentionMillis;
  }

  /** The stored record count (expired records included until their generation goes). */
  long records() {
    return records;
  }

  /** At open: the counter from meta and the live generations from the store. */
  void restore(long records) {
    this.records = records;
    generations.clear();
    for (IdempotencyGeneration generation : store.idempotencyGenerations()) {
      generations.put(generation.start(), generation);
    }
  }

  /**
   * Keeps {@code encodedResult} as the answer to {@code key}, bound to the request it answers
   * ({@code fingerprint}), until one retention after now. {@code seen} is the key's newest
   * record before this request, if any (an expired one: a live one is answered, never replaced).
   */
  void record(RequestKey key, Optional<IdempotencyRecord> seen, Fingerprint fingerprint, int slot,
      byte[] encodedResult, long nowMillis, Changes changes) {
    long expiresAt = Millis.plus(nowMillis, retentionMillis);
    IdempotencyGeneration generation = generationFor(expiresAt);
    // An expired record of this key in the same generation (possible only after the retention
    // was lowered) is overwritten, not counted twice.
    boolean overwrite = seen.isPresent() && seen.get().generation() == generation.start();
    if (!overwrite) {
      generation = generation.plusOne();
      generations.put(generation.start(), generation);
      records++;
    }
    changes.putIdempotency(key, new IdempotencyRecord(generation.start(), expiresAt,
        Optional.of(fingerprint), slot, encodedResult),
        generation);
  }

  /**
   * Drops, whole, every generation whose records have all expired: one range delete each, in
   * the first entry whose time passes its end. Nothing observable changes (expired records are
   * no longer answered); this bounds the disk at about a retention plus a generation of records.
   */
  void dropExpired(long nowMillis, Changes changes) {
    while (!generations.isEmpty() && generations.firstEntry().getValue().expiredAt(nowMillis)) {
      IdempotencyGeneration dropped = generations.pollFirstEntry().getValue();
      records -= dropped.count();
      changes.dropGeneration(dropped.start());
    }
  }

  /**
   * The generation a record expiring at {@code expiresAt} goes to: the live one holding that
   * time, else a new one on the retention grid, [k·retention, (k+1)·retention) around it, so
   * generation bounds depend only on expiry times and the retention, never on history (cut to
   * fit between live neighbours, which happens only after the retention was changed).
   */
  private IdempotencyGeneration generationFor(long expiresAt) {
    Map.Entry<Long, IdempotencyGeneration> floor = generations.floorEntry(expiresAt);
    if (floor != null && floor.getValue().holds(expiresAt)) {
      return floor.getValue();
    }
    IdempotencyGeneration cell =
        IdempotencyGeneration.onGrid(expiresAt, retentionMillis);
    long start = cell.start();
    long end = cell.end();
    if (floor != null) {
      start = Math.max(start, floor.getValue().end());
    }
    Long next = generations.higherKey(expiresAt);
    if (next != null) {
      end = Math.min(end, next);
    }
    if (end <= expiresAt || start > expiresAt) {
      throw new InvariantViolation("I6 no idempotency generation can hold expiry " + expiresAt
          + " (grid [" + start + ", " + end + "))");
    }
    return new IdempotencyGeneration(start, end, 0);
  }

  /**
   * The newest record of {@code key}, answering or expired: this entry's pending writes first,
   * then the live generations newest first (one point read each, bloom-filtered; usually two).
   * Generations are disjoint in expiry time, so the first record found is the newest; if it has
   * expired, so have all older ones.
   */
  Optional<IdempotencyRecord> newest(RequestKey key, Changes changes) {
    IdempotencyRecord pending = changes.idempotencyPuts.get(key);
    if (pending != null) {
      return Optional.of(pending);
    }
    for (IdempotencyGeneration generation : generations.descendingMap().values()) {
      Optional<IdempotencyRecord> stored = store.idempotencyRecord(generation.start(), key);
      if (stored.isPresent()) {
        return stored;
      }
    }
    return Optional.empty();
  }

  /**
   * I6 for idempotency: the stored generations are the live ones (disjoint, none expired as of
   * now), every stored record lies in a live generation that holds its expiry time, each
   * generation's count is the number of records stored in it, and the counter is their sum.
   */
  void verify(long nowMillis) {
    List<IdempotencyGeneration> stored = store.idempotencyGenerations();
    if (!stored.equals(new ArrayList<>(generations.values()))) {
      throw new InvariantViolation("I6 idempotency generations in memory " + generations.values()
          + " but stored " + stored);
    }
    long sum = 0;
    long previousEnd = Long.MIN_VALUE;
    for (IdempotencyGeneration g : generations.values()) {
      if (g.start() < previousEnd || g.expiredAt(nowMillis)) {
        throw new InvariantViolation("I6 idempotency generation " + g + " overlaps the previous"
            + " one (end " + previousEnd + ") or has expired at " + nowMillis);
      }
      previousEnd = g.end();
      sum += g.count();
    }
    if (sum != records) {
      throw new InvariantViolation("I6 idempotency record counter " + records
          + " but the generations count " + sum);
    }
    Map<Long, Long> counted = new HashMap<>();
    store.forEachIdempotencyRecord((key, record) -> {
      IdempotencyGeneration g = generations.get(record.generation());
      if (g == null || !g.holds(record.expiresAtMillis())) {
        throw new InvariantViolation("I6 idempotency record " + key + " expiresAt "
            + record.expiresAtMillis() + " is stored in generation " + record.generation()
            + ", which is " + (g == null ? "not live" : g + ", not holding it"));
      }
      counted.merge(record.generation(), 1L, Long::sum);
    });
    for (IdempotencyGeneration g : generations.values()) {
      long n = counted.getOrDefault(g.start(), 0L);
      if (n != g.count()) {
        throw new InvariantViolation("I6 idempotency generation " + g + " stores " + n
            + " records");
      }
    }
  }
}
