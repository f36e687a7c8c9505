package dev.ration.statemachine.lease;

import dev.ration.wire.placement.SlotIds;
import dev.ration.wire.placement.Slots;

import dev.ration.wire.lease.Limit;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.SlottedIds;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;
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
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Random command sequences (several limits with random allocation policies and holders, time going backwards in batch time,
 * NewEpoch, Tick, duplicate keys, returns, renewals with stale and future versions, restarts,
 * and the concurrency-slot commands: caps set and lowered, slot acquires, slot renewals with
 * and without release promises) applied to the RocksDB state and to {@link ReferenceLedger}:
 * results, limit statuses, slot statuses and leases must agree, and verify() must pass after
 * every step. A failure prints its seed, the
 * command that replays it, and the failing sequence of steps.
 */
class LedgerPropertyTest {
  static final StateOptions OPTIONS = new StateOptions(3_000, 4, 6, 8, QuotaOptions.defaults());

  /** One abstract operation; the runner turns choices into concrete ids and versions. */
  record Op(int kind, int a, int b, int c, int d, boolean duplicateKey) {}

  record Step(int timeDeltaMillis, List<Op> ops, boolean restart) {}

  static final Gen<Op> OP = r -> new Op(r.between(0, 13), r.between(0, 1000), r.between(0, 1000),
      r.between(0, 1000), r.between(0, 1000), r.oneIn(4));

  /** 1–5 ops; time moves −300..900 ms; a restart after it when its draw in 0..19 is 0. */
  static final Gen<Step> STEP =
      r -> new Step(r.between(-300, 900), OP.list(1, 5).next(r), r.between(0, 19) == 0);

  @Test
  void stateAgreesWithReferenceModel() {
    Tally results = new Tally("results");
    Property.forAll(60, STEP.list(1, 60), steps -> run(steps, results));
    System.out.println(results);
  }

