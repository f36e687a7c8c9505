package dev.ration.cli;

import dev.ration.wire.lease.Limit;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.cli.ClusterGateway.GatewayException;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** `ration limit ...`: global limits (tenant, resource) -> R, B, mode, lease duration. */
@Command(name = "limit", description = "Create, change and inspect global limits.",
    subcommands = {LimitCommand.Set.class, LimitCommand.Get.class, LimitCommand.ListLimits.class,
        LimitCommand.Slots.class})
final class LimitCommand {
  @picocli.CommandLine.Mixin HelpOption help;

  @Command(name = "set", description = "Create or change a limit (idempotent by --client-id/--request-id).")
  static final class Set extends MutationCommand {
    @Option(names = "--tenant", required = true) String tenant;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--rate", required = true, paramLabel = "N", description = "Refill rate R, tokens per second.")
    long ratePerSecond;
    @Option(names = "--burst", required = true, paramLabel = "N", description = "Burst B, tokens.")
    long burst;
    @Option(names = "--mode", defaultValue = "hard", paramLabel = "hard|best-effort", converter = ModeConverter.class,
        description = "What a holder does when its lease lapses (default: ${DEFAULT-VALUE}).")
    Mode mode;
    @Option(names = "--lease-duration", defaultValue = "10s", paramLabel = "DURATION",
        description = "Lease lifetime (default: ${DEFAULT-VALUE}).")
    String leaseDuration;
    @Option(names = "--grace", defaultValue = "1s", paramLabel = "DURATION",
        description = "Extra time the ledger keeps counting a lapsed lease (default: ${DEFAULT-VALUE}).")
    String grace;
    @Option(names = "--emergency", defaultValue = "0", paramLabel = "N",
        description = "Best-effort emergency budget E per disconnection (default: ${DEFAULT-VALUE}).")
    long emergency;
    @Option(names = "--policy", defaultValue = "free-capacity", paramLabel = "POLICY", converter = PolicyConverter.class,
        description = "Allocation policy: free-capacity, fair-share, proportional or static (default: ${DEFAULT-VALUE}).")
    Policy policy;
    @Option(names = "--expected-version", defaultValue = "0", paramLabel = "V",
        description = "Apply only if the limit's version is V; 0 creates or overwrites (default).")
    long expectedVersion;
    @Option(names = "--concurrency", paramLabel = "N",
        description = "Concurrency cap C: at most N jobs at once over every slot lease (0 removes it; "
            + "without this option the limit keeps the cap it has).")
    Long concurrency;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Limit limit = new Limit(tenant, resource, ratePerSecond, burst, mode,
          durationMillis("--lease-duration", leaseDuration), durationMillis("--grace", grace), emergency,
          policy, expectedVersion);
      if (concurrency != null) {
        if (concurrency < 0) {
          throw new picocli.CommandLine.ParameterException(spec.commandLine(),
              "--concurrency " + concurrency + " must be >= 0");
        }
        Response.SlotLimitReply reply = send(g, new Request.SetLimitConcurrency(limit, concurrency),
            Response.SlotLimitReply.class);
        return printOutcome(reply.outcome(), reply.message(), 0, Views.slotLimitReply(reply));
      }
      Request.SetLimit request = new Request.SetLimit(limit);
      Response.SetLimitReply reply = send(g, request, Response.SetLimitReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, Views.setLimitReply(reply));
    }
  }

  @Command(name = "get", description = "Show one limit with its ledger figures (exit 2 if there is none).")
  static final class Get extends AdminCommand {
    @Option(names = "--tenant", required = true) String tenant;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--stale", description = "Answer from the contacted server's state, without a linearizable read.")
    boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.GetLimitReply reply = send(g, new Request.GetLimit(tenant, resource, stale),
          Response.GetLimitReply.class);
      Fields f = new Fields().put("found", reply.found());
      if (reply.found() && reply.limit() != null) {
        f.put("limit", Views.limit(reply.limit()));
      }
      return printFound(reply.found(), f,
          "LIMIT_UNKNOWN: no limit for tenant '" + tenant + "' resource '" + resource + "'");
    }
  }

  @Command(name = "list", description = "List every limit.")
  static final class ListLimits extends AdminCommand {
    @Option(names = "--stale", description = "Answer from the contacted server's state, without a linearizable read.")
    boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.LimitList reply = send(g, new Request.ListLimits(stale), Response.LimitList.class);
      return printList("limits", reply.limits(), Views::limit, Views.LIMIT_COLUMNS);
    }
  }

  @Command(name = "slots", description = "Show a limit's concurrency cap, slot figures and slot leases (exit 2 if there is no limit).")
  static final class Slots extends AdminCommand {
    @Option(names = "--tenant", required = true) String tenant;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--stale", description = "Answer from the contacted server's state, without a linearizable read.")
    boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.SlotsReply reply = send(g, new Request.GetSlots(tenant, resource, stale),
          Response.SlotsReply.class);
      Fields f = new Fields().put("found", reply.found());
      if (reply.found() && reply.status() != null) {
        f.put("slots", Views.slots(reply.status()));
        f.put("leases", reply.leases().stream().map(Views::slotLease).toList());
      }
      return printFound(reply.found(), f,
          "LIMIT_UNKNOWN: no limit for tenant '" + tenant + "' resource '" + resource + "'");
    }
  }

  /** hard | best-effort (also HARD, best_effort). */
  static final class ModeConverter implements ITypeConverter<Mode> {
    @Override
    public Mode convert(String value) {
      for (Mode m : Mode.values()) {
        if (Views.enumName(m.name()).equalsIgnoreCase(value.replace('_', '-'))) {
          return m;
        }
      }
      throw new TypeConversionException("'" + value + "' is not a mode (hard, best-effort)");
    }
  }

  static final class PolicyConverter implements ITypeConverter<Policy> {
    @Override
    public Policy convert(String value) {
      for (Policy p : Policy.values()) {
        if (Views.enumName(p.name()).equalsIgnoreCase(value.replace('_', '-'))) {
          return p;
        }
      }
      throw new TypeConversionException("'" + value
          + "' is not a policy (free-capacity, fair-share, proportional, static)");
    }
  }
}
