package dev.ration.server.endpoint;

import dev.ration.wire.ErrorCode;

/**
 * What the endpoint reports as it serves: the seam to metrics, so the endpoint needs no
 * registry to be tested. Called from Netty event loops; implementations must be thread-safe
 * and must not block.
 */
public interface EndpointListener {

  /**
   * One request answered. {@code kind} is the request kind's name ({@code "UNKNOWN"} for a frame
   * that never decoded to a kind); {@code code} the wire error code (OK for a reply);
   * {@code outcome} the domain outcome inside an OK reply ({@code "NONE"} when the reply has none).
   */
  void requestAnswered(String kind, ErrorCode code, String outcome, long latencyNanos);

  /** A connection was accepted and will be served. */
  void connectionOpened();

  /** A served connection closed. */
  void connectionClosed();

  /** A connection was closed at once because maxConnections were already open. */
  void connectionRefused();

  /** A TLS handshake on the client port failed (no or a refused client certificate, not TLS at all). */
  default void tlsHandshakeFailed() {}

  /**
   * A connection closed because it stalled: {@code reason} is {@code hello} (no HELLO within
   * {@code endpoint.hello-timeout}) or {@code frame} (a frame begun and not finished within
   * {@code endpoint.frame-timeout}).
   */
  default void connectionTimedOut(String reason) {}

  EndpointListener NONE =
      new EndpointListener() {
        @Override
        public void requestAnswered(String kind, ErrorCode code, String outcome, long latencyNanos) {}

        @Override
        public void connectionOpened() {}

        @Override
        public void connectionClosed() {}

        @Override
        public void connectionRefused() {}
      };
}
