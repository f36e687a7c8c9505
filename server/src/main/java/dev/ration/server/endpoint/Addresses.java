package dev.ration.server.endpoint;

import java.net.InetSocketAddress;

/** Parses the {@code host:port} strings of the configuration ({@code [v6]:port} too). */
public final class Addresses {
  private Addresses() {}

  /** An unresolved-then-resolved socket address; throws naming the bad value. */
  public static InetSocketAddress parse(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0 || colon == hostPort.length() - 1) {
      throw new IllegalArgumentException("address '" + hostPort + "' is not host:port");
    }
    String host = hostPort.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("address '" + hostPort + "' has a bad port", e);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("address '" + hostPort + "' port " + port + " out of range");
    }
    return new InetSocketAddress(host, port);
  }

  /** {@code host:port} of a bound address, for logs and replies. */
  public static String format(InetSocketAddress address) {
    String host = address.getHostString();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
  }
}
