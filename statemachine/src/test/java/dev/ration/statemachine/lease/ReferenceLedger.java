package dev.ration.statemachine.lease;

import dev.ration.wire.placement.SlotIds;
import dev.ration.wire.placement.Slots;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;
import dev.ration.statemachine.command.LeaseCommand.AcquireSlots;
import dev.ration.statemachine.command.LeaseCommand.RenewSlots;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.command.LeaseCommand.SlotRenewal;

import dev.ration.wire.Policy;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.statemachine.command.SlottedIds;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.Tick;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A tiny reference model of the lease ledger: the same semantics (docs/ARCHITECTURE.md, "Time") written plainly,
 * with sums recomputed on demand and no index. Tick is modelled only with a budget large enough
 * to take everything due, since the model has no expiry index to count stale records in.
 * Rejection messages are not modelled (tests compare outcome, retry-after and version).
 *
 * <p>Allocation: free-capacity grants min(demand, free); the demand-driven policies size a
 * lease at min(target, available), where the target is the holder's part of a split over the
 * live holders' last demands. The fair-share split is modelled independently (one unit at a time
 * to the lowest allocation still short of its demand); proportional and static are short
 * formulas written again here.
 *
 * <p>Concurrency slots are modelled from their rules (docs/INVARIANTS.md, I12): a cap per limit
 * beside R and B, a slot share per lease with the same two-phase shrink and ceiling, a slot
 * holder's target split over the live slot holders only, and a renewal's release promise that
 * lowers what is counted at once.
 */
final class ReferenceLedger {
  static final class ModelLimit {
    Limit limit;
    long pool;
    long rateCeiling;
    long burstCeiling;
    long emergencyReported;
    long concurrency;
    long slotCeiling;
  }

  static final class ModelLease {
    long id;
    String tenant;
    String resource;
    String holder;
    long epoch;
    long version;
    long rate;
    long burst;
    long grantedAt;
    long expiresAt;
    long countedUntil;
    long pendingRate;
    long pendingBurst;
    long pendingUntil;
    long demandRate;
    long demandBurst;
    long slots;
    long pendingSlots;
    long demandSlots;

    boolean pending() {
      return pendingRate != 0 || pendingBurst != 0 || pendingSlots != 0;
    }

    long countedSlots() {
      return Math.max(slots, pendingSlots);
    }

    boolean hasSlots() {
      return countedSlots() > 0 || demandSlots > 0;
    }

    long countedRate() {
      return Math.max(rate, pendingRate);
    }

    long countedBurst() {
      return Math.max(burst, pendingBurst);
    }
  }

  record Stored(Result result, long expiresAt, Command command) {}

  final StateOptions options;
  long now;
  long epoch;
  long epochStart;
  /** The stored lease id counter ({@link SlotIds#mint}: plain until a SlottedIds entry). */
  long nextLeaseId = 1;
  long nextVersion = 1;
  final TreeMap<LimitKey, ModelLimit> limits = new TreeMap<>();
  final TreeMap<Long, ModelLease> leases = new TreeMap<>();
  final Map<RequestKey, Stored> idempotency = new HashMap<>();

  ReferenceLedger(StateOptions options) {
    this.options = options;
  }

  List<Result> apply(Batch batch) {
    now = Math.max(now, batch.timeMillis());
    List<Result> out = new ArrayList<>();
    for (Proposal p : batch.proposals()) {
      Stored kept = p.key().isNone() ? null : idempotency.get(p.key());
      if (kept != null && now < kept.expiresAt()) { // answered exactly until it expires
        // Only the request it answered gets the answer; another request under the key is
        // refused and changes nothing (I9).
        out.add(kept.command().equals(p.command()) ? kept.result()
            : new Result.Rejected(Outcome.INVALID_ARGUMENT, "reused request id", 0, 0));
        continue;
      }
      Result r = run(p.command());
      for (ModelLimit l : limits.values()) {
        long[] s = sums(l);
        l.rateCeiling = Math.max(l.limit.ratePerSecond(), Math.min(l.rateCeiling, s[0]));
        l.burstCeiling = Math.max(l.limit.burst(), Math.min(l.burstCeiling, s[1] + l.pool));
        l.slotCeiling = Math.max(l.concurrency, Math.min(l.slotCeiling, s[6]));
      }
      if (!p.key().isNone()) {
        idempotency.put(p.key(), new Stored(r, now + options.idempotencyRetentionMillis(), p.command()));
      }
      out.add(r);
    }
    return out;
  }

