package dev.ration.statemachine.lease;

import dev.ration.wire.lease.Limit;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.wire.lease.LeaseView;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

import dev.ration.statemachine.replica.FamilyStore;
import dev.ration.statemachine.replica.Replica;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
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
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Goal: Tick with a small budget (maxItems 0–3, several Ticks per batch) drains lease expiries
 * in (dueAt, kind, id) order, stale records counted against the budget, while idempotency
 * records answer retries exactly until they expire and are dropped by generation, on RocksDB
 * (with restarts, so records come back from disk) and on a ledger over
 * {@link MemoryLedgerStore}. Both must agree with a model that keeps the expiry index in one
 * TreeSet and the answers in a map: Tick results, which leases live (a renewal succeeds exactly
 * while the model holds the lease), which keys are still answered from their record (exactly
 * while now &lt; expiresAt), the stored record count (the generation rule of
 * docs/INVARIANTS.md I6), and the next due time.
 *
 * <p>Times collide on purpose: they move in steps of 50 ms, and limit r1's lease counts for
 * 900 + 100 ms, the retention, so a keyed acquire on r1 puts a lease end and an idempotency
 * record's expiry at the same time, and a retry lands exactly on an expiry now and then.
 */
class TickOrderPropertyTest {
  static final StateOptions OPTIONS = new StateOptions(1_000, 4, 10_000, 8, QuotaOptions.defaults());
  /** Per limit: lease duration and grace; r0 short, r1 ending with the retention. */
  static final long[][] LIMITS = {{100, 0}, {900, 100}};

  /** 0–1 keyed acquire on r0/r1, 2 unkeyed acquire, 3 keyed renew, 4 keyed return, 5 retry, 6 NewEpoch, 7–9 Tick. */
  record Op(int kind, int a) {}

  record Step(int timeSteps, List<Op> ops, boolean restart) {}

  static final Gen<Op> OP = r -> new Op(r.between(0, 9), r.between(0, 1000));

  /** 0–8 time steps of 50 ms, 1–4 ops, a restart after it when its draw in 0..14 is 0. */
  static final Gen<Step> STEP =
      r -> new Step(r.between(0, 8), OP.list(1, 4).next(r), r.between(0, 14) == 0);

  /** The design in miniature: every expiry record in one sorted set, each lease owning exactly its current end. */
  static final class Model {
    long now;
    final TreeSet<ExpiryKey> index = new TreeSet<>();
    /** lease id → {countedUntil, expiresAt, version, limit}. */
    final TreeMap<Long, long[]> leases = new TreeMap<>();
    final Map<RequestKey, Result> answers = new HashMap<>();
    final Map<RequestKey, Long> answerExpiresAt = new HashMap<>();
    final List<RequestKey> usedKeys = new ArrayList<>();
    /** The command last sent under each key: a retry resends it (another would be refused). */
    final Map<RequestKey, Command> sent = new HashMap<>();
    /** Keys sent in the entry being built: not yet observed, but answered by the time a retry applies. */
    final java.util.Set<RequestKey> inEntry = new java.util.HashSet<>();
    /** Idempotency generations: start → {end, stored records}. */
    final TreeMap<Long, long[]> generations = new TreeMap<>();

    /** An entry begins at {@link #now}: generations whose every record expired are dropped. */
    void beginEntry() {
      generations.entrySet().removeIf(g -> g.getValue()[0] - 1 <= now);
    }

    long storedRecords() {
      return generations.values().stream().mapToLong(g -> g[1]).sum();
    }

    /** A new record: into its generation on the retention grid (one retention throughout). */
    void store(long expiresAt) {
      long width = OPTIONS.idempotencyRetentionMillis();
      long start = expiresAt / width * width;
      generations.computeIfAbsent(start, s -> new long[] {s + width, 0})[1]++;
    }

    boolean answered(RequestKey key) {
      return answers.containsKey(key) && now < answerExpiresAt.get(key);
    }

    int tick(int maxItems) {
      int freed = 0;
      for (int popped = 0; popped < maxItems && !index.isEmpty() && index.first().dueAtMillis() <= now; popped++) {
        ExpiryKey due = index.pollFirst();
        if (due.kind() == ExpiryKey.LEASE_END) {
          long[] lease = leases.get(due.a());
          if (lease != null && lease[0] == due.dueAtMillis()) {
            leases.remove(due.a());
            freed++;
          }
        }
      }
      return freed;
    }

