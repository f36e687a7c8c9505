package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BenchCommandTest {
  @Test
  void defaultConnectionsGrowWithInFlight() {
    assertEquals(1, BenchCommand.defaultConnections(1));
    assertEquals(1, BenchCommand.defaultConnections(16));
    assertEquals(2, BenchCommand.defaultConnections(17));
    assertEquals(4, BenchCommand.defaultConnections(64));
    assertEquals(4, BenchCommand.defaultConnections(1000));
  }

  /** --ttl takes a duration as `ttl put --ttl` does; a bare number stays milliseconds. */
  @Test
  void ttlTakesDurations() {
    assertEquals(30_000, ttl());
    assertEquals(600_000, ttl("--ttl", "10m"));
    assertEquals(1_500, ttl("--ttl", "1500"));
    assertEquals(-1, ttl("--ttl", "-1"));
    assertThrows(picocli.CommandLine.ParameterException.class, () -> ttl("--ttl", "-5"));
    assertThrows(picocli.CommandLine.ParameterException.class, () -> ttl("--ttl", "10 parsecs"));
  }

  private static long ttl(String... args) {
    BenchCommand bench = new BenchCommand();
    new picocli.CommandLine(bench).parseArgs(args);
    return bench.ttlMillis();
  }
}