  private static Result invalid() {
    return new Result.Rejected(Outcome.INVALID_ARGUMENT, "", 0, 0);
  }

  private boolean badName(String s) {
    int n = s.getBytes(StandardCharsets.UTF_8).length;
    return n < 1 || n > options.maxNameBytes();
  }

  /**
   * [counted rate, counted burst, granted rate, granted burst, pending, leases, counted slots,
   * granted slots].
   */
  long[] sums(ModelLimit l) {
    long[] s = new long[8];
    for (ModelLease x : leases.values()) {
      if (x.tenant.equals(l.limit.tenant()) && x.resource.equals(l.limit.resource())) {
        s[0] += x.countedRate();
        s[1] += x.countedBurst();
        s[2] += x.rate;
        s[3] += x.burst;
        s[4] += x.pending() ? 1 : 0;
        s[5]++;
        s[6] += x.countedSlots();
        s[7] += x.slots;
      }
    }
    return s;
  }

  private long retryAfter(ModelLimit l) {
    long earliest = Long.MAX_VALUE;
    boolean any = false;
    for (ModelLease x : leases.values()) {
      if (x.tenant.equals(l.limit.tenant()) && x.resource.equals(l.limit.resource())) {
        any = true;
        earliest = Math.min(earliest, x.pending() ? x.pendingUntil : x.countedUntil);
      }
    }
    return any ? Math.max(1, earliest - now) : l.limit.leaseDurationMillis();
  }

