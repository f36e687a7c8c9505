package dev.ration.cli;

import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.cli.ClusterGateway.GatewayException;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** `ration usage ingest|read|ack|aggregate|reconcile`: the replicated usage log. */
@Command(name = "usage", description = "The usage log: ingest, read with a cursor, aggregate, reconcile.",
    subcommands = {UsageCommand.Ingest.class, UsageCommand.Read.class, UsageCommand.Ack.class,
        UsageCommand.Aggregate.class, UsageCommand.Reconcile.class})
final class UsageCommand {
  @Mixin HelpOption help;

  @Command(name = "ingest", description = "Append a service's own usage event (dropped if its id "
      + "was seen within the retention window).")
  static final class Ingest extends MutationCommand {
    @Option(names = "--event-id", required = true) String eventId;
    @Option(names = "--time", required = true, paramLabel = "MILLIS", description = "Event time.")
    long timeMillis;
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", required = true) String resource;
    @Option(names = "--quantity", required = true) long quantity;
    @Option(names = "--unit", defaultValue = "units") String unit;
    @Option(names = "--reservation", defaultValue = "0") long reservationId;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.IngestReply reply = send(g, new QuotaRequest.IngestUsage(
          eventId, timeMillis, scope, resource, quantity, unit, reservationId),
          QuotaResponse.IngestReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, new Fields()
          .put("outcome", reply.outcome().name()).put("message", reply.message())
          .put("sequence", reply.sequence()).put("duplicate", reply.duplicate()));
    }
  }

  @Command(name = "read", description = "Read records after a consumer's cursor, or from --from.")
  static final class Read extends AdminCommand {
    @Option(names = "--consumer", defaultValue = "") String consumer;
    @Option(names = "--from", defaultValue = "0", paramLabel = "SEQ") long from;
    @Option(names = "--max", defaultValue = "100") int max;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.UsageBatch reply = send(g, new QuotaRequest.ReadUsage(consumer, from, max),
          QuotaResponse.UsageBatch.class);
      return printList("events", reply.events(), QuotaViews::event, QuotaViews.EVENT_COLUMNS);
    }
  }

  @Command(name = "ack", description = "Acknowledge a consumer's cursor up to --sequence.")
  static final class Ack extends MutationCommand {
    @Option(names = "--consumer", required = true) String consumer;
    @Option(names = "--sequence", required = true) long sequence;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.AckReply reply = send(g, new QuotaRequest.AckUsage(consumer, sequence),
          QuotaResponse.AckReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, new Fields()
          .put("outcome", reply.outcome().name()).put("consumer", consumer)
          .put("cursor", reply.cursor()));
    }
  }

  @Command(name = "aggregate", description = "Usage per hour bucket by event time.")
  static final class Aggregate extends AdminCommand {
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", defaultValue = "") String resource;
    @Option(names = "--from", defaultValue = "0", paramLabel = "MILLIS") long from;
    @Option(names = "--to", defaultValue = "9223372036854775807", paramLabel = "MILLIS") long to;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.AggregateReply reply = send(g, new QuotaRequest.AggregateUsage(scope, resource, from, to),
          QuotaResponse.AggregateReply.class);
      return printList("buckets", reply.buckets(), QuotaViews::aggregate, QuotaViews.AGGREGATE_COLUMNS);
    }
  }

  @Command(name = "reconcile", description = "Compare reservations, events and aggregates for a "
      + "period; with --repair, append compensating events (audited).")
  static final class Reconcile extends MutationCommand {
    @Option(names = "--scope", required = true) String scope;
    @Option(names = "--resource", defaultValue = "") String resource;
    @Option(names = "--from", defaultValue = "0", paramLabel = "MILLIS") long from;
    @Option(names = "--to", defaultValue = "9223372036854775807", paramLabel = "MILLIS") long to;
    @Option(names = "--repair") boolean repair;
    @Option(names = "--actor", defaultValue = "cli") String actor;
    @Option(names = "--reason", defaultValue = "") String reason;

    /** Without --repair a reconcile only reads: --request-id is neither checked nor sent. */
    @Override
    Optional<Long> requestId() {
      return repair ? super.requestId() : Optional.empty();
    }

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.ReconcileReply reply = send(g,
          new QuotaRequest.Reconcile(scope, resource, from, to, repair, actor, reason),
          QuotaResponse.ReconcileReply.class);
      return printList("drifts", reply.drifts(), QuotaViews::drift, QuotaViews.DRIFT_COLUMNS);
    }
  }
}
