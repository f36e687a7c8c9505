package dev.ration.server.cli;

import dev.ration.wire.Outcome;
import dev.ration.client.protocol.Request;
import dev.ration.client.protocol.Response;
import dev.ration.server.cli.ClusterGateway.ClientIdentity;
import dev.ration.server.cli.ClusterGateway.GatewayException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every admin command does: open a gateway to --servers, send, turn protocol errors and
 * domain rejections into the documented exit codes, print the answer as a table or JSON.
 * Subclasses build the request and choose the view. Runs on the picocli thread.
 */
abstract class AdminCommand implements Callable<Integer> {
  @Mixin AdminOptions admin;
  @Mixin HelpOption help;
  @Spec CommandSpec spec;

  /** The root command, which holds the gateway factory. */
  abstract RationCli root();

  /** Runs the command; returns the exit code or throws {@link CliFailure}. */
  abstract int run(ClusterGateway gateway) throws GatewayException;

  /** The client id to connect as: only mutations may choose one. */
  Optional<ClientIdentity> clientId() {
    return Optional.empty();
  }

  @Override
  public Integer call() {
    List<String> servers = admin.servers();
    Duration timeout = admin.timeout();
    Optional<ClientIdentity> id = clientId();
    try (ClusterGateway gateway = root().gatewayFactory().open(servers, timeout, id)) {
      return run(gateway);
    } catch (GatewayException e) {
      throw new CliFailure(e.exitCode(), e.getMessage(), e);
    }
  }

  /** Sends and returns a reply of the expected type, or throws the failure for an error. */
  <T extends Response> T send(ClusterGateway g, Request r, Optional<Long> requestId, Class<T> type)
      throws GatewayException {
    Response reply = g.call(r, requestId);
    if (!type.isInstance(reply)) {
      throw new CliFailure(Exit.INDETERMINATE,
          "unexpected reply to " + r.kind() + ": " + reply.getClass().getSimpleName());
    }
    return type.cast(reply);
  }

  /**
   * Prints a reply that carries a domain outcome, then ends with exit 2 unless it is SUCCESS:
   * a rejection is a definite answer, printed in full so the caller sees retry-after etc.
   */
  int printOutcome(Outcome outcome, String message, long retryAfterMillis, Fields view) {
    print(view);
    if (outcome == Outcome.SUCCESS) {
      return Exit.OK;
    }
    String line = outcome.name() + (message.isEmpty() ? "" : ": " + message)
        + (retryAfterMillis > 0 ? " (retry after " + retryAfterMillis + "ms)" : "");
    throw new CliFailure(Exit.FAILED, line);
  }

  void print(Fields f) {
    PrintWriter out = spec.commandLine().getOut();
    out.print(admin.output == AdminOptions.Format.json ? f.toJson() + "\n" : Tables.vertical(f));
    out.flush();
  }

  void printList(String name, List<Fields> rows, List<String> columns) {
    PrintWriter out = spec.commandLine().getOut();
    if (admin.output == AdminOptions.Format.json) {
      out.print(new Fields().put(name, rows).toJson() + "\n");
    } else {
      out.print(Tables.columns(rows, columns));
    }
    out.flush();
  }
}