    /** Checks a non-Tick result against the model and records its effect. */
    void observe(Proposal p, Result actual) {
      RequestKey key = p.key();
      if (!key.isNone() && answered(key)) {
        assertEquals(answers.get(key), actual, "a kept key is answered from its record " + key);
        return;
      }
      Command c = p.command();
      if (c instanceof AcquireLease a) {
        int limit = a.resource().equals("r0") ? 0 : 1;
        Result.LeaseGranted g = assertInstanceOf(Result.LeaseGranted.class, actual);
        assertEquals(now + LIMITS[limit][0] + LIMITS[limit][1], g.lease().countedUntilMillis());
        leases.put(g.lease().leaseId(), new long[] {
            g.lease().countedUntilMillis(), g.lease().expiresAtMillis(), g.lease().version(), limit});
        index.add(ExpiryKey.leaseEnd(g.lease().countedUntilMillis(), g.lease().leaseId()));
      } else if (c instanceof RenewLease r) {
        long[] lease = leases.get(r.leaseId());
        boolean live = lease != null && now < lease[1];
        assertEquals(live, actual instanceof Result.LeaseRenewed,
            "renewal of lease " + r.leaseId() + " at " + now + " gave " + actual);
        if (live) {
          LeaseView v = ((Result.LeaseRenewed) actual).lease();
          if (v.countedUntilMillis() != lease[0]) {
            // The old end is withdrawn at once (no stale record for a Tick to pop).
            index.remove(ExpiryKey.leaseEnd(lease[0], r.leaseId()));
            index.add(ExpiryKey.leaseEnd(v.countedUntilMillis(), r.leaseId()));
          }
          lease[0] = v.countedUntilMillis();
          lease[1] = v.expiresAtMillis();
          lease[2] = v.version();
        }
      } else if (c instanceof ReturnLease r) {
        long[] held = leases.get(r.leaseId());
        if (held != null && r.presentedVersion() != held[2]) {
          // A renewal earlier in the batch moved the version: the fenced return frees nothing.
          assertEquals(Outcome.VERSION_MISMATCH,
              assertInstanceOf(Result.Rejected.class, actual).outcome());
        } else {
          assertInstanceOf(Result.LeaseReturned.class, actual);
          long[] gone = leases.remove(r.leaseId());
          if (gone != null) {
            index.remove(ExpiryKey.leaseEnd(gone[0], r.leaseId())); // withdrawn with the lease
          }
        }
      } else if (c instanceof NewEpoch) {
        for (Map.Entry<Long, long[]> e : leases.entrySet()) {
          long[] lease = e.getValue();
          long extended = now + LIMITS[(int) lease[3]][0] + LIMITS[(int) lease[3]][1];
          if (extended > lease[0]) {
            index.remove(ExpiryKey.leaseEnd(lease[0], e.getKey()));
            lease[0] = extended;
            index.add(ExpiryKey.leaseEnd(extended, e.getKey()));
          }
        }
      }
      if (!key.isNone()) {
        answers.put(key, actual);
        answerExpiresAt.put(key, now + OPTIONS.idempotencyRetentionMillis());
        store(now + OPTIONS.idempotencyRetentionMillis());
      }
    }
  }

  @Test
  void smallTicksDrainLeaseExpiriesInOrderAndAnswersExpireExactly() {
    Tally freed = new Tally("tick freed");
    Property.forAll(40, STEP.list(1, 80), steps -> run(steps, freed));
    System.out.println(freed);
  }

