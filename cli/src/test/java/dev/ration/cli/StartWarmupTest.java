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
}
