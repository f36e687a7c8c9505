package dev.ration.cli;

import dev.ration.client.tls.ClientTls;

import dev.ration.protocol.Kind;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.cli.ClusterGateway.ClientIdentity;
import dev.ration.cli.ClusterGateway.GatewayException;
import dev.ration.server.config.Quantities;
import dev.ration.wire.Outcome;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What every admin command does: open a gateway to --servers, send, turn protocol errors and
 * domain rejections into the documented exit codes, print the answer as a table or JSON. A leaf
 * command declares its own options and implements {@link #run}: build the request, {@code send}
 * it, and end with one of the {@code print} methods. A command that changes state extends
 * {@link MutationCommand} instead, which adds --client-id and --request-id. Runs on the picocli
 * thread.
 */
abstract class AdminCommand implements Callable<Integer> {
  @Mixin AdminOptions admin;
  @Mixin HelpOption help;
  @Spec CommandSpec spec;

  /** The open gateway while {@link #run} runs: {@link #ledgerClock} reads the cluster's clock through it. */
  private ClusterGateway gateway;

  /** Runs the command; returns the exit code or throws {@link CliFailure}. */
  abstract int run(ClusterGateway gateway) throws GatewayException;

  /** The client id to connect as: only mutations may choose one. */
  Optional<ClientIdentity> clientId() {
    return Optional.empty();
  }

  /** The idempotency id {@link #send} puts on the request; when empty the client mints one. */
  Optional<Long> requestId() {
    return Optional.empty();
  }

  @Override
  public final Integer call() {
    List<String> servers = admin.servers();
    Duration timeout = admin.timeout();
    Optional<ClientIdentity> id = clientId();
    Optional<ClientTls> tls = admin.tls();
    // Every command runs under RationCli, which holds the gateway factory (tests pass a fake).
    RationCli root = (RationCli) spec.root().userObject();
    String token = admin.token();
    try (ClusterGateway gateway = root.gatewayFactory().open(servers, timeout, id, tls, token)) {
      this.gateway = gateway;
      return run(gateway);
    } catch (GatewayException e) {
      throw new CliFailure(e.exitCode(), e.getMessage(), e);
    }
  }

  /** Sends under this command's {@link #requestId} and returns a reply of the expected type. */
  <T extends Response> T send(ClusterGateway g, Request r, Class<T> type) throws GatewayException {
    return send(g, r, requestId(), type);
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

  /** Sends a quota request (as {@link #send(ClusterGateway, Request, Class)}) and unwraps its reply. */
  <T extends QuotaResponse> T send(ClusterGateway g, QuotaRequest r, Class<T> type)
      throws GatewayException {
    return unwrap(r.kind(), send(g, new Request.Quota(r), Response.Quota.class).response(), type);
  }

  /** Sends a TTL request (as {@link #send(ClusterGateway, Request, Class)}) and unwraps its reply. */
  <T extends TtlResponse> T send(ClusterGateway g, TtlRequest r, Class<T> type)
      throws GatewayException {
    return unwrap(r.kind(), send(g, new Request.Ttl(r), Response.Ttl.class).response(), type);
  }

  private static <T> T unwrap(Kind kind, Object reply, Class<T> type) {
    if (!type.isInstance(reply)) {
      throw new CliFailure(Exit.INDETERMINATE,
          "unexpected reply to " + kind + ": " + reply.getClass().getSimpleName());
    }
    return type.cast(reply);
  }

  /** A duration option (e.g. 500ms, 10s) in milliseconds; a usage error names {@code option}. */
  long durationMillis(String option, String text) {
    try {
      return Quantities.parseDuration(text).toMillis();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
    }
  }

  /**
   * A TTL option: a duration (30s, 10m, as everywhere), or, as before durations had units, a
   * bare number of milliseconds; {@code -1} (no expiry) where {@code noExpiry} allows it.
   */
  long ttlMillis(String option, String text, boolean noExpiry) {
    try {
      return parseTtlMillis(text, noExpiry);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
    }
  }

  /** As {@link #ttlMillis}, for commands that are not admin commands (`ration bench`). */
  static long parseTtlMillis(String text, boolean noExpiry) {
    String t = text.trim();
    if (t.equals("-1")) {
      if (!noExpiry) {
        throw new IllegalArgumentException("-1 (no expiry) is not allowed here");
      }
      return -1;
    }
    if (t.matches("\\d{1,18}")) {
      return Long.parseLong(t);
    }
    return Quantities.parseDuration(t).toMillis();
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
        + (retryAfterMillis > 0 ? " (retry after " + Tables.duration(retryAfterMillis) + ")" : "");
    throw new CliFailure(Exit.FAILED, line);
  }

  /**
   * Prints the answer to a lookup of one thing. A miss is printed too (it says found: false), and
   * then ends with exit 2 and {@code missing} on stderr.
   */
  int printFound(boolean found, Fields view, String missing) {
    print(view);
    if (!found) {
      throw new CliFailure(Exit.FAILED, missing);
    }
    return Exit.OK;
  }

  /** Prints {@code items} as a table of {@code columns}, or as the JSON array {@code name}. */
  <T> int printList(String name, List<T> items, Function<? super T, Fields> view, List<String> columns) {
    return printList(name, items.stream().<Fields>map(view).toList(), columns);
  }

  int printList(String name, List<Fields> rows, List<String> columns) {
    return printList(name, rows, columns, OptionalLong.empty());
  }

  /**
   * As above, for a list read at ledger time {@code readAtMillis} when the answer says: its
   * instants are computed from that reading instead of a separate one.
   */
  int printList(String name, List<Fields> rows, List<String> columns, OptionalLong readAtMillis) {
    Fields all = new Fields().put(name, rows);
    Optional<LedgerClock> clock = ledgerClock(all, readAtMillis);
    all = Instants.add(all, clock);
    PrintWriter out = spec.commandLine().getOut();
    if (admin.output == AdminOptions.Format.json) {
      out.print(all.toJson() + "\n");
    } else {
      @SuppressWarnings("unchecked")
      List<Fields> shown = (List<Fields>) all.get(name);
      out.print(Tables.columns(shown, columns));
    }
    out.flush();
    return Exit.OK;
  }

  void print(Fields f) {
    OptionalLong readAt = f.get("readAtMillis") instanceof Long n && n >= 0 ? OptionalLong.of(n) : OptionalLong.empty();
    Optional<LedgerClock> clock = ledgerClock(f, readAt);
    Fields shown = Instants.add(f, clock);
    PrintWriter out = spec.commandLine().getOut();
    out.print(admin.output == AdminOptions.Format.json ? shown.toJson() + "\n" : Tables.vertical(shown, clock));
    out.flush();
  }

  /**
   * How to turn the ledger times in {@code f} into instants: from the ledger time the answer was
   * read at, if it says, else from one reading of the cluster's clock (the leader's, when it can
   * be asked), taken only when there is a ledger time to show. Without a reading (the cluster
   * stopped answering after the command's own answer), the ledger times are shown alone, with a
   * warning.
   */
  private Optional<LedgerClock> ledgerClock(Fields f, OptionalLong readAtMillis) {
    RationCli root = (RationCli) spec.root().userObject();
    if (readAtMillis.isPresent()) {
      return Optional.of(new LedgerClock(readAtMillis.getAsLong(), root.wallClock().instant()));
    }
    if (gateway == null || !Instants.needsClock(f)) {
      return Optional.empty();
    }
    try {
      long ledgerNow = gateway.ledgerNowMillis();
      return Optional.of(new LedgerClock(ledgerNow, root.wallClock().instant()));
    } catch (GatewayException e) {
      PrintWriter err = spec.commandLine().getErr();
      err.println("warning: times are in ledger milliseconds only: could not read the cluster's clock: "
          + e.getMessage());
      err.flush();
      return Optional.empty();
    }
  }
}
