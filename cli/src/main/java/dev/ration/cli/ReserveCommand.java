package dev.ration.cli;

import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.cli.ClusterGateway.GatewayException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * `ration reserve`: checkAndReserve one or more resources all-or-nothing at every level of a
 * scope path. Exit 2 with the refusing level and retry-after when refused.
 */
@Command(name = "reserve", description = "Reserve capacity at every level of a scope path "
    + "(all or nothing; idempotent by --client-id/--request-id).")
final class ReserveCommand extends MutationCommand {
  @Option(names = "--scope", required = true, paramLabel = "org[/tenant[/project]]") String scope;
  @Option(names = "--item", required = true, paramLabel = "RESOURCE=AMOUNT",
      description = "A resource and amount; repeat for several (all or nothing).")
  List<String> items;
  @Option(names = "--ttl", defaultValue = "1m", paramLabel = "DURATION") String ttl;
  @Option(names = "--config-version", defaultValue = "0", paramLabel = "V",
      description = "Catalog version last seen (0 = do not check; else STALE_CONFIG if older).")
  long configVersion;
  @Option(names = "--idempotency-key", paramLabel = "KEY",
      description = "The application's key for this reservation (scoped to --scope): the same key "
          + "and arguments get the first decision back for the reservation's lifetime plus the "
          + "settled retention, from any client; other arguments under it are refused.")
  String idempotencyKey;

  @Override
  int run(ClusterGateway g) throws GatewayException {
    List<QuotaRequest.Item> list = new ArrayList<>();
    for (String item : items) {
      int eq = item.indexOf('=');
      try {
        list.add(new QuotaRequest.Item(item.substring(0, eq), Long.parseLong(item.substring(eq + 1))));
      } catch (RuntimeException e) {
        throw new ParameterException(spec.commandLine(), "--item: '" + item + "' is not RESOURCE=AMOUNT");
      }
    }
    if (idempotencyKey != null && idempotencyKey.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--idempotency-key: empty");
    }
    long ttlMillis = durationMillis("--ttl", ttl);
    QuotaRequest request = idempotencyKey == null
        ? new QuotaRequest.Reserve(scope, list, configVersion, ttlMillis)
        : new QuotaRequest.ReserveKeyed(idempotencyKey, scope, list, configVersion, ttlMillis);
    QuotaResponse.ReserveReply reply = send(g, request, QuotaResponse.ReserveReply.class);
    return printOutcome(reply.outcome(), reply.message(), reply.retryAfterMillis(),
        QuotaViews.reserveReply(reply));
  }
}
