package dev.ration.client;

/** A parsed {@code host:port} (IPv6 as {@code [::1]:port}). */
record HostPort(String host, int port) {
  static HostPort parse(String address) {
    if (address == null) {
      throw new IllegalArgumentException("address is null");
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException("address '" + address + "' is not host:port");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("address '" + address + "' has a non-numeric port");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("address '" + address + "' port " + port + " out of range");
    }
    return new HostPort(host, port);
  }
}
