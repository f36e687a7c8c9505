package dev.ration.simulation;

import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.SlotLease;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A deterministic simulation of worker pools sharing a concurrency cap C through slot leases:
 * the real ledger ({@link RocksCoordinatorState}, {@code verify()} after every entry, so I12 is
 * checked at every step) and simulated pools that hold their leases by the rules of the client's
 * {@code LeasedSlots}: the concurrency is the lease's slot share (at most W); a renewal every
 * quarter of the lease duration reports demand = running + queued; a pool starts nothing within
 * its cancel lead of the lease's local end ({@code sent + L·0.98 − 5 ms}) and cancels its running
 * jobs there (the jobs honour cancellation at once).
 *
 * <p>Two holder behaviours are compared. <b>acknowledge</b> (before): renewals carry no release
 * promise, the pool presents the newest version only once its running jobs fit the version's
 * share (so a shrink is two-phase: the old share stays counted until that acknowledgement), and
 * it renews only on its period. <b>release</b> (the client's behaviour): every renewal promises to
 * run at most max(running, min(share, demand)) jobs until it is answered, and a pool whose
 * demand moved away from its share renews early (at most every L/10).
 *
 * <p>Pools' clocks are true time; the network delays every message by a fixed one-way delay.
 * Every millisecond the simulation checks that the jobs running in all pools together never
 * exceed C, nor the slots the ledger counts at that instant.
 */
public final class SlotSimulation {
  /** What to simulate; demand moves from pool 0 to pool 1 at {@code shiftAtMillis}. */
  public record Setup(String name, boolean release, long cap, int pools, int workers,
      long leaseMillis, long graceMillis, long jobMillis, long hotJobsPerSecond,
      long coldJobsPerSecond, long shiftAtMillis, long durationMillis, long oneWayMillis) {}

  /** What one run measured. */
  public record Outcome(String name, long maxConcurrent, long maxAboveCounted,
      long hotShareTo90Millis, long hotRunningTo90Millis, long completed, long ledgerEntries,
      long leaseMillis) {}

  private static final long TICK_EVERY_MILLIS = 20;
  private static final long CANCEL_LEAD_MILLIS = 50;
  private static final long QUEUE = 100;
  private static final String TENANT = "sim";
  private static final String RESOURCE = "pool";

  private final Setup s;
  private final LedgerDir ledger;
  private final RocksCoordinatorState state;
  private final PriorityQueue<long[]> events = new PriorityQueue<>(
      Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
  private final List<Runnable> bodies = new ArrayList<>();
  private long seq;
  private long now;
  private long index;
  private long entries;
  private long requestIds;

  private final class Pool {
    final int id;
    SlotLease lease;
    SlotLease ackable;
    long validUntil;
    int share;
    long inFlightCap = Long.MAX_VALUE;
    boolean inFlight;
    long lastSent = Long.MIN_VALUE / 2;
    long nextRegular = Long.MAX_VALUE;
    long generation;
    long queued;
    long carry;
    final ArrayDeque<Long> running = new ArrayDeque<>(); // end times, ascending

    Pool(int id) {
      this.id = id;
    }

    long demand() {
      return Math.min(s.workers(), running.size() + queued);
    }

    long permits() {
      if (lease == null || now >= validUntil - CANCEL_LEAD_MILLIS) {
        return 0;
      }
      return Math.max(0, Math.min(Math.min(share, s.workers()), inFlightCap));
    }
  }

  private final List<Pool> pools = new ArrayList<>();

  private SlotSimulation(Setup setup) {
    this.s = setup;
    this.ledger = new LedgerDir("ration-slot-sim-");
    this.state = ledger.state;
  }

  /** Runs one setup to the end; the ledger's directory is deleted afterwards. */
  public static Outcome run(Setup setup) {
    SlotSimulation sim = new SlotSimulation(setup);
    try {
      return sim.execute();
    } finally {
      sim.ledger.close();
    }
  }

  private Outcome execute() {
    apply(new NewEpoch("coordinator-1"));
    apply(new SetLimitConcurrency(new Limit(TENANT, RESOURCE, 0, 0, Mode.HARD, s.leaseMillis(),
        s.graceMillis(), 0, Policy.FAIR_SHARE, 0), s.cap()));
    for (int i = 0; i < s.pools(); i++) {
      Pool p = new Pool(i);
      pools.add(p);
      acquire(p);
    }
    at(TICK_EVERY_MILLIS, this::tick);
    long maxConcurrent = 0;
    long maxAbove = Long.MIN_VALUE;
    long shareTo90 = Long.MAX_VALUE;
    long runningTo90 = Long.MAX_VALUE;
    long completed = 0;
    long ninety = (s.cap() * 9 + 9) / 10;
    Pool hot = pools.get(1);
    for (now = 0; now < s.durationMillis(); now++) {
      runEvents();
      for (Pool p : pools) {
        while (!p.running.isEmpty() && p.running.peekFirst() <= now) {
          p.running.pollFirst();
          completed++;
        }
        if (p.lease != null && now >= p.validUntil - CANCEL_LEAD_MILLIS && !p.running.isEmpty()) {
          // The lease is ending: the jobs are cancelled and honour it at once.
          p.running.clear();
        }
        long perSecond = (p.id == 0) == (now < s.shiftAtMillis())
            ? s.hotJobsPerSecond() : s.coldJobsPerSecond();
        p.carry += perSecond;
        p.queued += p.carry / 1000;
        p.carry %= 1000;
        p.queued = Math.min(p.queued, QUEUE); // a full queue turns submissions away
        while (p.queued > 0 && p.running.size() < p.permits()) {
          p.queued--;
          p.running.addLast(now + s.jobMillis());
        }
        maybeEarly(p);
      }
      long concurrent = 0;
      for (Pool p : pools) {
        concurrent += p.running.size();
      }
      long counted = ((QueryResult.SlotAnswer) state.query(new Query.GetSlots(TENANT, RESOURCE), 0))
          .status().orElseThrow().countedSlots();
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      maxAbove = Math.max(maxAbove, concurrent - counted);
      if (now >= s.shiftAtMillis()) {
        long since = now - s.shiftAtMillis();
        if (shareTo90 == Long.MAX_VALUE && hot.lease != null && hot.share >= ninety) {
          shareTo90 = since;
        }
        if (runningTo90 == Long.MAX_VALUE && hot.running.size() >= ninety) {
          runningTo90 = since;
        }
      }
    }
    return new Outcome(s.name(), maxConcurrent, maxAbove,
        shareTo90 == Long.MAX_VALUE ? -1 : shareTo90,
        runningTo90 == Long.MAX_VALUE ? -1 : runningTo90, completed, entries, s.leaseMillis());
  }

  // ---------------------------------------------------------------- holders

  private void acquire(Pool p) {
    long sent = now;
    Command c = new AcquireSlots(TENANT, RESOURCE, "pool-" + p.id, p.demand());
    RequestKey key = new RequestKey(p.id + 1, 7, ++requestIds);
    later(s.oneWayMillis(), () -> {
      Result r = apply(key, c);
      later(s.oneWayMillis(), () -> {
        if (r instanceof Result.SlotsGranted g) {
          install(p, g.lease(), sent);
        } else {
          later(Math.max(1, ((Result.Rejected) r).retryAfterMillis()), () -> acquire(p));
        }
      });
    });
  }

  private void install(Pool p, SlotLease granted, long sent) {
    SlotLease before = p.lease;
    p.lease = granted;
    p.share = (int) Math.min(s.workers(), granted.slotShare());
    p.validUntil = sent + (long) (granted.leaseDurationMillis() * 0.98) - 5;
    p.inFlightCap = Long.MAX_VALUE;
    p.inFlight = false;
    if (before == null || granted.slotShare() >= before.slotShare() || p.ackable == null) {
      p.ackable = granted;
    }
    long gen = ++p.generation;
    p.nextRegular = now + granted.leaseDurationMillis() / 4;
    later(granted.leaseDurationMillis() / 4, () -> {
      if (p.generation == gen) {
        renew(p);
      }
    });
  }

  private void maybeEarly(Pool p) {
    if (!s.release() || p.lease == null || p.inFlight || p.demand() == p.share
        || now < p.lastSent + s.leaseMillis() / 10) {
      return;
    }
    renew(p);
  }

  private void renew(Pool p) {
    if (p.lease == null || p.inFlight) {
      return;
    }
    long sent = now;
    p.inFlight = true;
    p.lastSent = now;
    long running = p.running.size();
    long demand = p.demand();
    long release = SlotRenewal.NO_RELEASE;
    long presented = p.lease.version();
    if (s.release()) {
      long cap = Math.min(p.share, demand);
      release = Math.max(running, cap);
      p.inFlightCap = cap;
    } else {
      // Acknowledge a shrink only once the running jobs fit the smaller share.
      if (running <= p.share) {
        p.ackable = p.lease;
      }
      presented = p.ackable.version();
    }
    SlotLease held = p.lease;
    Command c = new RenewSlots(List.of(new SlotRenewal(held.leaseId(), presented, running,
        Math.max(0, demand - running), release)));
    RequestKey key = new RequestKey(p.id + 1, 7, ++requestIds);
    later(s.oneWayMillis(), () -> {
      Result r = apply(key, c);
      later(s.oneWayMillis(), () -> {
        Result.SlotRenewalAnswer a = ((Result.SlotsRenewed) r).renewals().get(0);
        if (p.lease != held) {
          return;
        }
        if (a.outcome() == dev.ration.wire.Outcome.SUCCESS) {
          install(p, a.lease(), sent);
        } else {
          p.lease = null;
          p.ackable = null;
          p.share = 0;
          p.inFlight = false;
          acquire(p);
        }
      });
    });
  }

  // ---------------------------------------------------------------- coordinator and events

  private Result apply(Command command) {
    return apply(RequestKey.NONE, command);
  }

  private Result apply(RequestKey key, Command command) {
    Batch batch = Batch.of(1_000_000 + now, List.of(new Proposal(key, command)));
    Result result = state.apply(1, index++, batch).get(0);
    state.verify();
    entries++;
    return result;
  }

  private void tick() {
    if (state.nextDueMillis() <= 1_000_000 + now) {
      apply(new Tick(10_000));
    }
    at(now + TICK_EVERY_MILLIS, this::tick);
  }

  private void later(long delayMillis, Runnable body) {
    at(now + delayMillis, body);
  }

  private void at(long atMillis, Runnable body) {
    bodies.add(body);
    events.add(new long[] {atMillis, seq++, bodies.size() - 1});
  }

  private void runEvents() {
    while (!events.isEmpty() && events.peek()[0] <= now) {
      long[] e = events.poll();
      Runnable body = bodies.set((int) e[2], null);
      body.run();
    }
  }

  /**
   * Demand moves from pool 0 to pool 1 at 6 s: C = 20, W = 20, queue 100, L = 1 s, grace
   * 100 ms, 50 ms jobs, 360 jobs/s at the hot pool (18 running) and 20/s at the cold one.
   */
  public static Setup shift(boolean release) {
    return new Setup(release ? "slots shift (release)" : "slots shift (acknowledge)", release,
        20, 2, 20, 1_000, 100, 50, 360, 20, 6_000, 12_000, 10);
  }

  /** The same with 2 s jobs: a shrink waits for long jobs to finish either way. */
  public static Setup shiftLongJobs(boolean release) {
    return new Setup(release ? "slots shift, 2 s jobs (release)"
        : "slots shift, 2 s jobs (acknowledge)", release, 20, 2, 20, 1_000, 100, 2_000, 9, 1,
        6_000, 16_000, 10);
  }

  /** Every setup of the table in docs/benchmarks.md. */
  public static List<Setup> all() {
    return List.of(shift(false), shift(true), shiftLongJobs(false), shiftLongJobs(true));
  }
}
