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

/** `ration reservation list|complete|cancel`. */
@Command(name = "reservation", description = "Inspect and settle reservations.",
    subcommands = {ReservationCommand.ListReservations.class, ReservationCommand.Complete.class,
        ReservationCommand.Cancel.class})
final class ReservationCommand {
  @ParentCommand RationCli root;
  @Mixin HelpOption help;

  @Command(name = "list", description = "Outstanding reservations at a scope and below.")
  static final class ListReservations extends AdminCommand {
    @ParentCommand ReservationCommand group;
    @Option(names = "--scope", defaultValue = "") String scope;

    @Override
    RationCli root() {
      return group.root;
    }

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.ReservationList reply = QuotaCommand.quotaCall(this, g,
          new QuotaRequest.ListReservations(scope), Optional.empty(),
          QuotaResponse.ReservationList.class);
      printList("reservations", reply.reservations().stream().map(QuotaViews::reservation).toList(),
          QuotaViews.RESERVATION_COLUMNS);
      return Exit.OK;
    }
  }

  @Command(name = "complete", description = "Settle with the actual usage (one usage event per item).")
  static final class Complete extends AdminCommand {
    @ParentCommand ReservationCommand group;
    @Mixin MutationOptions mutation;
    @Option(names = "--id", required = true) long id;
    @Option(names = "--actual", required = true, split = ",", paramLabel = "N[,N...]",
        description = "Actual amount per item, in the reservation's order.")
    List<Long> actuals;

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
      QuotaResponse.SettleReply reply = QuotaCommand.quotaCall(this, g,
          new QuotaRequest.CompleteReservation(id, actuals), mutation.requestId(),
          QuotaResponse.SettleReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, QuotaViews.settleReply(reply));
    }
  }

  @Command(name = "cancel", description = "Settle as unused (quantity 0, one usage event per item).")
  static final class Cancel extends AdminCommand {
    @ParentCommand ReservationCommand group;
    @Mixin MutationOptions mutation;
    @Option(names = "--id", required = true) long id;

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
      QuotaResponse.SettleReply reply = QuotaCommand.quotaCall(this, g,
          new QuotaRequest.CancelReservation(id), mutation.requestId(),
          QuotaResponse.SettleReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, QuotaViews.settleReply(reply));
    }
  }
}
