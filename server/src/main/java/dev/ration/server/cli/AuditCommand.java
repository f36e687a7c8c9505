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

/** `ration audit`: every catalog change and reconciliation repair, with who, when and why. */
@Command(name = "audit", description = "Read the quota audit log.")
final class AuditCommand extends AdminCommand {
  @ParentCommand RationCli root;
  @Option(names = "--from", defaultValue = "1", paramLabel = "SEQ") long from;
  @Option(names = "--max", defaultValue = "100") int max;

  @Override
  RationCli root() {
    return root;
  }

  @Override
  int run(ClusterGateway g) throws GatewayException {
    QuotaResponse.AuditList reply = QuotaCommand.quotaCall(this, g,
        new QuotaRequest.ReadAudit(from, max), Optional.empty(), QuotaResponse.AuditList.class);
    printList("audit", reply.records().stream().map(QuotaViews::audit).toList(),
        QuotaViews.AUDIT_COLUMNS);
    return Exit.OK;
  }
}