  private Result run(Command command) {
    long concurrency = -1;
    if (command instanceof SetLimitConcurrency sc) {
      if (sc.concurrency() < 0) {
        return invalid();
      }
      concurrency = sc.concurrency();
      command = new SetLimit(sc.limit());
    }
    if (command instanceof SetLimit set) {
      Limit c = set.limit();
      if (badName(c.tenant()) || badName(c.resource()) || c.ratePerSecond() < 0 || c.burst() < 0
          || c.leaseDurationMillis() < 100 || c.leaseDurationMillis() > 3_600_000
          || c.graceMillis() < 0 || c.graceMillis() > c.leaseDurationMillis() || c.emergency() < 0
          || c.version() < 0) {
        return invalid();
      }
      LimitKey key = new LimitKey(c.tenant(), c.resource());
      ModelLimit l = limits.get(key);
      long current = l == null ? 0 : l.limit.version();
      if (c.version() != 0 && c.version() != current) {
        return new Result.Rejected(Outcome.STALE_CONFIG, "", 0, current);
      }
      if (l == null && limits.size() >= options.maxLimits()) {
        return new Result.Rejected(Outcome.LIMIT_EXHAUSTED, "", 0, 0);
      }
      Limit limit = c.withVersion(nextVersion++);
      if (l == null) {
        l = new ModelLimit();
        l.rateCeiling = limit.ratePerSecond();
        l.burstCeiling = limit.burst();
        limits.put(key, l);
        l.limit = limit;
      } else {
        l.limit = limit;
        l.pool = Math.min(l.pool, Math.max(0, limit.burst() - sums(l)[1]));
      }
      if (concurrency >= 0) {
        l.concurrency = concurrency;
        return new Result.LimitConcurrencySet(limit, concurrency);
      }
      return new Result.LimitSet(limit);
    }
    if (command instanceof AcquireSlots c) {
      if (badName(c.tenant()) || badName(c.resource()) || badName(c.holder())
          || c.demandSlots() < 0) {
        return invalid();
      }
      ModelLimit l = limits.get(new LimitKey(c.tenant(), c.resource()));
      if (l == null) {
        return new Result.Rejected(Outcome.LIMIT_UNKNOWN, "", 0, 0);
      }
      long[] s = sums(l);
      if (s[5] >= options.maxLeasesPerLimit()) {
        return new Result.Rejected(Outcome.LIMIT_EXHAUSTED, "", retryAfter(l), 0);
      }
      long target = slotTarget(l, SlotIds.mint(nextLeaseId, Slots.of(c.tenant())), c.demandSlots());
      long granted = Math.min(target, Math.max(0, l.concurrency - s[6]));
      boolean waiting = l.limit.policy() != Policy.FREE_CAPACITY && target > 0;
      if (c.demandSlots() > 0 && granted == 0 && !waiting) {
        return new Result.Rejected(Outcome.LIMIT_EXHAUSTED, "", retryAfter(l), 0);
      }
      ModelLease x = new ModelLease();
      x.id = SlotIds.mint(nextLeaseId++, Slots.of(c.tenant()));
      x.version = nextVersion++;
      x.tenant = c.tenant();
      x.resource = c.resource();
      x.holder = c.holder();
      x.epoch = epoch;
      x.slots = granted;
      x.demandSlots = c.demandSlots();
      x.grantedAt = now;
      x.expiresAt = now + l.limit.leaseDurationMillis();
      x.countedUntil = x.expiresAt + l.limit.graceMillis();
      leases.put(x.id, x);
      return new Result.SlotsGranted(slotView(x));
    }
    if (command instanceof RenewSlots batch) {
      int n = batch.renewals().size();
      if (n < 1 || n > RenewSlots.MAX_RENEWALS) {
        return invalid();
      }
      List<Result.SlotRenewalAnswer> answers = new ArrayList<>();
      for (SlotRenewal renewal : batch.renewals()) {
        Result r = renewSlots(renewal);
        answers.add(r instanceof Result.Rejected no ? Result.SlotRenewalAnswer.refused(no)
            : Result.SlotRenewalAnswer.granted(((Result.SlotsGranted) r).lease()));
      }
      return new Result.SlotsRenewed(answers);
    }
    if (command instanceof AcquireLease c) {
      if (badName(c.tenant()) || badName(c.resource()) || badName(c.holder())
          || c.demandRatePerSecond() < 0 || c.demandBurst() < 0) {
        return invalid();
      }
      ModelLimit l = limits.get(new LimitKey(c.tenant(), c.resource()));
      if (l == null) {
        return new Result.Rejected(Outcome.LIMIT_UNKNOWN, "", 0, 0);
      }
      long[] s = sums(l);
      if (s[5] >= options.maxLeasesPerLimit()) {
        return new Result.Rejected(Outcome.LIMIT_EXHAUSTED, "", retryAfter(l), 0);
      }
      long freeRate = Math.max(0, l.limit.ratePerSecond() - s[0]);
      long freeBurst = Math.max(0, l.limit.burst() - s[1] - l.pool);
      long[] target = target(l, SlotIds.mint(nextLeaseId, Slots.of(c.tenant())), c.demandRatePerSecond(), c.demandBurst());
      long rate = Math.min(target[0], freeRate);
      long burst = Math.min(target[1], freeBurst);
      boolean waiting = l.limit.policy() != Policy.FREE_CAPACITY && (target[0] > 0 || target[1] > 0);
      if ((c.demandRatePerSecond() > 0 || c.demandBurst() > 0) && rate == 0 && burst == 0
          && !waiting) {
        return new Result.Rejected(Outcome.LIMIT_EXHAUSTED, "", retryAfter(l), 0);
      }
      ModelLease x = new ModelLease();
      x.id = SlotIds.mint(nextLeaseId++, Slots.of(c.tenant()));
      x.version = nextVersion++;
      x.tenant = c.tenant();
      x.resource = c.resource();
      x.holder = c.holder();
      x.epoch = epoch;
      x.rate = rate;
      x.burst = burst;
      x.demandRate = c.demandRatePerSecond();
      x.demandBurst = c.demandBurst();
      x.grantedAt = now;
      x.expiresAt = now + l.limit.leaseDurationMillis();
      x.countedUntil = x.expiresAt + l.limit.graceMillis();
      long start = Math.min(l.pool, burst);
      l.pool -= start;
      leases.put(x.id, x);
      return new Result.LeaseGranted(view(x), start);
    }
    if (command instanceof RenewLeases batch) {
      int n = batch.renewals().size();
      if (n < 1 || n > RenewLeases.MAX_RENEWALS) {
        return invalid();
      }
      List<Result.Renewal> answers = new ArrayList<>();
      for (RenewLease renewal : batch.renewals()) {
        answers.add(Result.Renewal.of(run(renewal)));
      }
      return new Result.LeasesRenewed(answers);
    }
    if (command instanceof RenewLease c) {
      if (c.demandRatePerSecond() < 0 || c.demandBurst() < 0 || c.admittedPerSecond() < 0
          || c.rejectedPerSecond() < 0 || c.emergencyUsed() < 0) {
        return invalid();
      }
      if (c.leaseId() <= 0 || SlotIds.counterOf(c.leaseId()) >= SlotIds.counterPart(nextLeaseId)) {
        return new Result.Rejected(Outcome.LEASE_UNKNOWN, "", 0, 0);
      }
      ModelLease x = leases.get(c.leaseId());
      if (x == null) {
        return new Result.Rejected(Outcome.LEASE_EXPIRED, "", 0, 0);
      }
      if (now >= x.expiresAt) {
        return new Result.Rejected(Outcome.LEASE_EXPIRED, "", 0, x.version);
      }
      if (c.presentedVersion() > x.version) {
        return new Result.Rejected(Outcome.VERSION_MISMATCH, "", 0, x.version);
      }
      ModelLimit l = limits.get(new LimitKey(x.tenant, x.resource));
      long[] s = sums(l);
      long availableRate = x.countedRate() + Math.max(0, l.limit.ratePerSecond() - s[0]);
      long availableBurst = x.countedBurst() + Math.max(0, l.limit.burst() - s[1] - l.pool);
      if (c.presentedVersion() == x.version) {
        x.pendingRate = 0;
        x.pendingBurst = 0;
        x.pendingSlots = 0;
        x.pendingUntil = 0;
      }
      long[] target = target(l, x.id, c.demandRatePerSecond(), c.demandBurst());
      long rate = Math.min(target[0], availableRate);
      long burst = Math.min(target[1], availableBurst);
      x.demandRate = c.demandRatePerSecond();
      x.demandBurst = c.demandBurst();
      if (rate < x.rate || burst < x.burst) {
        x.pendingUntil = x.pending() ? Math.max(x.pendingUntil, x.countedUntil) : x.countedUntil;
        x.pendingRate = Math.max(x.pendingRate, x.rate);
        x.pendingBurst = Math.max(x.pendingBurst, x.burst);
      }
      x.rate = rate;
      x.burst = burst;
      x.version = nextVersion++;
      x.epoch = epoch;
      x.grantedAt = now;
      x.expiresAt = now + l.limit.leaseDurationMillis();
      x.countedUntil = Math.max(x.countedUntil, x.expiresAt + l.limit.graceMillis());
      l.emergencyReported += c.emergencyUsed();
      return new Result.LeaseRenewed(view(x));
    }
    if (command instanceof ReturnLease c) {
      if (c.unusedBalance() < 0) {
        return invalid();
      }
      if (c.leaseId() <= 0 || SlotIds.counterOf(c.leaseId()) >= SlotIds.counterPart(nextLeaseId)) {
        return new Result.Rejected(Outcome.LEASE_UNKNOWN, "", 0, 0);
      }
      ModelLease held = leases.get(c.leaseId());
      if (held != null && c.fenced() && c.presentedVersion() != held.version) {
        return new Result.Rejected(Outcome.VERSION_MISMATCH, "", 0, held.version);
      }
      ModelLease x = leases.remove(c.leaseId());
      if (x == null || now >= x.expiresAt) {
        return new Result.LeaseReturned(c.leaseId(), 0, true);
      }
      ModelLimit l = limits.get(new LimitKey(x.tenant, x.resource));
      long room = Math.max(0, l.limit.burst() - sums(l)[1] - l.pool);
      long credit = Math.min(c.unusedBalance(), Math.min(x.burst, room));
      l.pool += credit;
      return new Result.LeaseReturned(c.leaseId(), credit, false);
    }
    if (command instanceof SlottedIds) {
      nextLeaseId = SlotIds.slottedCounter(nextLeaseId);
      return new Result.IdsSlotted();
    }
    if (command instanceof NewEpoch) {
      epoch++;
      epochStart = now;
      for (ModelLease x : leases.values()) {
        Limit limit = limits.get(new LimitKey(x.tenant, x.resource)).limit;
        long extended = now + limit.leaseDurationMillis() + limit.graceMillis();
        x.countedUntil = Math.max(x.countedUntil, extended);
        if (x.pending()) {
          x.pendingUntil = Math.max(x.pendingUntil, extended);
        }
      }
      return new Result.EpochStarted(epoch, epochStart);
    }
    if (command instanceof Tick) {
      int freed = 0;
      for (Iterator<ModelLease> it = leases.values().iterator(); it.hasNext(); ) {
        ModelLease x = it.next();
        if (x.pending() && x.pendingUntil <= now && x.pendingUntil < x.countedUntil) {
          freed++;
          x.pendingRate = 0;
          x.pendingBurst = 0;
          x.pendingSlots = 0;
          x.pendingUntil = 0;
        }
        if (x.countedUntil <= now) {
          freed++;
          it.remove();
        }
      }
      // Idempotency records are not Tick's: they stop answering at expiresAt, and are dropped
      // by generation.
      return new Result.Ticked(freed);
    }
    throw new IllegalStateException("unmodelled " + command);
  }

