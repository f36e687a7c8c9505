package dev.ration.cli;

import dev.ration.wire.lease.LeaseView;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.cli.ClusterGateway.GatewayException;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * `ration lease ...`: the lease protocol by hand, for operators inspecting the ledger and for
 * testers driving it (a region's limiter normally does this through the client library).
 */
@Command(name = "lease", description = "Acquire, renew, return and list leases.",
    subcommands = {LeaseCommand.Acquire.class, LeaseCommand.Renew.class, LeaseCommand.Return.class,
        LeaseCommand.ListLeases.class})
final class LeaseCommand {
  @Mixin HelpOption help;

  @Command(name = "acquire", description = "Acquire a new lease for a holder (exit 2 on LIMIT_EXHAUSTED etc.).")
  static final class Acquire extends MutationCommand {
    @Option(names = "--tenant", required = true) String tenant;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--holder", required = true, description = "Region or replica that will hold the lease.") String holder;
    @Option(names = "--rate", paramLabel = "N", description = "Demanded rate, tokens per second (with --burst).")
    Long rate;
    @Option(names = "--burst", paramLabel = "N", description = "Demanded burst, tokens (with --rate).")
    Long burst;
    @Option(names = "--slots", paramLabel = "N",
        description = "Instead of --rate/--burst: a lease of concurrency slots, demanding N (running + queued jobs).")
    Long slots;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      if (slots != null) {
        if (rate != null || burst != null) {
          throw new picocli.CommandLine.ParameterException(spec.commandLine(),
              "give either --slots or --rate and --burst, not both");
        }
        Response.SlotLeaseReply r = send(g, new Request.AcquireSlots(tenant, resource, holder, slots),
            Response.SlotLeaseReply.class);
        return printOutcome(r.outcome(), r.message(), r.retryAfterMillis(), Views.slotLeaseReply(r));
      }
      if (rate == null || burst == null) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "give --rate and --burst (a rate lease) or --slots (a slot lease)");
      }
      Response.LeaseReply r = send(g, new Request.AcquireLease(tenant, resource, holder, rate, burst),
          Response.LeaseReply.class);
      return printOutcome(r.outcome(), r.message(), r.retryAfterMillis(), Views.leaseReply(r));
    }
  }

  /**
   * Renews a lease. Without --rate/--burst the demand is the lease's current shares (looked up
   * first with a linearizable list), so a bare renew extends the lease without shrinking it.
   */
  @Command(name = "renew", description = "Renew a lease, presenting its version; optionally report a new demand.")
  static final class Renew extends MutationCommand {
    @Option(names = "--lease-id", required = true, paramLabel = "ID") long leaseId;
    @Option(names = "--version", required = true, paramLabel = "V", description = "Version the holder has (acknowledges it).")
    long version;
    @Option(names = "--rate", paramLabel = "N", description = "Demanded rate (default: the lease's current rate share).")
    Long rate;
    @Option(names = "--burst", paramLabel = "N", description = "Demanded burst (default: the lease's current burst share).")
    Long burst;
    @Option(names = "--admitted", defaultValue = "0", paramLabel = "N", description = "Reported admissions per second.")
    long admittedPerSecond;
    @Option(names = "--rejected", defaultValue = "0", paramLabel = "N", description = "Reported rejections per second.")
    long rejectedPerSecond;
    @Option(names = "--emergency-used", defaultValue = "0", paramLabel = "N", description = "Emergency budget spent while disconnected.")
    long emergencyUsed;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      long demandRate;
      long demandBurst;
      if (rate != null && burst != null) {
        demandRate = rate;
        demandBurst = burst;
      } else {
        // A read: it must not take the renewal's request id.
        Response.LeaseList all = send(g, new Request.ListLeases("", "", false), Optional.empty(), Response.LeaseList.class);
        Optional<LeaseView> current = all.leases().stream().filter(l -> l.leaseId() == leaseId).findFirst();
        if (current.isEmpty()) {
          throw new CliFailure(Exit.FAILED, "LEASE_UNKNOWN: no live lease " + leaseId
              + " (give --rate and --burst to send the renewal anyway)");
        }
        demandRate = rate != null ? rate : current.get().rateShare();
        demandBurst = burst != null ? burst : current.get().burstShare();
      }
      Request.RenewLease request = new Request.RenewLease(
          leaseId, version, demandRate, demandBurst, admittedPerSecond, rejectedPerSecond, emergencyUsed);
      Response.LeaseReply r = send(g, request, Response.LeaseReply.class);
      return printOutcome(r.outcome(), r.message(), r.retryAfterMillis(), Views.leaseReply(r));
    }
  }

  @Command(name = "return", description = "Return a lease (the holder has invalidated its bucket first).")
  static final class Return extends MutationCommand {
    @Option(names = "--lease-id", required = true, paramLabel = "ID") long leaseId;
    @Option(names = "--version", required = true, paramLabel = "V") long version;
    @Option(names = "--unused", defaultValue = "0", paramLabel = "N", description = "Unused balance handed back (default: 0).")
    long unused;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.ReturnReply r = send(g, new Request.ReturnLease(leaseId, version, unused), Response.ReturnReply.class);
      return printOutcome(r.outcome(), r.message(), 0, Views.returnReply(r));
    }
  }

  @Command(name = "list", description = "List live leases, optionally of one tenant and resource.")
  static final class ListLeases extends AdminCommand {
    @Option(names = "--tenant", defaultValue = "", description = "Only this tenant (with --resource).") String tenant;
    @Option(names = "--resource", defaultValue = "", description = "Only this resource (with --tenant).") String resource;
    @Option(names = "--stale", description = "Answer from the contacted server's state, without a linearizable read.")
    boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      if (tenant.isEmpty() != resource.isEmpty()) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "give both --tenant and --resource, or neither");
      }
      Response.LeaseList r = send(g, new Request.ListLeases(tenant, resource, stale), Response.LeaseList.class);
      return printList("leases", r.leases(), Views::lease, Views.LEASE_COLUMNS);
    }
  }
}
