package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.BuildInfo;
import org.junit.jupiter.api.Test;

/** Goal: the commands that talk to no cluster print JSON too when asked with --output json. */
class CliJsonOutputTest {
  private final CliHarness h = new CliHarness();

  @Test
  void versionPrintsJsonWithTheCommitAsTheTextSaysIt() {
    BuildInfo b = BuildInfo.current();
    String expected = "{\"version\":\"" + b.version() + "\",\"commit\":\"" + b.shortCommit() + "\",\"dirty\":"
        + b.dirty() + "}\n";
    for (String[] args : new String[][] {{"--version", "--output", "json"}, {"--output", "json", "--version"}}) {
      CliHarness.Run r = h.run(args);
      assertEquals(0, r.exitCode(), r.toString());
      assertEquals(expected, r.out());
      assertEquals("", r.err());
    }
    CliHarness.Run text = h.run("--version");
    assertEquals(b.describe() + "\n", text.out());
  }

  @Test
  void helperStatusAcceptsOutputJson() {
    for (String[] args : new String[][] {{"helper", "status", "--output", "json"}, {"--output", "json", "helper", "status"}}) {
      CliHarness.Run r = h.run(args);
      assertEquals(0, r.exitCode(), r.toString());
      assertTrue(r.out().startsWith("{\"dir\":\"") && r.out().contains(",\"helpers\":[") && r.out().endsWith("]}\n"), r.out());
    }
    CliHarness.Run bad = h.run("helper", "status", "--output", "yaml");
    assertEquals(Exit.USAGE, bad.exitCode(), bad.toString());
  }
}
