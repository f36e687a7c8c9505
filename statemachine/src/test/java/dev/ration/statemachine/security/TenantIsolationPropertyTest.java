package dev.ration.statemachine.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.Fixtures.Driver;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.command.TtlCommand;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QuotaQuery;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import dev.ration.wire.Bytes;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Mode;
import dev.ration.wire.Overage;
import dev.ration.wire.Policy;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.quota.QuotaSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Goal: two tenants' identities, each limited to its own tenant, send random requests of every
 * client command kind, naming their own tenant or the other's and ids drawn from both tenants'
 * live, settled, expired and never-used ids. After every step: a command that names the other
 * tenant (directly, or through an id the other tenant owns) is refused, with the same words as
 * an id that names nothing; and the other tenant's state, read through every query that shows
 * it, is exactly what it was before the step. Real RocksDB; the replica's verify() runs after
 * every entry.
 */
class TenantIsolationPropertyTest {
  private static final String[] TENANTS = {"acme", "bolt"};
  private static final int KINDS = 19;

  /** One request: who sends it, whether it names the sender's own tenant, and what to pick. */
  record Op(int kind, int actor, boolean own, int pick, int x, long advanceMillis) {}

  static final Gen<Op> OP = r -> new Op(r.between(0, KINDS - 1), r.between(0, 1), r.oneIn(3) == false,
      r.between(0, 50), r.between(0, 1000), r.oneIn(6) ? r.between(0, 3_000) : r.between(0, 40));

  @Test
  void noIdentityReachesAnotherTenant() {
    Property.forAll(40, OP.list(1, 60), TenantIsolationPropertyTest::run);
  }

  /** Ids by owner: what a command may name. */
  static final class Pools {
    final Map<String, List<long[]>> leases = new TreeMap<>(); // {leaseId, version}
    final Map<String, List<Long>> reservations = new TreeMap<>();

    Pools() {
      for (String t : TENANTS) {
        leases.put(t, new ArrayList<>());
        reservations.put(t, new ArrayList<>());
      }
    }
  }

  private static void run(List<Op> ops) throws IOException {
    Files.createDirectories(Path.of("target"));
    Path dir = Files.createTempDirectory(Path.of("target"), "isolation-");
    RocksCoordinatorState state = RocksCoordinatorState.open(dir, StateOptions.defaults());
    try {
      Driver d = new Driver(state);
      long now = 10 * 3_600_000L;
      for (String t : TENANTS) {
        d.at(now, new LeaseCommand.SetLimit(new Limit(t, "api", 100, 100, Mode.HARD, 2_000, 500,
            0, Policy.FREE_CAPACITY, 0)));
        d.at(now, new LeaseCommand.SetLimitConcurrency(new Limit(t, "jobs", 0, 0, Mode.HARD,
            2_000, 500, 0, Policy.FREE_CAPACITY, 0), 10));
        d.at(now, new QuotaCommand.SetQuota(new QuotaSpec(t, "calls", QuotaKind.ALLOCATION,
            Window.NONE, 1_000, "calls", 0, Overage.REJECT, 0, 0, 0, "ops", 0, "seed")));
        d.at(now, new TtlCommand.SetNamespace(t + "/ns", 100, 100_000, CapacityPolicy.REJECT));
      }
      Pools pools = new Pools();
      long neverUsed = 9_000_000;
      for (Op op : ops) {
        now += op.advanceMillis();
        if (op.advanceMillis() > 1_000) {
          d.at(now, new Tick(1_000)); // expiries happen between requests, as the leader proposes
        }
        String actor = TENANTS[op.actor()];
        String target = op.own() ? actor : TENANTS[1 - op.actor()];
        String other = TENANTS[1 - op.actor()];
        Command command = command(op, target, pools, neverUsed + op.pick());
        String before = view(state, other, now);
        Result result = d.at(now, SecurityCommand.Authorized.of("svc-" + actor, List.of(actor), command));
        assertEquals(before, view(state, other, now),
            "a command of " + actor + "'s identity changed " + other + "'s state: " + command
                + " answered " + result);
        if (!target.equals(actor)) {
          Result.Denied denied = assertInstanceOf(Result.Denied.class, result,
              actor + " named " + target + ": " + command);
          if (namesAnId(op)) {
            // A refusal for an id tells nothing about it: not even whose it is.
            assertTrue(!denied.message().contains(target), denied.message());
          }
        }
        record(result, command, target.equals(actor) ? actor : null, pools);
      }
    } finally {
      state.close();
    }
  }

