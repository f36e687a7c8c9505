package dev.ration.statemachine.ttl;

import dev.ration.statemachine.query.EntryView;

import dev.ration.wire.Bytes;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.CapacityPolicy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.TtlCommand.CompareAndSetEntry;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import dev.ration.statemachine.command.TtlCommand.UpdateEntry;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.nio.file.Path;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Boundary tests of TTL entries with explicit ledger times, on real RocksDB; verify() runs after
 * every entry (the Driver). The expiry rule under test: expired iff now ≥ expiresAt.
 */
class TtlLedgerTest {
  @TempDir Path dir;
  private RocksCoordinatorState state;
  private Driver d;

  @BeforeEach
  void open() {
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
  }

  @AfterEach
  void close() {
    state.close();
  }

  private static PutEntry put(String key, String value, long ttlMillis) {
    return new PutEntry("ns", key, Bytes.utf8(value), ttlMillis);
  }

  private Optional<EntryView> get(String key, long readNowMillis) {
    return ((QueryResult.EntryAnswer) state.query(new Query.GetEntry("ns", key), readNowMillis)).entry();
  }

  private NamespaceView namespace(String name) {
    return ((QueryResult.NamespaceAnswer) state.query(new Query.GetNamespace(name), 0))
        .namespace().orElseThrow();
  }

  private static Result.EntryWritten written(Result r) {
    return assertInstanceOf(Result.EntryWritten.class, r, r.toString());
  }

  private static void rejected(Outcome outcome, Result r) {
    Result.Rejected rej = assertInstanceOf(Result.Rejected.class, r, r.toString());
    assertEquals(outcome, rej.outcome(), rej.message());
  }

  /** Goal: TTL 0 is already expired — a miss at once, not refreshable, replaceable by CAS 0. */
  @Test
  void zeroTtlIsAlreadyExpired() {
    Result.EntryWritten w = written(d.at(1_000, put("k", "v", 0)));
    assertEquals(1_000, w.expiresAtMillis());
    assertEquals(Optional.empty(), get("k", 0));
    rejected(Outcome.ENTRY_UNKNOWN, d.at(1_000, new RefreshEntry("ns", "k", 5_000, 0)));
    written(d.at(1_000, new CompareAndSetEntry("ns", "k", 0, Bytes.utf8("w"), 100)));
    assertEquals("w", new String(get("k", 0).orElseThrow().value().array()));
  }

  /** Goal: at now == expiresAt the entry is expired on the read path, before any Tick. */
  @Test
  void expiredExactlyAtExpiresAtEvenWithoutTick() {
    written(d.at(1_000, put("k", "v", 100)));
    assertTrue(get("k", 1_099).isPresent());
    assertEquals(Optional.empty(), get("k", 1_100));
    // and on the write path: a CAS expecting "absent" succeeds at 1100 without a Tick.
    long v1 = get("k", 0).orElseThrow().version();
    rejected(Outcome.VERSION_MISMATCH, d.at(1_099, new CompareAndSetEntry("ns", "k", 0, Bytes.EMPTY, 1)));
    Result.EntryWritten w = written(d.at(1_100, new CompareAndSetEntry("ns", "k", 0, Bytes.EMPTY, 1)));
    assertTrue(w.version() > v1);
  }

  /** Goal: a refresh just before expiry keeps the entry; the old index record is stale. */
  @Test
  void refreshJustBeforeExpiryMakesTheOldIndexRecordStale() {
    long v = written(d.at(1_000, put("k", "v", 100))).version();
    Result.EntryWritten r = written(d.at(1_099, new RefreshEntry("ns", "k", 100, 0)));
    assertEquals(v, r.version(), "refresh keeps the version");
    assertEquals(1_199, r.expiresAtMillis());
    assertEquals(new Result.Ticked(0), d.at(1_150, new Tick(10)));
    assertEquals(v, get("k", 1_150).orElseThrow().version());
    assertEquals("v", new String(get("k", 1_150).orElseThrow().value().array()));
    assertEquals(new Result.Ticked(1), d.at(1_199, new Tick(10)));
    assertEquals(Optional.empty(), get("k", 0));
    NamespaceView ns = namespace("ns");
    assertEquals(0, ns.entries());
    assertEquals(0, ns.bytes());
    assertEquals(1, ns.evictedExpired());
  }

