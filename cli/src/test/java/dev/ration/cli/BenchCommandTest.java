package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
