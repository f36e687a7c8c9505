package dev.ration.client.transport;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Not API: a client's requests and replies as wire records, for tools that speak the protocol
 * itself (the command line, the load generator, the Jepsen workloads, protocol tests). Services
 * use the typed methods of {@code RationClient} instead, which keep working when a wire record
 * changes.
 *
 * <p>{@link #of} reaches the transport of a {@code RationClient} without a public method on
 * it: {@code RationClient} installs the way in when its class is initialized, which has happened
 * by the time anyone holds one.
 */
public interface RawClient extends Transport {

  /**
   * Sends {@code request} under a fresh request id; retries keep that id.
   *
   * @param request the request
   * @param deadline how long all attempts together may take
   * @return the reply (never an error reply) or a {@link CallFailure}
   */
  CompletableFuture<Response> call(Request request, Duration deadline);

  /**
   * Sends {@code request} under an explicit request id (testers resend an id on purpose).
   *
   * @param requestId the request id
   * @param request the request
   * @param deadline how long all attempts together may take
   * @return the reply (never an error reply) or a {@link CallFailure}
   */
  CompletableFuture<Response> call(long requestId, Request request, Duration deadline);

  /**
   * The status of exactly the node at {@code address}, over a dedicated connection.
   *
   * @param address host:port of the node's client endpoint
   * @return its status reply
   */
  CompletableFuture<Response.ClusterStatusReply> clusterStatus(String address);

  /**
   * The raw transport of {@code client}, a {@code RationClient}.
   *
   * @param client a {@code RationClient}
   * @return its transport
   * @throws IllegalArgumentException if {@code client} is not a {@code RationClient}
   */
  static RawClient of(Object client) {
    return Access.of(client);
  }

  /**
   * Installs the way to a client's transport; only {@code RationClient}'s initializer calls it.
   *
   * @param accessor the client's transport, given the client
   */
  static void install(Function<Object, RawClient> accessor) {
    Access.install(accessor);
  }

  /** Holds the installed accessor. */
  final class Access {
    private static volatile Function<Object, RawClient> accessor;

    private Access() {}

    static synchronized void install(Function<Object, RawClient> f) {
      if (accessor != null) {
        throw new IllegalStateException("RawClient accessor already installed");
      }
      accessor = f;
    }

    static RawClient of(Object client) {
      Function<Object, RawClient> f = accessor;
      if (f == null) {
        throw new IllegalArgumentException("not a RationClient: " + client);
      }
      return f.apply(client);
    }
  }
}
