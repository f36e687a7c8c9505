package dev.ration.statemachine.ttl;

import dev.ration.statemachine.query.EntryView;

import dev.ration.wire.Bytes;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.CapacityPolicy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.TtlCommand.CompareAndSetEntry;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import dev.ration.testkit.Tally;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Random put / get / refresh / cas / delete / setNamespace / Tick sequences (two namespaces,
 * five keys, time going backwards in batch time, TTLs of none, 0 and up to 400 ms, tiny
 * capacities under both policies, restarts) applied to the RocksDB state and to a reference
 * model kept in plain maps with the same expiry rule (expired iff now ≥ expiresAt) and the same
 * Tick rule (due records in index order, after the last one an earlier Tick of the same entry
 * popped). Results,
 * reads at random read times, and namespace counters must agree; verify() runs after every
 * step. A failure prints its seed, the command that replays it, and the failing steps.
 */
class TtlPropertyTest {
  static final String[] NAMESPACES = {"a", "b"};
  static final int KEYS = 5;

  record Op(int kind, int ns, int key, int x, int y) {}

  record Step(int timeDeltaMillis, List<Op> ops, int readAheadMillis, boolean restart) {}

  static final Gen<Op> OP = r -> new Op(r.between(0, 11), r.between(0, 1), r.between(0, KEYS - 1),
      r.between(0, 1000), r.between(0, 1000));

  /**
   * 1–4 ops; time moves −50..300 ms; reads 0..300 ms ahead (less 100); a restart after it when
   * its draw in 0..14 is 0.
   */
  static final Gen<Step> STEP = r -> new Step(r.between(-50, 300), OP.list(1, 4).next(r),
      r.between(0, 300), r.between(0, 14) == 0);

  // ---------------------------------------------------------------- the reference model

  static final class MEntry {
    final byte[] value;
    final long version;
    long expiresAt;

    MEntry(byte[] value, long version, long expiresAt) {
      this.value = value;
      this.version = version;
      this.expiresAt = expiresAt;
    }
  }

  static final class MNamespace {
    final String name;
    final long id;
    long maxEntries;
    long maxBytes;
    CapacityPolicy policy;
    final TreeMap<String, MEntry> entries = new TreeMap<>();
    long evictedExpired;
    long evictedCapacity;

    MNamespace(String name, long id, long maxEntries, long maxBytes, CapacityPolicy policy) {
      this.name = name;
      this.id = id;
      this.maxEntries = maxEntries;
      this.maxBytes = maxBytes;
      this.policy = policy;
    }

    long bytes() {
      long sum = 0;
      for (Map.Entry<String, MEntry> e : entries.entrySet()) {
        sum += e.getKey().length() + e.getValue().value.length;
      }
      return sum;
    }

    NamespaceView view() {
      return new NamespaceView(name, maxEntries, maxBytes, policy, entries.size(), bytes(),
          evictedExpired, evictedCapacity);
    }
  }

  static final class Model {
    long now = 0;
    long nextVersion = 1;
    final Map<String, MNamespace> namespaces = new HashMap<>();
    final Map<Long, MNamespace> byId = new HashMap<>();
    /** (dueAt, namespace id, version): the TTL part of the shared index, stale records kept. */
    final TreeSet<long[]> index = new TreeSet<>(Comparator.<long[]>comparingLong(r -> r[0])
        .thenComparingLong(r -> r[1]).thenComparingLong(r -> r[2]));

    static boolean expired(long expiresAt, long at) {
      return at >= expiresAt;
    }

    MNamespace create(String name, long maxEntries, long maxBytes, CapacityPolicy policy) {
      MNamespace ns = new MNamespace(name, nextVersion++, maxEntries, maxBytes, policy);
      namespaces.put(name, ns);
      byId.put(ns.id, ns);
      return ns;
    }

    Result write(String nsName, String key, byte[] value, long ttl, boolean compare, long expected) {
      return write(nsName, key, value, ttl, compare, expected, false);
    }

    /** An update: a live entry's new value with its expiry kept. */
    Result update(String nsName, String key, byte[] value, long expected) {
      return write(nsName, key, value, 0, false, expected, true);
    }