  /**
   * Goal: an update replaces the value with a new version and keeps the expiry; the old
   * version's index record goes stale and the entry still leaves at the kept expiry; an update
   * of an absent or expired entry, or at another version, changes nothing.
   */
  @Test
  void updateKeepsTheExpiry() {
    rejected(Outcome.ENTRY_UNKNOWN, d.at(1_000, new UpdateEntry("ns", "k", Bytes.EMPTY, 0)));
    long v = written(d.at(1_000, put("k", "v", 100))).version();
    Result.EntryWritten u = written(d.at(1_050,
        new UpdateEntry("ns", "k", new Bytes("w2".getBytes(StandardCharsets.UTF_8)), 0)));
    assertTrue(u.version() > v, "a new version");
    assertEquals(1_100, u.expiresAtMillis(), "the expiry is kept");
    rejected(Outcome.VERSION_MISMATCH, d.at(1_060, new UpdateEntry("ns", "k", Bytes.EMPTY, v)));
    Result.EntryWritten u2 = written(d.at(1_070, new UpdateEntry("ns", "k",
        new Bytes("w3".getBytes(StandardCharsets.UTF_8)), u.version())));
    assertEquals(1_100, u2.expiresAtMillis());
    assertEquals("w3", new String(get("k", 1_080).orElseThrow().value().array(), StandardCharsets.UTF_8));
    assertEquals(1, namespace("ns").entries());
    assertEquals(3, namespace("ns").bytes(), "key k + value w3");
    assertEquals(new Result.Ticked(1), d.at(1_100, new Tick(10)), "leaves at the kept expiry");
    assertEquals(Optional.empty(), get("k", 0));
    rejected(Outcome.ENTRY_UNKNOWN, d.at(1_101, new UpdateEntry("ns", "k", Bytes.EMPTY, 0)));
    assertEquals(0, namespace("ns").entries());
  }

  /** Goal: a rewrite (new version) is never deleted by the old version's index record. */
  @Test
  void staleIndexRecordAfterRewriteDeletesNothing() {
    written(d.at(1_000, put("k", "old", 100)));
    long v2 = written(d.at(1_050, put("k", "new", 1_000))).version();
    assertEquals(new Result.Ticked(0), d.at(1_100, new Tick(10)));
    assertEquals(v2, get("k", 1_100).orElseThrow().version());
    assertEquals(new Result.Ticked(1), d.at(2_050, new Tick(10)));
  }

  /** Goal: cleanup is bounded by maxItems and repeating it frees nothing twice. */
  @Test
  void repeatedCleanupIsBoundedAndIdempotent() {
    for (int i = 0; i < 5; i++) {
      written(d.at(1_000, put("k" + i, "v", 10 + i)));
    }
    assertEquals(new Result.Ticked(2), d.at(2_000, new Tick(2)));
    assertEquals(3, namespace("ns").entries());
    assertEquals(new Result.Ticked(3), d.at(2_000, new Tick(10)));
    assertEquals(new Result.Ticked(0), d.at(2_000, new Tick(10)));
    assertEquals(new Result.Ticked(0), d.at(3_000, new Tick(10)));
    assertEquals(0, namespace("ns").entries());
    assertEquals(5, namespace("ns").evictedExpired());
  }

