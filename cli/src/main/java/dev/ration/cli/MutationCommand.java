package dev.ration.cli;

import dev.ration.cli.ClusterGateway.ClientIdentity;
import java.util.Optional;
import picocli.CommandLine.Mixin;

/**
 * An admin command that changes state. It takes --client-id and --request-id
 * ({@link MutationOptions}), connects as that client and sends its request under that id, so a
 * tester can resend the same request on purpose and get the first answer back.
 */
abstract class MutationCommand extends AdminCommand {
  @Mixin MutationOptions mutation;

  @Override
  Optional<ClientIdentity> clientId() {
    return mutation.clientId();
  }

  /** Checked when {@link #send} asks for it: after the options the request itself is built from. */
  @Override
  Optional<Long> requestId() {
    return mutation.requestId();
  }
}
