package dev.ration.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loopback ports for test clusters that must know their ports before they bind them (a Raft
 * peer list names every member's address up front). The kernel picks a free ephemeral port, and
 * this class never hands the same port out twice in one JVM: two test classes running in the
 * same fork would otherwise be given a port the first has not bound yet.
 *
 * <p>The port is free when handed out, not reserved: another process may still take it before
 * the test binds it. Ephemeral ports are chosen by the kernel from a large range in turn, so
 * that race is rare; a test that cannot bind fails with the address in its message.
 */
public final class FreePorts {
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final int ATTEMPTS = 1000;

  private FreePorts() {}

  /** A loopback port that was free a moment ago and that this JVM has not handed out before. */
  public static int next() {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        s.setReuseAddress(true);
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open a loopback socket to find a free port", e);
      }
    }
    throw new IllegalStateException("no loopback port not handed out before in " + ATTEMPTS + " attempts");
  }
}