    private Result write(String nsName, String key, byte[] value, long ttl, boolean compare,
        long expected, boolean keepExpiry) {
      MNamespace ns = namespaces.get(nsName);
      MEntry stored = ns == null ? null : ns.entries.get(key);
      long current = stored != null && !expired(stored.expiresAt, now) ? stored.version : 0;
      if (keepExpiry && current == 0) {
        return new Result.Rejected(Outcome.ENTRY_UNKNOWN, "", 0, 0);
      }
      if (keepExpiry && expected != 0 && current != expected) {
        return new Result.Rejected(Outcome.VERSION_MISMATCH, "", 0, current);
      }
      if (compare && current != expected) {
        return new Result.Rejected(Outcome.VERSION_MISMATCH, "", 0, current);
      }
      if (ns == null) {
        ns = create(nsName, TtlLedger.DEFAULT_MAX_ENTRIES, TtlLedger.DEFAULT_MAX_BYTES,
            TtlLedger.DEFAULT_POLICY);
      }
      long addEntries = stored == null ? 0 : -1;
      addEntries += 1;
      long addBytes = key.length() + value.length
          - (stored == null ? 0 : key.length() + stored.value.length);
      if (key.length() + value.length > ns.maxBytes) {
        return new Result.Rejected(Outcome.NAMESPACE_FULL, "", 0, 0);
      }
      while (ns.entries.size() + addEntries > ns.maxEntries || ns.bytes() + addBytes > ns.maxBytes) {
        String victim = null;
        MEntry best = null;
        for (Map.Entry<String, MEntry> e : ns.entries.entrySet()) {
          if (e.getKey().equals(key)) {
            continue;
          }
          MEntry m = e.getValue();
          if (best == null || m.expiresAt < best.expiresAt
              || (m.expiresAt == best.expiresAt && m.version < best.version)) {
            best = m;
            victim = e.getKey();
          }
        }
        if (best == null) {
          return new Result.Rejected(Outcome.NAMESPACE_FULL, "", 0, 0);
        }
        boolean isExpired = expired(best.expiresAt, now);
        if (!isExpired && ns.policy != CapacityPolicy.EVICT_SOONEST_EXPIRING) {
          return new Result.Rejected(Outcome.NAMESPACE_FULL, "", 0, 0);
        }
        ns.entries.remove(victim);
        if (isExpired) {
          ns.evictedExpired++;
        } else {
          ns.evictedCapacity++;
        }
      }
      long version = nextVersion++;
      long expiresAt = keepExpiry ? stored.expiresAt : ttl == -1 ? Long.MAX_VALUE : now + ttl;
      ns.entries.put(key, new MEntry(value, version, expiresAt));
      if (expiresAt != Long.MAX_VALUE) {
        index.add(new long[] {expiresAt, ns.id, version});
      }
      return new Result.EntryWritten(nsName, key, version, expiresAt);
    }

    Result refresh(String nsName, String key, long ttl, long expected) {
      MNamespace ns = namespaces.get(nsName);
      MEntry stored = ns == null ? null : ns.entries.get(key);
      if (stored == null || expired(stored.expiresAt, now)) {
        return new Result.Rejected(Outcome.ENTRY_UNKNOWN, "", 0, 0);
      }
      if (expected != 0 && expected != stored.version) {
        return new Result.Rejected(Outcome.VERSION_MISMATCH, "", 0, stored.version);
      }
      long expiresAt = ttl == -1 ? Long.MAX_VALUE : now + ttl;
      if (expiresAt != stored.expiresAt) {
        stored.expiresAt = expiresAt;
        if (expiresAt != Long.MAX_VALUE) {
          index.add(new long[] {expiresAt, ns.id, stored.version});
        }
      }
      return new Result.EntryWritten(nsName, key, stored.version, expiresAt);
    }

    Result delete(String nsName, String key, long expected) {
      MNamespace ns = namespaces.get(nsName);
      MEntry stored = ns == null ? null : ns.entries.get(key);
      boolean live = stored != null && !expired(stored.expiresAt, now);
      long current = live ? stored.version : 0;
      if (expected != 0 && expected != current) {
        return new Result.Rejected(Outcome.VERSION_MISMATCH, "", 0, current);
      }
      if (stored != null) {
        ns.entries.remove(key);
      }
      return new Result.EntryDeleted(nsName, key, current, live);
    }

