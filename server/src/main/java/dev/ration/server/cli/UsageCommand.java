package dev.ration.server.cli;

import dev.ration.client.protocol.QuotaRequest;
import dev.ration.client.protocol.QuotaResponse;
import dev.ration.server.cli.ClusterGateway.ClientIdentity;
import dev.ration.server.cli.ClusterGateway.GatewayException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;

/** `ration usage ingest|read|ack|aggregate|reconcile`: the replicated usage log. */
@Command(name = "usage", description = "The usage log: ingest, read with a cursor, aggregate, reconcile.",
    subcommands = {UsageCommand.Ingest.class, UsageCommand.Read.class, UsageCommand.Ack.class,
        UsageCommand.Aggregate.class, UsageCommand.Reconcile.class})
final class UsageCommand {
  @ParentCommand RationCli root;
  @Mixin HelpOption help;

  @Command(name = "ingest", description = "Append a service's own usage event (dropped if its id "
      + "was seen within the retention window).")
  static final class Ingest extends AdminCommand {
    @ParentCommand UsageCommand group;
    @Mixin MutationOptions mutation;
    @Option(names = "--event-id", required = true) String eventId;
    @Option(names = "--time", required = true, paramLabel = "MILLIS", description = "Event time.")
    long timeMillis;
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--quantity", required = true) long quantity;
    @Option(names = "--unit", defaultValue = "units") String unit;
    @Option(names = "--reservation", defaultValue = "0") long reservationId;

    @Override
    RationCli root() {
      return group.root;
    }

    @Override
    Optional<ClientIdentity> clientId() {
      return mutation.clientId();
    }

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.IngestReply reply = QuotaCommand.quotaCall(this, g, new QuotaRequest.IngestUsage(
          eventId, timeMillis, scope, resource, quantity, unit, reservationId), mutation.requestId(),
          QuotaResponse.IngestReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, new Fields()
          .put("outcome", reply.outcome().name()).put("message", reply.message())
          .put("sequence", reply.sequence()).put("duplicate", reply.duplicate()));
    }
  }

  @Command(name = "read", description = "Read records after a consumer's cursor, or from --from.")
  static final class Read extends AdminCommand {
    @ParentCommand UsageCommand group;
    @Option(names = "--consumer", defaultValue = "") String consumer;
    @Option(names = "--from", defaultValue = "0", paramLabel = "SEQ") long from;
    @Option(names = "--max", defaultValue = "100") int max;

    @Override
    RationCli root() {
      return group.root;
    }

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.UsageBatch reply = QuotaCommand.quotaCall(this, g,
          new QuotaRequest.ReadUsage(consumer, from, max), Optional.empty(),
          QuotaResponse.UsageBatch.class);
      printList("events", reply.events().stream().map(QuotaViews::event).toList(),
          QuotaViews.EVENT_COLUMNS);
      return Exit.OK;
    }
  }

  @Command(name = "ack", description = "Acknowledge a consumer's cursor up to --sequence.")
  static final class Ack extends AdminCommand {
    @ParentCommand UsageCommand group;
    @Mixin MutationOptions mutation;
    @Option(names = "--consumer", required = true) String consumer;
    @Option(names = "--sequence", required = true) long sequence;

    @Override
    RationCli root() {
      return group.root;
    }

    @Override
    Optional<ClientIdentity> clientId() {
      return mutation.clientId();
    }

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.AckReply reply = QuotaCommand.quotaCall(this, g,
          new QuotaRequest.AckUsage(consumer, sequence), mutation.requestId(),
          QuotaResponse.AckReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, new Fields()
          .put("outcome", reply.outcome().name()).put("consumer", consumer)
          .put("cursor", reply.cursor()));
    }
  }

  @Command(name = "aggregate", description = "Usage per hour bucket by event time.")
  static final class Aggregate extends AdminCommand {
    @ParentCommand UsageCommand group;
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", defaultValue = "") String resource;
    @Option(names = "--from", defaultValue = "0", paramLabel = "MILLIS") long from;
    @Option(names = "--to", defaultValue = "9223372036854775807", paramLabel = "MILLIS") long to;

    @Override
    RationCli root() {
      return group.root;
    }

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.AggregateReply reply = QuotaCommand.quotaCall(this, g,
          new QuotaRequest.AggregateUsage(scope, resource, from, to), Optional.empty(),
          QuotaResponse.AggregateReply.class);
      printList("buckets", reply.buckets().stream().map(QuotaViews::aggregate).toList(),
          QuotaViews.AGGREGATE_COLUMNS);
      return Exit.OK;
    }
  }

  @Command(name = "reconcile", description = "Compare reservations, events and aggregates for a "
      + "period; with --repair, append compensating events (audited).")
  static final class Reconcile extends AdminCommand {
    @ParentCommand UsageCommand group;
    @Mixin MutationOptions mutation;
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", defaultValue = "") String resource;
    @Option(names = "--from", defaultValue = "0", paramLabel = "MILLIS") long from;
    @Option(names = "--to", defaultValue = "9223372036854775807", paramLabel = "MILLIS") long to;
    @Option(names = "--repair") boolean repair;
    @Option(names = "--actor", defaultValue = "cli") String actor;
    @Option(names = "--reason", defaultValue = "") String reason;

    @Override
    RationCli root() {
      return group.root;
    }

    @Override
    Optional<ClientIdentity> clientId() {
      return mutation.clientId();
    }

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.ReconcileReply reply = QuotaCommand.quotaCall(this, g,
          new QuotaRequest.Reconcile(scope, resource, from, to, repair, actor, reason),
          repair ? mutation.requestId() : Optional.empty(), QuotaResponse.ReconcileReply.class);
      printList("drifts", reply.drifts().stream().map(QuotaViews::drift).toList(),
          QuotaViews.DRIFT_COLUMNS);
      return Exit.OK;
    }
  }
}
