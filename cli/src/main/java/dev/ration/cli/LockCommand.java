package dev.ration.cli;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.cli.ClusterGateway.GatewayException;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * `ration lock acquire|release`: a lock is a TTL entry (in namespace "locks" unless
 * --namespace names a tenant's own, e.g. acme/locks) created by
 * compare-and-set with expected version 0; its version is the fencing token (docs/TTL.md).
 * acquire exits 2 when the lock is held (printing the holder's token); release needs the token.
 */
@Command(name = "lock", description = "Acquire and release TTL locks with fencing tokens.",
    subcommands = {LockCommand.Acquire.class, LockCommand.Release.class})
final class LockCommand {
  static final String NAMESPACE = "locks";

  @Mixin HelpOption help;

  abstract static class LockMutation extends MutationCommand {
    /** A TTL call whose unexpected-reply error names only the request kind, as lock errors do. */
    <T extends TtlResponse> T ttl(ClusterGateway g, TtlRequest request, Class<T> type)
        throws GatewayException {
      Response.Ttl reply = send(g, new Request.Ttl(request), Response.Ttl.class);
      if (!type.isInstance(reply.response())) {
        throw new CliFailure(Exit.INDETERMINATE, "unexpected reply to " + request.kind());
      }
      return type.cast(reply.response());
    }
  }

  @Command(name = "acquire", description = "Take the lock if free; prints the fencing token (exit 2 if held).")
  static final class Acquire extends LockMutation {
    @Parameters(index = "0", paramLabel = "NAME") String name;
    @Option(names = "--namespace", defaultValue = NAMESPACE, paramLabel = "NAMESPACE",
        description = "Namespace of the lock's entry (default: ${DEFAULT-VALUE}; a tenant's own is <tenant>/locks).")
    String namespace;
    @Option(names = "--owner", required = true) String owner;
    @Option(names = "--ttl", required = true, paramLabel = "DURATION",
        description = "How long the lock lives unless refreshed, e.g. 30s (a bare number is milliseconds).")
    String ttl;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      long ttlMillis = ttlMillis("--ttl", ttl, false);
      TtlResponse.WriteReply r = ttl(g, new TtlRequest.CompareAndSet(namespace, name, 0,
          owner.getBytes(StandardCharsets.UTF_8), ttlMillis), TtlResponse.WriteReply.class);
      Fields f = new Fields().put("outcome", r.outcome() == Outcome.VERSION_MISMATCH ? "HELD" : r.outcome().name())
          .put("lock", name).put("owner", owner)
          .put("fencingToken", r.outcome() == Outcome.SUCCESS ? r.version() : 0)
          .put("expiresAtMillis", r.expiresAtMillis())
          .put("heldByToken", r.outcome() == Outcome.VERSION_MISMATCH ? r.currentVersion() : 0);
      return printOutcome(r.outcome(), r.outcome() == Outcome.VERSION_MISMATCH
          ? "lock " + name + " is held (token " + r.currentVersion() + ")" : r.message(), 0, f);
    }
  }

  @Command(name = "release", description = "Release the lock held under --token (exit 2 if it lapsed or is someone else's).")
  static final class Release extends LockMutation {
    @Parameters(index = "0", paramLabel = "NAME") String name;
    @Option(names = "--namespace", defaultValue = NAMESPACE, paramLabel = "NAMESPACE",
        description = "Namespace of the lock's entry (default: ${DEFAULT-VALUE}).")
    String namespace;
    @Option(names = "--token", required = true, paramLabel = "FENCING_TOKEN") long token;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      if (token <= 0) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--token: " + token + " must be positive");
      }
      TtlResponse.DeleteReply r = ttl(g, new TtlRequest.Delete(namespace, name, token),
          TtlResponse.DeleteReply.class);
      Fields f = new Fields().put("outcome", r.outcome().name()).put("lock", name)
          .put("released", r.outcome() == Outcome.SUCCESS && r.existed())
          .put("currentToken", r.currentVersion());
      return printOutcome(r.outcome(), r.message(), 0, f);
    }
  }
}
