package dev.ration.cli;

import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.cli.ClusterGateway.GatewayException;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** `ration reservation list|complete|cancel`. */
@Command(name = "reservation", description = "Inspect and settle reservations.",
    subcommands = {ReservationCommand.ListReservations.class, ReservationCommand.Complete.class,
        ReservationCommand.Cancel.class})
final class ReservationCommand {
  @Mixin HelpOption help;

  @Command(name = "list", description = "Outstanding reservations at a scope and below.")
  static final class ListReservations extends AdminCommand {
    @Option(names = "--scope", defaultValue = "") String scope;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.ReservationList reply = send(g, new QuotaRequest.ListReservations(scope),
          QuotaResponse.ReservationList.class);
      return printList("reservations", reply.reservations(), QuotaViews::reservation,
          QuotaViews.RESERVATION_COLUMNS);
    }
  }

  @Command(name = "complete", description = "Settle with the actual usage (one usage event per item).")
  static final class Complete extends MutationCommand {
    @Option(names = "--id", required = true) long id;
    @Option(names = "--actual", required = true, split = ",", paramLabel = "N[,N...]",
        description = "Actual amount per item, in the reservation's order.")
    List<Long> actuals;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.SettleReply reply = send(g, new QuotaRequest.CompleteReservation(id, actuals),
          QuotaResponse.SettleReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, QuotaViews.settleReply(reply));
    }
  }

  @Command(name = "cancel", description = "Settle as unused (quantity 0, one usage event per item).")
  static final class Cancel extends MutationCommand {
    @Option(names = "--id", required = true) long id;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      QuotaResponse.SettleReply reply = send(g, new QuotaRequest.CancelReservation(id),
          QuotaResponse.SettleReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, QuotaViews.settleReply(reply));
    }
  }
}