  private static void run(List<Step> steps, Tally results) throws IOException {
    Files.createDirectories(Path.of("target"));
    Path dir = Files.createTempDirectory(Path.of("target"), "ledger-property-");
    ReferenceLedger model = new ReferenceLedger(OPTIONS);
    RocksCoordinatorState state = RocksCoordinatorState.open(dir, OPTIONS);
    try {
      long time = 1_000;
      long index = 0;
      long sequence = 1;
      for (Step step : steps) {
        time += step.timeDeltaMillis();
        List<Proposal> proposals = new ArrayList<>();
        for (Op op : step.ops()) {
          Command command = concrete(op, model);
          RequestKey key = RequestKey.NONE;
          if (command.fromClient()) {
            key = op.duplicateKey() && sequence > 1
                ? new RequestKey(3, 4, 1 + op.d() % (sequence - 1))
                : new RequestKey(3, 4, sequence++);
          }
          proposals.add(new Proposal(key, command));
        }
        Batch batch = BatchCodec.decode(BatchCodec.encode(Batch.of(time, proposals)));
        List<Result> expected = model.apply(batch);
        List<Result> actual = state.apply(1, index++, batch);
        assertEquals(normalise(expected), normalise(actual), "step " + (index - 1) + " " + batch);
        for (Result r : actual) {
          results.add(r instanceof Result.Rejected j ? j.outcome().name() : r.getClass().getSimpleName());
          if (r instanceof Result.SlotsRenewed slots) {
            slots.renewals().forEach(n -> results.add("slot renewal " + n.outcome()
                + (n.lease() != null && n.lease().countedSlots() > n.lease().slotShare()
                    ? " pending" : "")));
          }
        }
        state.verify();
        if (step.restart()) {
          state.close();
          state = RocksCoordinatorState.open(dir, OPTIONS);
        }
        assertEquals(model.statuses(),
            ((QueryResult.LimitList) state.query(new Query.ListLimits(), 0)).limits());
        assertEquals(model.views(),
            ((QueryResult.LeaseList) state.query(new Query.ListLeases("", ""), 0)).leases());
        assertEquals(model.now, state.nowMillis());
        for (var slots : model.slotStatuses()) {
          assertEquals(slots, ((QueryResult.SlotAnswer) state.query(
              new Query.GetSlots(slots.tenant(), slots.resource()), 0)).status()
              .orElseThrow(), "slots after step " + (index - 1));
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

  private static Command concrete(Op op, ReferenceLedger model) {
    String resource = "r" + op.a() % 3;
    switch (op.kind()) {
      case 0:
        return new SetLimit(new Limit("t", resource, op.b() % 150, op.c() % 30, Mode.HARD,
            op.d() % 2 == 0 ? 500 : 1000, op.d() % 3 == 0 ? 0 : 100, op.b() % 4,
            Policy.values()[op.c() % Policy.values().length],
            op.d() % 5 == 0 ? op.c() % 6 : 0));
      case 1:
      case 2:
        return new AcquireLease("t", resource, op.b() % 7 == 0 ? "" : "h" + op.b() % 4,
            op.c() % 90, op.d() % 20);
      case 5:
        if (op.a() % 2 == 0) {
          // A batch of one to three renewals (the same lease twice is allowed: the second
          // presents the version the first replaced and is judged on its own).
          List<RenewLease> renewals = new ArrayList<>();
          for (int i = 0; i <= op.c() % 3; i++) {
            renewals.add(renewal(new Op(op.kind(), op.a() + i, op.b() + i, op.c() + i, op.d(), false),
                model));
          }
          return new RenewLeases(renewals);
        }
        return renewal(op, model);
      case 3:
      case 4:
        return renewal(op, model);
      case 6:
        return giveBack(op, model);
      case 10:
        return new SetLimitConcurrency(new Limit("t", resource, op.b() % 150, op.c() % 30,
            Mode.HARD, op.d() % 2 == 0 ? 500 : 1000, op.d() % 3 == 0 ? 0 : 100, 0,
            Policy.values()[op.c() % Policy.values().length],
            op.d() % 5 == 0 ? op.c() % 6 : 0), op.b() % 13 == 0 ? -1 : op.d() % 12);
      case 8:
      case 11:
        return new AcquireSlots("t", resource, op.b() % 7 == 0 ? "" : "h" + op.b() % 4,
            op.c() % 9);
      case 12:
      case 13: {
        // One to three slot renewals, some presenting stale or future versions, some with a
        // release promise (-1: none), some invalid.
        List<SlotRenewal> renewals = new ArrayList<>();
        for (int i = 0; i <= op.c() % 3; i++) {
          RenewLease like = renewal(
              new Op(op.kind(), op.a() + i, op.b() + i, op.c() + i, op.d(), false), model);
          long release = switch ((op.d() + i) % 4) {
            case 0 -> SlotRenewal.NO_RELEASE;
            case 1 -> op.b() % 5;
            case 2 -> 0;
            default -> op.d() % 31 == 0 ? -3 : op.c() % 8;
          };
          renewals.add(new SlotRenewal(like.leaseId(), like.presentedVersion(), op.c() % 5,
              (op.b() + i) % 6, release));
        }
        return new RenewSlots(renewals);
      }
      case 7:
        // Now and then the switch to ids that carry slots rides with the epoch, as a leader sends it.
        return op.b() % 3 == 0 ? new SlottedIds() : new NewEpoch("n" + op.a() % 3);
      default:
        return new Tick(1_000_000);
    }
  }

  /** A renewal of a lease the model holds (or not), presenting its version or a stale one. */
  private static RenewLease renewal(Op op, ReferenceLedger model) {
    long id = leaseId(op, model);
    ReferenceLedger.ModelLease lease = model.leases.get(id);
    long current = lease == null ? op.b() % 10 : lease.version;
    long presented = switch (op.b() % 4) {
      case 0, 1 -> current;
      case 2 -> Math.max(0, current - 1 - op.c() % 3);
      default -> current + 1;
    };
    return new RenewLease(id, presented, op.c() % 100, op.d() % 25, 0, 0, op.d() % 3);
  }

  /** Mostly a lease the model holds; sometimes any id up to one past the last granted. */
  /**
   * A return presenting the lease's current version (usually), a stale or made-up one, or a
   * return as earlier releases wrote it (any version frees the lease).
   */
  private static ReturnLease giveBack(Op op, ReferenceLedger model) {
    long id = leaseId(op, model);
    ReferenceLedger.ModelLease held = model.leases.get(id);
    long current = held == null ? 1 : held.version;
    long presented = switch (op.b() % 4) {
      case 0 -> current + 1 + op.d() % 1000;
      case 1 -> Math.max(0, current - 1);
      default -> current;
    };
    return new ReturnLease(id, presented, op.c() % 25, op.d() % 7 != 0);
  }

  private static long leaseId(Op op, ReferenceLedger model) {
    if (!model.leases.isEmpty() && op.d() % 5 != 0) {
      List<Long> ids = new ArrayList<>(model.leases.keySet());
      return ids.get(op.a() % ids.size());
    }
    long counter = 1 + op.a() % Math.max(1, SlotIds.counterPart(model.nextLeaseId) + 1);
    // Now and then an id from before ids carried slots: the same counter, no slot.
    return op.c() % 4 == 0 ? counter : SlotIds.of(counter, Slots.of("t"));
  }

  /** Rejection messages are prose and not modelled; everything else must match exactly. */
  private static List<Result> normalise(List<Result> results) {
    List<Result> out = new ArrayList<>();
    for (Result r : results) {
      if (r instanceof Result.SlotsRenewed batch) {
        out.add(new Result.SlotsRenewed(batch.renewals().stream()
            .map(n -> new Result.SlotRenewalAnswer(n.outcome(), "", n.retryAfterMillis(),
                n.currentVersion(), n.lease()))
            .toList()));
        continue;
      }
      if (r instanceof Result.LeasesRenewed batch) {
        out.add(new Result.LeasesRenewed(batch.renewals().stream()
            .map(n -> new Result.Renewal(n.outcome(), "", n.retryAfterMillis(),
                n.currentVersion(), n.lease()))
            .toList()));
        continue;
      }
      out.add(r instanceof Result.Rejected j
          ? new Result.Rejected(j.outcome(), "", j.retryAfterMillis(), j.currentVersion())
          : r);
    }
    return out;
  }
}