  /** One slot renewal, written from the rules rather than from the ledger's code. */
  private Result renewSlots(SlotRenewal c) {
    if (c.running() < 0 || c.queued() < 0 || c.release() < -1) {
      return invalid();
    }
    if (c.leaseId() <= 0 || SlotIds.counterOf(c.leaseId()) >= SlotIds.counterPart(nextLeaseId)) {
      return new Result.Rejected(Outcome.LEASE_UNKNOWN, "", 0, 0);
    }
    ModelLease x = leases.get(c.leaseId());
    if (x == null) {
      return new Result.Rejected(Outcome.LEASE_EXPIRED, "", 0, 0);
    }
    if (now >= x.expiresAt) {
      return new Result.Rejected(Outcome.LEASE_EXPIRED, "", 0, x.version);
    }
    if (c.presentedVersion() > x.version) {
      return new Result.Rejected(Outcome.VERSION_MISMATCH, "", 0, x.version);
    }
    ModelLimit l = limits.get(new LimitKey(x.tenant, x.resource));
    long countedBefore = x.countedSlots();
    long available = countedBefore + Math.max(0, l.concurrency - sums(l)[6]);
    if (c.presentedVersion() == x.version) {
      x.pendingRate = 0;
      x.pendingBurst = 0;
      x.pendingSlots = 0;
      x.pendingUntil = 0;
    }
    long inUse = x.slots;
    if (c.release() >= 0) {
      inUse = Math.min(c.release(), countedBefore);
      x.pendingSlots = 0;
    }
    long demand = c.running() + c.queued();
    long target = Math.min(slotTarget(l, x.id, demand), available);
    if (target < inUse) {
      x.pendingUntil = x.pending() ? Math.max(x.pendingUntil, x.countedUntil) : x.countedUntil;
      x.pendingSlots = Math.max(x.pendingSlots, inUse);
    }
    if (!x.pending()) {
      x.pendingUntil = 0;
    }
    x.slots = target;
    x.demandSlots = demand;
    x.version = nextVersion++;
    x.epoch = epoch;
    x.grantedAt = now;
    x.expiresAt = now + l.limit.leaseDurationMillis();
    x.countedUntil = Math.max(x.countedUntil, x.expiresAt + l.limit.graceMillis());
    return new Result.SlotsGranted(slotView(x));
  }