    Result setNamespace(String nsName, long maxEntries, long maxBytes, CapacityPolicy policy) {
      MNamespace ns = namespaces.get(nsName);
      if (ns == null) {
        ns = create(nsName, maxEntries, maxBytes, policy);
      } else {
        ns.maxEntries = maxEntries;
        ns.maxBytes = maxBytes;
        ns.policy = policy;
      }
      return new Result.NamespaceSet(ns.view());
    }

    /**
     * The last record a Tick of the current entry popped (null at the entry's start): a later
     * Tick of the same entry goes on after it, so a record the entry adds behind it (a TTL of
     * zero written after a Tick) waits for the next entry's Tick.
     */
    long[] tickCursor;

    Result tick(int maxItems) {
      int freed = 0;
      for (int i = 0; i < maxItems; i++) {
        long[] due = tickCursor == null ? (index.isEmpty() ? null : index.first()) : index.higher(tickCursor);
        if (due == null || due[0] > now) {
          break;
        }
        index.remove(due);
        tickCursor = due;
        MNamespace ns = byId.get(due[1]);
        for (Map.Entry<String, MEntry> e : ns.entries.entrySet()) {
          if (e.getValue().version == due[2] && e.getValue().expiresAt == due[0]) {
            ns.entries.remove(e.getKey());
            ns.evictedExpired++;
            freed++;
            break;
          }
        }
      }
      return new Result.Ticked(freed);
    }

    Optional<EntryView> get(String nsName, String key, long readNow) {
      MNamespace ns = namespaces.get(nsName);
      MEntry m = ns == null ? null : ns.entries.get(key);
      long at = Math.max(now, readNow);
      if (m == null || expired(m.expiresAt, at)) {
        return Optional.empty();
      }
      return Optional.of(new EntryView(nsName, key, new Bytes(m.value), m.version, m.expiresAt));
    }
  }

  // ---------------------------------------------------------------- the run

