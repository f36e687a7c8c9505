package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The training run behind the shipped class-data archive covers what `ration` runs. */
class CdsTrainingTest {
  private static final List<String> TLS = List.of("--ca", "/nonexistent/ca.crt", "--cert",
      "/nonexistent/c.crt", "--key", "/nonexistent/c.key");

  @Test
  void everyCommandTheHelperServesIsTrained() {
    Map<String, List<String>> lines = CdsTraining.commandLines("127.0.0.1:1", TLS);
    List<String> missing = new ArrayList<>(CliHelper.SERVED);
    missing.addAll(CliHelper.MUTATIONS);
    missing.removeAll(lines.keySet());
    assertEquals(List.of(), missing, "commands the helper serves but the training leaves out");
    assertTrue(lines.containsKey("cluster add") && lines.containsKey("token bootstrap"), lines.keySet().toString());
  }

  @Test
  void skippedCommandsAreNotRun() {
    for (String name : CdsTraining.commandLines("127.0.0.1:1", TLS).keySet()) {
      assertFalse(CdsTraining.SKIPPED.contains(name.split(" ")[0]), name);
    }
  }

  /** Each generated line parses: a usage error would leave the command out of the archive. */
  @Test
  void everyGeneratedLineParses() {
    for (Map.Entry<String, List<String>> e : CdsTraining.commandLines("127.0.0.1:1", TLS).entrySet()) {
      picocli.CommandLine cl = RationCli.commandLine(ClientGateway.FACTORY, (config, join) -> {
        throw new IllegalStateException("no servers");
      });
      String[] args = e.getValue().toArray(new String[0]);
      picocli.CommandLine.ParseResult parsed = cl.parseArgs(args);
      List<String> path = new ArrayList<>();
      for (picocli.CommandLine.ParseResult p = parsed.subcommand(); p != null; p = p.subcommand()) {
        path.add(p.commandSpec().name());
      }
      assertEquals(e.getKey(), String.join(" ", path));
      assertNotEquals(0, args.length);
    }
  }
}