  /** Goal: when full, expired entries go first, then the soonest-expiring live ones (EVICT). */
  @Test
  void capacityEvictionOrderAndReasons() {
    d.at(1_000, new SetNamespace("ns", 3, 1_000_000, CapacityPolicy.EVICT_SOONEST_EXPIRING));
    written(d.at(1_000, put("a", "1", 100)));   // expires 1100
    written(d.at(1_000, put("b", "1", 300)));   // expires 1300
    written(d.at(1_000, put("c", "1", 200)));   // expires 1200
    written(d.at(1_150, put("d", "1", 1_000))); // a is expired: goes first
    assertEquals(Optional.empty(), get("a", 0));
    assertEquals(1, namespace("ns").evictedExpired());
    assertEquals(0, namespace("ns").evictedCapacity());
    written(d.at(1_150, put("e", "1", 1_000))); // c is the soonest live
    assertEquals(Optional.empty(), get("c", 0));
    assertTrue(get("b", 0).isPresent());
    NamespaceView ns = namespace("ns");
    assertEquals(3, ns.entries());
    assertEquals(1, ns.evictedCapacity());
    // overwriting an existing key needs no room
    written(d.at(1_150, put("b", "2", 1_000)));
    assertEquals(1, namespace("ns").evictedCapacity());
  }

  /** Goal: REJECT refuses with NAMESPACE_FULL, yet still reclaims expired entries first. */
  @Test
  void rejectPolicyRefusesUntilSomethingExpired() {
    d.at(1_000, new SetNamespace("ns", 2, 1_000_000, CapacityPolicy.REJECT));
    written(d.at(1_000, put("a", "1", 100)));
    written(d.at(1_000, put("b", "1", PutEntry.NO_EXPIRY)));
    rejected(Outcome.NAMESPACE_FULL, d.at(1_099, put("c", "1", 100)));
    written(d.at(1_100, put("c", "1", 100)));
    assertEquals(1, namespace("ns").evictedExpired());
    assertEquals(0, namespace("ns").evictedCapacity());
  }

  /** Goal: the byte capacity counts key + value; a value that can never fit is refused. */
  @Test
  void byteCapacity() {
    d.at(1_000, new SetNamespace("ns", 100, 10, CapacityPolicy.EVICT_SOONEST_EXPIRING));
    written(d.at(1_000, put("k", "123456789", 100)));
    assertEquals(10, namespace("ns").bytes());
    written(d.at(1_000, put("j", "1", 200)));
    assertEquals(Optional.empty(), get("k", 0), "k evicted to fit j");
    rejected(Outcome.NAMESPACE_FULL, d.at(1_000, put("x", "12345678901", 100)));
    assertTrue(get("j", 0).isPresent(), "a write that can never fit evicts nothing it needs not");
  }

  /** Goal: versions are fencing tokens: strictly increasing; CAS and delete check them. */
  @Test
  void versionsCasAndDelete() {
    long v1 = written(d.at(1_000, new CompareAndSetEntry("ns", "lock", 0, Bytes.utf8("me"), 500))).version();
    Result r = d.at(1_001, new CompareAndSetEntry("ns", "lock", 0, Bytes.utf8("you"), 500));
    rejected(Outcome.VERSION_MISMATCH, r);
    assertEquals(v1, ((Result.Rejected) r).currentVersion());
    rejected(Outcome.VERSION_MISMATCH, d.at(1_002, new RefreshEntry("ns", "lock", 500, v1 + 1)));
    written(d.at(1_002, new RefreshEntry("ns", "lock", 500, v1)));
    rejected(Outcome.VERSION_MISMATCH, d.at(1_003, new DeleteEntry("ns", "lock", v1 + 7)));
    assertEquals(new Result.EntryDeleted("ns", "lock", v1, true),
        d.at(1_003, new DeleteEntry("ns", "lock", v1)));
    assertEquals(new Result.EntryDeleted("ns", "lock", 0, false),
        d.at(1_004, new DeleteEntry("ns", "lock", 0)));
    long v2 = written(d.at(1_005, new CompareAndSetEntry("ns", "lock", 0, Bytes.utf8("you"), 500))).version();
    assertTrue(v2 > v1, v2 + " > " + v1);
  }