  /** Slot target: the demand (free-capacity) or the part of C over the live slot holders. */
  long slotTarget(ModelLimit l, long id, long demand) {
    if (l.limit.policy() == Policy.FREE_CAPACITY) {
      return demand;
    }
    List<long[]> holders = new ArrayList<>();
    for (ModelLease x : leases.values()) {
      if (x.tenant.equals(l.limit.tenant()) && x.resource.equals(l.limit.resource())) {
        if (x.id == id) {
          holders.add(new long[] {id, demand});
        } else if (now < x.expiresAt && (x.demandSlots > 0 || x.slots > 0)) {
          holders.add(new long[] {x.id, x.demandSlots});
        }
      }
    }
    if (holders.stream().noneMatch(h -> h[0] == id)) {
      holders.add(new long[] {id, demand});
    }
    long[] demands = new long[holders.size()];
    int self = 0;
    for (int i = 0; i < demands.length; i++) {
      demands[i] = holders.get(i)[1];
      if (holders.get(i)[0] == id) {
        self = i;
      }
    }
    return split(l.limit.policy(), l.concurrency, demands)[self];
  }

  SlotLease slotView(ModelLease x) {
    Limit limit = limits.get(new LimitKey(x.tenant, x.resource)).limit;
    return new SlotLease(x.id, x.tenant, x.resource, x.holder, x.epoch, x.version, x.slots,
        x.countedSlots(), x.grantedAt, x.expiresAt, x.countedUntil, limit.leaseDurationMillis());
  }

