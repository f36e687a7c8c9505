package dev.ration.cli;

import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Identity of a mutation, for testers who resend the same request on purpose: the idempotency key
 * is (client id, request id) (docs/DECISIONS.md), so the same pair returns the first answer.
 * Without them the client library mints fresh ones, and every invocation is a new request.
 */
final class MutationOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--request-id", paramLabel = "N",
      description = "Request id to use (a positive integer); repeat it with the same --client-id to resend.")
  Long requestId;

  @Option(names = "--client-id", paramLabel = "HEX",
      description = "128-bit client id, up to 32 hex digits (a UUID works).")
  String clientIdHex;

  Optional<Long> requestId() {
    if (requestId != null && requestId <= 0) {
      throw new ParameterException(mixee.commandLine(), "--request-id: " + requestId + " must be positive");
    }
    if (requestId != null && clientIdHex == null) {
      throw new ParameterException(mixee.commandLine(),
          "--request-id needs --client-id: a request id alone would be a new request under a fresh client id");
    }
    return Optional.ofNullable(requestId);
  }

  Optional<ClusterGateway.ClientIdentity> clientId() {
    if (clientIdHex == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(ClusterGateway.ClientIdentity.parseHex(clientIdHex));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), "--client-id: " + e.getMessage());
    }
  }
}