  /** Turns an abstract op into a command and the model's expected result. */
  private static Proposal concrete(Op op, Model model, List<Result> expected) {
    String ns = NAMESPACES[op.ns()];
    String key = "k" + op.key();
    MNamespace mns = model.namespaces.get(ns);
    MEntry current = mns == null ? null : mns.entries.get(key);
    long currentVersion = current == null ? 0 : current.version;
    long ttl = switch (op.x() % 8) {
      case 0 -> -1;
      case 1 -> 0;
      default -> op.x() % 400;
    };
    long expected3 = switch (op.y() % 3) {
      case 0 -> 0;
      case 1 -> currentVersion;
      default -> currentVersion + 1 + op.y() % 3;
    };
    byte[] value = new byte[op.y() % 7];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) (op.x() + i);
    }
    Command command;
    Result result;
    switch (op.kind()) {
      case 0, 1, 2 -> {
        command = new PutEntry(ns, key, new Bytes(value), ttl);
        result = model.write(ns, key, value, ttl, false, 0);
      }
      case 3, 4 -> {
        command = new CompareAndSetEntry(ns, key, expected3, new Bytes(value), ttl);
        result = model.write(ns, key, value, ttl, true, expected3);
      }
      case 5, 6 -> {
        command = new RefreshEntry(ns, key, ttl, expected3);
        result = model.refresh(ns, key, ttl, expected3);
      }
      case 7 -> {
        command = new DeleteEntry(ns, key, expected3);
        result = model.delete(ns, key, expected3);
      }
      case 8 -> {
        long maxEntries = 1 + op.x() % 4;
        long maxBytes = 4 + op.y() % 30;
        CapacityPolicy policy = op.x() % 2 == 0
            ? CapacityPolicy.REJECT : CapacityPolicy.EVICT_SOONEST_EXPIRING;
        command = new SetNamespace(ns, maxEntries, maxBytes, policy);
        result = model.setNamespace(ns, maxEntries, maxBytes, policy);
      }
      case 9 -> {
        command = new TtlCommand.UpdateEntry(ns, key, new Bytes(value), expected3);
        result = model.update(ns, key, value, expected3);
      }
      default -> {
        command = new Tick(op.x() % 5);
        result = model.tick(op.x() % 5);
      }
    }
    expected.add(result);
    return new Proposal(RequestKey.NONE, command);
  }

  /** Rejections are compared by outcome and current version (messages are for people). */
  private static Result comparable(Result r) {
    return r instanceof Result.Rejected rej
        ? new Result.Rejected(rej.outcome(), "", 0, rej.currentVersion()) : r;
  }

  @Test
  void stateAgreesWithReferenceModel() {
    Tally results = new Tally("results");
    Property.forAll(80, STEP.list(1, 50), steps -> run(steps, results));
    System.out.println(results);
  }

  private static void run(List<Step> steps, Tally results) throws IOException {
    Files.createDirectories(Path.of("target"));
    Path dir = Files.createTempDirectory(Path.of("target"), "ttl-property-");
    Model model = new Model();
    RocksCoordinatorState state = RocksCoordinatorState.open(dir, StateOptions.defaults());
    try {
      long time = 1_000;
      long index = 0;
      // What a watcher told every change knows: it must equal the state, entry for entry.
      Map<String, EntryView> told = new HashMap<>();
      for (Step step : steps) {
        time += step.timeDeltaMillis();
        model.now = Math.max(model.now, time);
        model.tickCursor = null;
        List<Result> expected = new ArrayList<>();
        List<Proposal> proposals = new ArrayList<>();
        for (Op op : step.ops()) {
          proposals.add(concrete(op, model, expected));
        }
        Batch batch = BatchCodec.decode(BatchCodec.encode(Batch.of(time, proposals)));
        List<Result> actual = state.apply(1, index++, batch);
        state.verify();
        for (TtlChange c : state.takeTtlChanges()) {
          String id = c.namespace() + "/" + c.key();
          if (c.kind().removes()) {
            EntryView gone = told.remove(id);
            assertEquals(gone == null ? null : gone.version(), c.version(),
                "a removal names the version told before: " + c);
          } else {
            told.put(id, new EntryView(c.namespace(), c.key(), c.value(), c.version(),
                c.expiresAtMillis()));
          }
        }
        assertEquals(List.of(), state.takeTtlChanges(), "changes are handed over once");
        for (int i = 0; i < actual.size(); i++) {
          assertEquals(comparable(expected.get(i)), comparable(actual.get(i)),
              proposals.get(i).command() + " at now " + model.now);
          results.add(actual.get(i) instanceof Result.Rejected r
              ? r.outcome().name() : actual.get(i).getClass().getSimpleName());
        }
        if (step.restart()) {
          state.close();
          state = RocksCoordinatorState.open(dir, StateOptions.defaults());
        }
        long readNow = model.now + step.readAheadMillis() - 100;
        for (String ns : NAMESPACES) {
          for (int k = 0; k < KEYS; k++) {
            assertEquals(model.get(ns, "k" + k, readNow),
                ((QueryResult.EntryAnswer) state.query(new Query.GetEntry(ns, "k" + k), readNow)).entry(),
                ns + "/k" + k + " read at " + readNow + ", now " + model.now);
            long at = Math.max(model.now, readNow);
            assertEquals(model.get(ns, "k" + k, readNow),
                Optional.ofNullable(told.get(ns + "/k" + k)).filter(e -> e.expiresAtMillis() > at),
                ns + "/k" + k + " as the changes told it, read at " + readNow);
          }
          MNamespace mns = model.namespaces.get(ns);
          assertEquals(Optional.ofNullable(mns).map(MNamespace::view),
              ((QueryResult.NamespaceAnswer) state.query(new Query.GetNamespace(ns), 0)).namespace());
          QueryResult.EntryList list =
              (QueryResult.EntryList) state.query(new Query.ListEntries(ns, "k", 100), readNow);
          List<EntryView> expectedList = new ArrayList<>();
          for (int k = 0; k < KEYS; k++) {
            model.get(ns, "k" + k, readNow).ifPresent(expectedList::add);
          }
          assertEquals(expectedList, list.entries());
        }
      }
    } finally {
      state.close();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