  /**
   * A command of {@code op}'s kind naming {@code target}'s tenant, or one of its ids; with
   * {@code op.x()} odd an id-naming command names a never-used id instead.
   */
  private static Command command(Op op, String target, Pools pools, long unused) {
    String scope = target + "/p";
    String ns = target + "/ns";
    List<long[]> leases = pools.leases.get(target);
    List<Long> reservations = pools.reservations.get(target);
    boolean fresh = op.x() % 5 == 0;
    long[] lease = leases.isEmpty() || fresh ? new long[] {unused, 1}
        : leases.get(op.pick() % leases.size());
    long reservation = reservations.isEmpty() || fresh ? unused
        : reservations.get(op.pick() % reservations.size());
    Bytes value = new Bytes(new byte[] {(byte) op.x()});
    return switch (op.kind()) {
      case 0 -> new LeaseCommand.AcquireLease(target, "api", "h" + op.pick() % 3, 10, 10);
      case 1 -> new LeaseCommand.RenewLease(lease[0], lease[1], 10, 10, 5, 0, 0);
      case 2 -> new LeaseCommand.ReturnLease(lease[0], op.x() % 2 == 0 ? lease[1] : lease[1] + 7, 1);
      case 3 -> new LeaseCommand.RenewLeases(List.of(
          new LeaseCommand.RenewLease(lease[0], lease[1], 10, 10, 5, 0, 0)));
      case 4 -> new LeaseCommand.AcquireSlots(target, "jobs", "w" + op.pick() % 3, 2);
      case 5 -> new LeaseCommand.RenewSlots(List.of(
          new LeaseCommand.SlotRenewal(lease[0], lease[1], 1, 0, -1)));
      case 6 -> new LeaseCommand.SetLimit(new Limit(target, "api", 50 + op.x() % 50, 100,
          Mode.HARD, 2_000, 500, 0, Policy.FREE_CAPACITY, 0));
      case 7 -> new TtlCommand.PutEntry(ns, "k" + op.pick() % 4, value, 1_000 + op.x());
      case 8 -> new TtlCommand.CompareAndSetEntry(ns, "k" + op.pick() % 4, op.x() % 3, value, 5_000);
      case 9 -> new TtlCommand.RefreshEntry(ns, "k" + op.pick() % 4, 5_000, 0);
      case 10 -> new TtlCommand.DeleteEntry(ns, "k" + op.pick() % 4, 0);
      case 11 -> new TtlCommand.UpdateEntry(ns, "k" + op.pick() % 4, value, 0);
      case 12 -> new QuotaCommand.Reserve(scope, List.of(new QuotaCommand.Reserve.Item("calls",
          1 + op.x() % 20)), 0, 1_000 + op.x() * 10L);
      case 13 -> new QuotaCommand.CompleteReservation(reservation, List.of((long) op.x() % 20));
      case 14 -> new QuotaCommand.CancelReservation(reservation);
      case 15 -> new QuotaCommand.IngestUsage("e" + op.pick(), 10 * 3_600_000L, scope, "calls",
          1 + op.x() % 5, "calls", op.x() % 2 == 0 ? 0 : reservation);
      case 16 -> new QuotaCommand.SetQuota(new QuotaSpec(target, "calls", QuotaKind.ALLOCATION,
          Window.NONE, 500 + op.x(), "calls", 0, Overage.REJECT, 0, 0, 0, "", 0, "change"));
      case 17 -> new QuotaCommand.Reconcile(scope, "calls", 0, Long.MAX_VALUE / 4, "", "check");
      default -> new TtlCommand.SetNamespace(ns, 100, 100_000, CapacityPolicy.REJECT);
    };
  }

  /** Whether the kind names the target by an id rather than by its tenant or scope. */
  private static boolean namesAnId(Op op) {
    return switch (op.kind()) {
      case 1, 2, 3, 5, 13, 14 -> true;
      default -> false;
    };
  }

  /** Remembers the ids a command of the sender's own tenant created. */
  private static void record(Result result, Command command, String owner, Pools pools) {
    if (owner == null) {
      return;
    }
    if (result instanceof Result.LeaseGranted g) {
      pools.leases.get(owner).add(new long[] {g.lease().leaseId(), g.lease().version()});
    } else if (result instanceof Result.SlotsGranted g) {
      pools.leases.get(owner).add(new long[] {g.lease().leaseId(), g.lease().version()});
    } else if (result instanceof Result.LeaseRenewed r) {
      for (long[] l : pools.leases.get(owner)) {
        if (l[0] == r.lease().leaseId()) {
          l[1] = r.lease().version();
        }
      }
    } else if (result instanceof Result.Quota q && q.result() instanceof QuotaResult.Reserved r) {
      pools.reservations.get(owner).add(r.reservationId());
    }
  }

  /** Everything the queries show of {@code tenant}, as text. */
  private static String view(RocksCoordinatorState state, String tenant, long now) {
    List<Object> parts = new ArrayList<>();
    parts.add(state.query(new Query.GetLimit(tenant, "api"), now));
    parts.add(state.query(new Query.ListLeases(tenant, "api"), now));
    parts.add(state.query(new Query.ListLeases(tenant, "jobs"), now));
    parts.add(state.query(new Query.GetSlots(tenant, "jobs"), now));
    parts.add(state.query(new Query.ListEntries(tenant + "/ns", "", 1_000), now));
    parts.add(state.query(new Query.GetNamespace(tenant + "/ns"), now));
    parts.add(state.query(new Query.Quota(new QuotaQuery.ListQuotas(tenant)), now));
    parts.add(state.query(new Query.Quota(new QuotaQuery.ListReservations(tenant)), now));
    parts.add(state.query(new Query.Quota(new QuotaQuery.AggregateUsage(tenant, "calls", 0,
        Long.MAX_VALUE / 4)), now));
    parts.add(state.query(new Query.Quota(new QuotaQuery.QuotaHistory(tenant, "calls")), now));
    return parts.toString();
  }
}