  private static void run(List<Step> steps, Tally freed) throws IOException {
    Files.createDirectories(Path.of("target"));
    Path dir = Files.createTempDirectory(Path.of("target"), "tick-order-");
    Model model = new Model();
    MemoryLedgerStore memoryStore = new MemoryLedgerStore();
    Replica memory = new Replica(OPTIONS, memoryStore, FamilyStore.EMPTY, RocksCoordinatorState.ledgers(OPTIONS));
    RocksCoordinatorState state = RocksCoordinatorState.open(dir, OPTIONS);
    try {
      long index = 0;
      long sequence = 1;
      model.now = 1_000;
      List<Proposal> setup = new ArrayList<>();
      for (int i = 0; i < LIMITS.length; i++) {
        setup.add(new Proposal(RequestKey.NONE, new SetLimit(new Limit("t", "r" + i, 1_000_000, 0, Mode.HARD,
            LIMITS[i][0], LIMITS[i][1], 0, Policy.FREE_CAPACITY, 0))));
      }
      apply(state, memory, memoryStore, index++, Batch.of(model.now, setup));
      for (Step step : steps) {
        model.now += 50L * step.timeSteps();
        model.beginEntry();
        model.inEntry.clear();
        List<Proposal> proposals = new ArrayList<>();
        for (Op op : step.ops()) {
          proposals.add(proposal(op, model, sequence));
          if (proposals.get(proposals.size() - 1).key().sequence() == sequence) {
            sequence++;
          }
        }
        Batch batch = BatchCodec.decode(BatchCodec.encode(Batch.of(model.now, proposals)));
        List<Result> actual = apply(state, memory, memoryStore, index++, batch);
        for (int i = 0; i < proposals.size(); i++) {
          Proposal p = proposals.get(i);
          if (p.command() instanceof Tick t) {
            assertEquals(new Result.Ticked(model.tick(t.maxItems())), actual.get(i),
                "Tick(" + t.maxItems() + ") at " + model.now + " step " + index);
            freed.add(((Result.Ticked) actual.get(i)).freed());
          } else {
            model.observe(p, actual.get(i));
          }
        }
        if (step.restart()) {
          state.close();
          state = RocksCoordinatorState.open(dir, OPTIONS);
        }
        long nextDue = model.index.isEmpty() ? Long.MAX_VALUE : model.index.first().dueAtMillis();
        assertEquals(nextDue, state.nextDueMillis(), "next due, RocksDB");
        assertEquals(nextDue, memory.nextDueMillis(), "next due, memory store");
        QueryResult.StatusAnswer status = (QueryResult.StatusAnswer) state.query(new Query.Status(), 0);
        assertEquals(model.storedRecords(), status.idempotencyRecords());
        assertEquals(model.storedRecords(), memory.idempotencyRecords());
        long answering = model.answers.keySet().stream().filter(model::answered).count();
        assertTrue(status.idempotencyRecords() >= answering, "every answering record is stored");
        List<Long> liveIds = new ArrayList<>();
        for (LeaseView v : ((QueryResult.LeaseList) state.query(new Query.ListLeases("", ""), 0)).leases()) {
          liveIds.add(v.leaseId());
        }
        assertEquals(new ArrayList<>(model.leases.keySet()), liveIds, "live leases at " + model.now);
      }
      assertTrue(index > 1);
    } finally {
      state.close();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /** The same entry on RocksDB and on the memory store; their results must be equal. */
  private static List<Result> apply(RocksCoordinatorState state, Replica memory,
      MemoryLedgerStore memoryStore, long index, Batch batch) {
    List<Result> results = state.apply(1, index, batch);
    state.verify();
    assertEquals(results, memory.apply(1, index, batch), "RocksDB and memory store disagree");
    memoryStore.commit(memory.takeChanges());
    memory.verify();
    return results;
  }

  private static Proposal sent(Model model, RequestKey key, Command command) {
    model.sent.put(key, command);
    model.inEntry.add(key);
    return new Proposal(key, command);
  }

  private static Proposal proposal(Op op, Model model, long sequence) {
    RequestKey fresh = new RequestKey(3, 4, sequence);
    switch (op.kind()) {
      case 0, 1 -> {
        model.usedKeys.add(fresh);
        return sent(model, fresh, new AcquireLease("t", "r" + op.kind(), "h", 1, 0));
      }
      case 2 -> {
        return new Proposal(RequestKey.NONE, new AcquireLease("t", "r" + op.a() % 2, "h", 1, 0));
      }
      case 3, 4 -> {
        if (model.leases.isEmpty()) {
          return new Proposal(RequestKey.NONE, new Tick(op.a() % 4));
        }
        List<Long> ids = new ArrayList<>(model.leases.keySet());
        long id = ids.get(op.a() % ids.size());
        model.usedKeys.add(fresh);
        Command c = op.kind() == 3
            ? new RenewLease(id, model.leases.get(id)[2], 1, 0, 0, 0, 0)
            : new ReturnLease(id, model.leases.get(id)[2], 0);
        return sent(model, fresh, c);
      }
      case 5 -> {
        if (model.usedKeys.isEmpty()) {
          return new Proposal(RequestKey.NONE, new Tick(op.a() % 4));
        }
        RequestKey old = model.usedKeys.get(op.a() % model.usedKeys.size());
        if (model.answered(old) || model.inEntry.contains(old)) {
          return new Proposal(old, model.sent.get(old)); // a true retry: the first answer
        }
        // Its record has expired: the key runs anew, as another request.
        return sent(model, old, new AcquireLease("t", "r" + op.a() % 2, "retry", 1, 0));
      }
      case 6 -> {
        return new Proposal(RequestKey.NONE, new NewEpoch("n"));
      }
      default -> {
        return new Proposal(RequestKey.NONE, new Tick(op.a() % 4));
      }
    }
  }
}
