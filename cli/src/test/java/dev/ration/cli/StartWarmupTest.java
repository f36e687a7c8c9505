package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StartWarmupTest {
  @Test
  void commandsThatNeverReachAClusterStartNoWarmup() {
    for (String[] args : new String[][] {
        {"server", "--node", "n1"}, {"bench", "--duration", "1s"}, {"cert", "create-ca"},
        {"completion"}, {"helper", "status"}, {"--version"}, {"limit", "get", "--help"},
        {"-h"}}) {
      assertNull(StartWarmup.startFor(args), String.join(" ", args));
    }
  }

  @Test
  void aClusterCommandWarmsUpOnADaemonThreadThatEnds() throws InterruptedException {
    Thread t = StartWarmup.startFor(new String[] {"limit", "get", "--tenant", "t", "--resource", "r"});
    assertNotNull(t);
    assertTrue(t.isDaemon(), "a daemon thread never holds the command's exit");
    t.join(60_000);
    assertFalse(t.isAlive(), "the warm-up ends by itself");
  }

  @Test
  void theCommandsMessageFamilyIsWarmedUp() {
    org.junit.jupiter.api.Assertions.assertEquals(dev.ration.protocol.Kind.TTL_GET,
        StartWarmup.familyOf(new String[] {"--servers", "a:1", "ttl", "get", "k"}));
    org.junit.jupiter.api.Assertions.assertEquals(dev.ration.protocol.Kind.QUOTA_GET,
        StartWarmup.familyOf(new String[] {"reserve", "--scope", "o/t"}));
    org.junit.jupiter.api.Assertions.assertEquals(dev.ration.protocol.Kind.WHOAMI,
        StartWarmup.familyOf(new String[] {"token", "list"}));
    org.junit.jupiter.api.Assertions.assertEquals(dev.ration.protocol.Kind.CLUSTER_STATUS,
        StartWarmup.familyOf(new String[] {"limit", "get", "--tenant", "t"}));
    org.junit.jupiter.api.Assertions.assertEquals(dev.ration.protocol.Kind.CLUSTER_STATUS,
        StartWarmup.familyOf(new String[] {"limit", "get", "--tenant", "ttl"}),
        "an option's value names no family");
  }
}
