package dev.ration.cli;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.Limit;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;

/** Runs the CLI in-process with captured stdout/stderr and a scripted gateway. */
final class CliHarness {
  /** What one invocation printed and returned. */
  record Run(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  /** Answers a request (or throws, to script a failure). */
  @FunctionalInterface
  interface Script {
    Response answer(Request request) throws ClusterGateway.GatewayException;
  }

  /** A gateway whose answers come from a script; records what it was asked. */
  static class FakeGateway implements ClusterGateway {
    final List<Request> requests = new ArrayList<>();
    final List<Optional<Long>> requestIds = new ArrayList<>();
    final List<String> statusAddresses = new ArrayList<>();
    List<String> servers = List.of();
    Duration timeout = Duration.ZERO;
    Optional<ClientIdentity> clientId = Optional.empty();
    boolean closed;
    Script script = r -> {
      throw new AssertionError("unexpected request " + r);
    };
    StatusScript statusScript = a -> {
      throw new AssertionError("unexpected status call " + a);
    };
    /** The cluster's ledger time, read when a command shows ledger times as instants. */
    long ledgerNow = LEDGER_NOW;
    int clockReads;

    @FunctionalInterface
    interface StatusScript {
      Response.ClusterStatusReply answer(String address) throws GatewayException;
    }

    @Override
    public Response call(Request request, Optional<Long> requestId) throws GatewayException {
      requests.add(request);
      requestIds.add(requestId);
      return script.answer(request);
    }

    @Override
    public Response.ClusterStatusReply status(String address) throws GatewayException {
      statusAddresses.add(address);
      return statusScript.answer(address);
    }

    @Override
    public long ledgerNowMillis() throws GatewayException {
      clockReads++;
      return ledgerNow;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** The scripted cluster's ledger time, read at {@link #WALL_NOW} on this machine's clock. */
  static final long LEDGER_NOW = 10_000;
  static final java.time.Instant WALL_NOW = java.time.Instant.parse("2026-12-06T07:20:00Z");

  final FakeGateway gateway;

  CliHarness() {
    this(new FakeGateway());
  }

  /** With a gateway of the test's own (one that overrides what the scripts cannot). */
  CliHarness(FakeGateway gateway) {
    this.gateway = gateway;
  }
  NodeLauncher launcher = (c, join) -> {
    throw new AssertionError("unexpected server start " + c);
  };

  Run run(String... args) {
    CommandLine cl = RationCli.commandLine((servers, timeout, clientId) -> {
      gateway.servers = servers;
      gateway.timeout = timeout;
      gateway.clientId = clientId;
      return gateway;
    }, (config, join) -> launcher.start(config, join),
        // As `ration` builds it: only the named command's model (NamedCommandOnly).
        NamedCommandOnly.forArgs(args));
    ((RationCli) cl.getCommandSpec().userObject())
        .wallClock(java.time.Clock.fixed(WALL_NOW, java.time.ZoneOffset.UTC));
    return capture(cl, args);
  }

  /** As {@link #run}, through the helper's own capture (CliHelper.run): bytes as a direct run prints them. */
  CliHelper.Result runBytes(String... args) {
    return CliHelper.run(args, (servers, timeout, clientId) -> {
      gateway.servers = servers;
      gateway.timeout = timeout;
      gateway.clientId = clientId;
      return gateway;
    });
  }

  static Run capture(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  static LimitStatus limit(String tenant, String resource, long rate, long burst, long version) {
    return new LimitStatus(
        new Limit(tenant, resource, rate, burst, Mode.HARD, 10_000, 1_000, 0, Policy.FREE_CAPACITY,
            version),
        0, 0, 0, 0, 0, 0, 0, rate, burst, 0);
  }

  static LeaseView lease(long id, String holder, long rate, long burst, long version) {
    return new LeaseView(id, "acme", "api", holder, 1, version, rate, burst, rate, burst,
        1_000, 11_000, 12_000, Mode.HARD, 0, 10_000);
  }
}
