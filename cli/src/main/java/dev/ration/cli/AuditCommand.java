package dev.ration.cli;

import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.cli.ClusterGateway.GatewayException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** `ration audit`: every catalog change and reconciliation repair, with who, when and why. */
@Command(name = "audit", description = "Read the quota audit log.")
final class AuditCommand extends AdminCommand {
  @Option(names = "--from", defaultValue = "1", paramLabel = "SEQ") long from;
  @Option(names = "--max", defaultValue = "100") int max;

  @Override
  int run(ClusterGateway g) throws GatewayException {
    QuotaResponse.AuditList reply = send(g, new QuotaRequest.ReadAudit(from, max),
        QuotaResponse.AuditList.class);
    return printList("audit", reply.records(), QuotaViews::audit, QuotaViews.AUDIT_COLUMNS);
  }
}