  /** Goal: bounded sizes with clear INVALID_ARGUMENT messages. */
  @Test
  void boundsAreInvalidArguments() {
    rejected(Outcome.INVALID_ARGUMENT, d.at(1_000, put("k".repeat(257), "v", 1)));
    rejected(Outcome.INVALID_ARGUMENT, d.at(1_000, put("", "v", 1)));
    rejected(Outcome.INVALID_ARGUMENT,
        d.at(1_000, new PutEntry("ns", "k", new Bytes(new byte[65_537]), 1)));
    rejected(Outcome.INVALID_ARGUMENT, d.at(1_000, put("k", "v", -2)));
    written(d.at(1_000, put("k".repeat(256), "v", 1)));
    written(d.at(1_000, new PutEntry("ns", "k", new Bytes(new byte[65_536]), 1)));
    rejected(Outcome.INVALID_ARGUMENT,
        d.at(1_000, new SetNamespace("ns", 0, 10, CapacityPolicy.REJECT)));
  }

  /** Goal: no-expiry entries never expire and carry expiresAt = Long.MAX_VALUE. */
  @Test
  void noExpiry() {
    assertEquals(Long.MAX_VALUE, written(d.at(1_000, put("k", "v", PutEntry.NO_EXPIRY))).expiresAtMillis());
    assertEquals(new Result.Ticked(0), d.at(Long.MAX_VALUE - 1, new Tick(10)));
    assertTrue(get("k", Long.MAX_VALUE - 1).isPresent());
  }

  /** Goal: list by prefix skips expired entries and reports truncation. */
  @Test
  void listByPrefix() {
    written(d.at(1_000, put("app/a", "1", 100)));
    written(d.at(1_000, put("app/b", "1", 500)));
    written(d.at(1_000, put("app/c", "1", 500)));
    written(d.at(1_000, put("other", "1", 500)));
    QueryResult.EntryList all = (QueryResult.EntryList) state.query(new Query.ListEntries("ns", "app/", 10), 1_200);
    assertEquals(List.of("app/b", "app/c"), all.entries().stream().map(EntryView::key).toList());
    assertEquals(false, all.truncated());
    QueryResult.EntryList one = (QueryResult.EntryList) state.query(new Query.ListEntries("ns", "app/", 1), 0);
    assertEquals(List.of("app/a"), one.entries().stream().map(EntryView::key).toList());
    assertTrue(one.truncated());
  }

  /** Goal: a retried put (same request key) gets its first answer and mints nothing. */
  @Test
  void retriedPutIsIdempotent() {
    RequestKey key = new RequestKey(1, 2, 3);
    Result first = d.at(1_000, key, put("k", "v", 1_000));
    assertEquals(first, d.at(1_001, key, put("k", "v", 1_000)));
    // The same request id with another value is another request: refused, nothing written.
    Result reused = d.at(1_002, key, put("k", "other", 1_000));
    assertEquals(Outcome.INVALID_ARGUMENT, assertInstanceOf(Result.Rejected.class, reused).outcome());
    assertEquals("v", new String(get("k", 0).orElseThrow().value().array()));
    assertEquals(first, d.at(1_003, key, put("k", "v", 1_000)), "the first answer stays");
  }

  /** Goal: entries and namespace counters survive a restart (RocksDB), verify() passes. */
  @Test
  void restartKeepsEntriesAndCounters() {
    d.at(1_000, new SetNamespace("ns", 10, 1_000, CapacityPolicy.EVICT_SOONEST_EXPIRING));
    written(d.at(1_000, put("a", "1", 100)));
    written(d.at(1_000, put("b", "22", 1_000)));
    d.at(1_200, new Tick(10));
    NamespaceView before = namespace("ns");
    state.close();
    state = RocksCoordinatorState.open(dir.resolve("db"), StateOptions.defaults());
    d = new Driver(state);
    assertEquals(before, namespace("ns"));
    assertEquals("22", new String(get("b", 0).orElseThrow().value().array()));
    assertEquals(new Result.Ticked(1), d.at(2_000, new Tick(10)));
  }
}
