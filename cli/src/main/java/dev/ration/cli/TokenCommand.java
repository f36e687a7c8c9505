package dev.ration.cli;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.cli.ClusterGateway.GatewayException;
import dev.ration.server.security.Tokens;
import dev.ration.wire.security.TokenView;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * `ration token ...`: bearer tokens. The secret is made here, on the operator's machine, and
 * printed once; the cluster receives only the token's id, a salt and the salted hash.
 */
@Command(name = "token", description = "Create, list and revoke bearer tokens (needs admin).",
    subcommands = {TokenCommand.Create.class, TokenCommand.ListTokens.class, TokenCommand.Revoke.class,
        TokenCommand.Bootstrap.class})
final class TokenCommand {
  @picocli.CommandLine.Mixin HelpOption help;

  static final List<String> COLUMNS =
      List.of("tokenId", "identity", "createdAt", "expiresAt", "createdBy");

  @Command(name = "create", description = "Create a token for an identity and print it once.")
  static final class Create extends MutationCommand {
    @Option(names = "--identity", required = true, paramLabel = "NAME",
        description = "Who the token authenticates as (grant it roles with ration role grant).")
    String identity;
    @Option(names = "--expires", defaultValue = "never", paramLabel = "DURATION|never",
        description = "Lifetime: days (30d) or a duration (12h, 90m); ledger time (default: ${DEFAULT-VALUE}).")
    String expires;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      // Token lifetimes are days more often than hours: "30d" is accepted here besides ms|s|m|h.
      long ttl = expires.equals("never") ? 0
          : expires.trim().matches("\\d{1,6}d")
              ? java.time.Duration.ofDays(Long.parseLong(expires.trim().replace("d", ""))).toMillis()
              : durationMillis("--expires", expires);
      if (!expires.equals("never") && ttl < 1) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--expires: " + expires + " must be at least 1ms, or never");
      }
      Tokens.Minted m = Tokens.mint();
      Response.SecurityChangeReply reply = send(g,
          new Request.CreateToken(m.tokenId(), identity, m.salt(), m.hash(), ttl),
          Response.SecurityChangeReply.class);
      Fields view = new Fields()
          .put("outcome", reply.outcome().name())
          .put("message", reply.message())
          .put("tokenId", String.format("%016x", m.tokenId()))
          .put("identity", identity)
          .put("token", reply.outcome() == dev.ration.wire.Outcome.SUCCESS ? m.text() : "");
      return printOutcome(reply.outcome(), reply.message(), 0, view);
    }
  }

  @Command(name = "list", description = "List tokens: ids, identities, expiry; never secrets.")
  static final class ListTokens extends AdminCommand {
    @Override
    int run(ClusterGateway g) throws GatewayException {
      Response.TokenList reply = send(g, new Request.ListTokens(), Response.TokenList.class);
      return printList("tokens", reply.tokens(), TokenCommand::view, COLUMNS);
    }
  }

  @Command(name = "revoke", description = "Revoke a token: it stops working, on open connections too.")
  static final class Revoke extends MutationCommand {
    @Parameters(paramLabel = "ID", description = "The token id (16 hex digits) or the token itself.")
    String id;

    @Override
    int run(ClusterGateway g) throws GatewayException {
      long tokenId;
      try {
        tokenId = Tokens.parseId(id);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "ID: " + e.getMessage());
      }
      Response.SecurityChangeReply reply = send(g, new Request.RevokeToken(tokenId),
          Response.SecurityChangeReply.class);
      return printOutcome(reply.outcome(), reply.message(), 0, change(reply));
    }
  }

  /**
   * Makes a first administrator's token without a cluster: prints the token (once) and the line
   * that names it, by its salted hash only, in each node's {@code security.bootstrap-tokens}.
   */
  @Command(name = "bootstrap", description = "Make a first administrator's token offline: prints"
      + " the token and the security.bootstrap-tokens entry (a salted hash) for every node's file.")
  static final class Bootstrap implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Mixin HelpOption help;
    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;
    @Option(names = "--identity", defaultValue = "admin", paramLabel = "NAME",
        description = "The administrator's identity (default: ${DEFAULT-VALUE}).")
    String identity;
    @Option(names = "--output", defaultValue = "table", paramLabel = "table|json")
    AdminOptions.Format output;

    @Override
    public Integer call() {
      Tokens.Minted m = Tokens.mint();
      Fields f = new Fields()
          .put("identity", identity)
          .put("tokenId", String.format("%016x", m.tokenId()))
          .put("token", m.text())
          .put("bootstrapToken", identity + "@" + Tokens.hashLine(m));
      java.io.PrintWriter out = spec.commandLine().getOut();
      out.print(output == AdminOptions.Format.json ? f.toJson() + "\n" : Tables.vertical(f));
      out.flush();
      return Exit.OK;
    }
  }

  static Fields view(TokenView t) {
    return new Fields()
        .put("tokenId", String.format("%016x", t.tokenId()))
        .put("identity", t.identity())
        .put("createdAtMillis", t.createdAtMillis())
        .put("expiresAtMillis", t.expiresAtMillis() == TokenView.NEVER ? "never" : t.expiresAtMillis())
        .put("createdBy", t.createdBy());
  }

  static Fields change(Response.SecurityChangeReply r) {
    return new Fields()
        .put("outcome", r.outcome().name())
        .put("message", r.message())
        .put("changed", r.changed())
        .put("auditSequence", r.auditSequence());
  }
}