  /** The slot status of every limit, in key order. */
  List<SlotStatus> slotStatuses() {
    List<SlotStatus> out = new ArrayList<>();
    for (ModelLimit l : limits.values()) {
      long[] s = sums(l);
      long demand = 0;
      int holders = 0;
      int pending = 0;
      for (ModelLease x : leases.values()) {
        if (x.tenant.equals(l.limit.tenant()) && x.resource.equals(l.limit.resource())
            && x.hasSlots()) {
          holders++;
          pending += x.pendingSlots > x.slots ? 1 : 0;
          demand += now < x.expiresAt ? x.demandSlots : 0;
        }
      }
      out.add(new SlotStatus(l.limit.tenant(), l.limit.resource(), l.concurrency,
          l.limit.version(), s[6], s[7], l.slotCeiling, demand, holders, pending));
    }
    return out;
  }

  /** {rate, burst} target of holder {@code id} (renewing, or about to be minted) with this demand. */
  long[] target(ModelLimit l, long id, long demandRate, long demandBurst) {
    Policy policy = l.limit.policy();
    if (policy == Policy.FREE_CAPACITY) {
      return new long[] {demandRate, demandBurst};
    }
    List<long[]> holders = new ArrayList<>(); // {id, rate, burst}, id order
    for (ModelLease x : leases.values()) {
      if (x.tenant.equals(l.limit.tenant()) && x.resource.equals(l.limit.resource())) {
        if (x.id == id) {
          holders.add(new long[] {id, demandRate, demandBurst});
        } else if (now < x.expiresAt) {
          holders.add(new long[] {x.id, x.demandRate, x.demandBurst});
        }
      }
    }
    if (holders.stream().noneMatch(h -> h[0] == id)) {
      holders.add(new long[] {id, demandRate, demandBurst});
    }
    int self = 0;
    long[] rates = new long[holders.size()];
    long[] bursts = new long[holders.size()];
    for (int i = 0; i < rates.length; i++) {
      rates[i] = holders.get(i)[1];
      bursts[i] = holders.get(i)[2];
      if (holders.get(i)[0] == id) {
        self = i;
      }
    }
    return new long[] {
        split(policy, l.limit.ratePerSecond(), rates)[self],
        split(policy, l.limit.burst(), bursts)[self]};
  }

  static long[] split(Policy policy, long capacity, long[] demands) {
    int n = demands.length;
    long[] out = new long[n];
    switch (policy) {
      case FAIR_SHARE -> {
        return AllocationPropertyTest.unitByUnit(capacity, demands);
      }
      case PROPORTIONAL -> {
        long total = 0;
        for (long d : demands) {
          total += d; // the property test's demands are small
        }
        for (int i = 0; i < n; i++) {
          out[i] = total <= capacity ? demands[i] : capacity * demands[i] / total;
        }
      }
      case STATIC -> {
        for (int i = 0; i < n; i++) {
          out[i] = capacity / n + (i < capacity % n ? 1 : 0);
        }
      }
      default -> throw new IllegalStateException("unmodelled policy " + policy);
    }
    return out;
  }

  LeaseView view(ModelLease x) {
    Limit limit = limits.get(new LimitKey(x.tenant, x.resource)).limit;
    return new LeaseView(x.id, x.tenant, x.resource, x.holder, x.epoch, x.version, x.rate, x.burst,
        x.countedRate(), x.countedBurst(), x.grantedAt, x.expiresAt, x.countedUntil, limit.mode(),
        limit.emergency(), limit.leaseDurationMillis());
  }

  List<LimitStatus> statuses() {
    List<LimitStatus> out = new ArrayList<>();
    for (ModelLimit l : limits.values()) {
      long[] s = sums(l);
      out.add(new LimitStatus(l.limit, s[0], s[1], s[2], s[3], l.pool, (int) s[5], (int) s[4],
          l.rateCeiling, l.burstCeiling, l.emergencyReported, demandSum(l, true),
          demandSum(l, false)));
    }
    return out;
  }

  long demandSum(ModelLimit l, boolean rate) {
    long sum = 0;
    for (ModelLease x : leases.values()) {
      if (x.tenant.equals(l.limit.tenant()) && x.resource.equals(l.limit.resource())
          && now < x.expiresAt) {
        sum += rate ? x.demandRate : x.demandBurst;
      }
    }
    return sum;
  }

  List<LeaseView> views() {
    List<LeaseView> out = new ArrayList<>();
    for (ModelLease x : leases.values()) {
      out.add(view(x));
    }
    return out;
  }
}
