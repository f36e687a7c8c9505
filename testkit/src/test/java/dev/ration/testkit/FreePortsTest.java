package dev.ration.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  @Test
  void neverHandsOutTheSamePortTwiceAndEachCanBeBound() throws Exception {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      int port = FreePorts.next();
      assertTrue(port > 0 && port < 65536, "port " + port);
      assertTrue(seen.add(port), "port " + port + " handed out twice");
    }
    int port = FreePorts.next();
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertEquals(port, s.getLocalPort());
    }
  }
}
