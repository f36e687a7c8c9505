package dev.ration.cli;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.cli.ClusterGateway.GatewayException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** `ration quota ...`: the versioned quota catalog (scope path, resource) -> kind, limit, policy. */
@Command(name = "quota", description = "Create, change and inspect quota catalog entries.",
    subcommands = {QuotaCommand.Set.class, QuotaCommand.Get.class, QuotaCommand.ListQuotas.class,
        QuotaCommand.History.class, QuotaCommand.Budgets.class})
final class QuotaCommand {
  @Mixin HelpOption help;

  @Command(name = "set", description = "Create or change a catalog entry: a new version, audited "
      + "with --actor and --reason (idempotent by --client-id/--request-id).")
  static final class Set extends MutationCommand {
    @Option(names = "--scope", required = true, paramLabel = "org[/tenant[/project]]") String scope;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--kind", required = true, paramLabel = "rate|concurrent|allocation|cumulative")
    String kind;
    @Option(names = "--window", defaultValue = "none", paramLabel = "second|minute|hour|day|week|month",
        description = "Rate window (second..day) or billing period (hour..month); none otherwise.")
    String window;
    @Option(names = "--limit", required = true, paramLabel = "N") long limit;
    @Option(names = "--unit", defaultValue = "units") String unit;
    @Option(names = "--soft", defaultValue = "0", paramLabel = "N",
        description = "Soft threshold: one alert when usage crosses it (0 = none).")
    long soft;
    @Option(names = "--overage", defaultValue = "reject", paramLabel = "reject|allow|overdraft",
        description = "reject: nothing past the limit; allow: up to --overage-max past it, billable; "
            + "overdraft (soft; rate and cumulative): each budget holder cut off from the cluster "
            + "may admit up to --overage-max more, billed as overage.")
    String overage;
    @Option(names = "--overage-max", defaultValue = "0", paramLabel = "N",
        description = "With allow: admitted beyond the limit; with overdraft: each holder's overdraft.")
    long overageMax;
    @Option(names = "--period-start", defaultValue = "0", paramLabel = "MILLIS",
        description = "Cumulative: start of the first billing period (ledger/epoch millis).")
    long periodStart;
    @Option(names = "--expected-version", defaultValue = "0", paramLabel = "V") long expectedVersion;
    @Option(names = "--actor", defaultValue = "cli") String actor;
    @Option(names = "--reason", defaultValue = "") String reason;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      int k = code(QuotaViews.KINDS, "--kind", kind);
      int w = code(QuotaViews.WINDOWS, "--window", window);
      int o = code(QuotaViews.OVERAGES, "--overage", overage);
      QuotaResponse.QuotaSetReply reply = send(g, new QuotaRequest.SetQuota(new QuotaSpec(scope,
          resource, QuotaKind.fromCode(k), Window.fromCode(w), limit, unit, soft,
          Overage.fromCode(o), overageMax, periodStart, expectedVersion, actor, 0,
          reason)), QuotaResponse.QuotaSetReply.class);
      Fields f = new Fields().put("outcome", reply.outcome().name()).put("message", reply.message())
          .put("currentVersion", reply.currentVersion());
      reply.quota().ifPresent(q -> f.put("quota", QuotaViews.quota(q)));
      return printOutcome(reply.outcome(), reply.message(), 0, f);
    }

    private int code(String[] names, String option, String value) {
      int c = QuotaViews.code(names, value);
      if (c < 0) {
        throw new ParameterException(spec.commandLine(), option + ": '" + value + "' is not one of "
            + String.join(", ", java.util.Arrays.stream(names).filter(n -> !n.isEmpty()).toList()));
      }
      return c;
    }
  }

  @Command(name = "get", description = "Show one entry with its usage (exit 2 if there is none).")
  static final class Get extends AdminCommand {
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--stale") boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.QuotaFound reply = send(g, new QuotaRequest.GetQuota(scope, resource, stale),
          QuotaResponse.QuotaFound.class);
      Fields f = new Fields().put("found", reply.quota().isPresent());
      reply.quota().ifPresent(q -> f.put("quota", QuotaViews.quota(q)));
      return printFound(reply.quota().isPresent(), f, "LIMIT_UNKNOWN: no quota for scope '" + scope
          + "' resource '" + resource + "'");
    }
  }

  @Command(name = "list", description = "List entries at a scope and below, with usage.")
  static final class ListQuotas extends AdminCommand {
    @Option(names = "--scope", defaultValue = "", description = "Scope prefix (default: all).") String scope;
    @Option(names = "--stale") boolean stale;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.QuotaList reply = send(g, new QuotaRequest.ListQuotas(scope, stale),
          QuotaResponse.QuotaList.class);
      return printList("quotas", reply.quotas(), QuotaViews::quota, QuotaViews.QUOTA_COLUMNS);
    }
  }

  @Command(name = "history", description = "Every version of one entry, oldest first (who, when, why).")
  static final class History extends AdminCommand {
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", required = true) String resource;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.QuotaList reply = send(g, new QuotaRequest.QuotaHistory(scope, resource),
          QuotaResponse.QuotaList.class);
      return printList("versions", reply.quotas(), QuotaViews::quota, QuotaViews.HISTORY_COLUMNS);
    }
  }

  @Command(name = "budgets", description = "Budgets held (and lapsed, still counted) at a scope "
      + "and below: holder, grant, spend, lease end.")
  static final class Budgets extends AdminCommand {
    @Option(names = "--scope", defaultValue = "", description = "Scope prefix (default: all).") String scope;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.BudgetList reply = send(g, new QuotaRequest.ListBudgets(scope),
          QuotaResponse.BudgetList.class);
      return printList("budgets", reply.budgets(), QuotaViews::budget, QuotaViews.BUDGET_COLUMNS);
    }
  }
}
