package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Goal: building only the named command's model changes nothing a user can see of that command
 * (every subcommand's usage text, options and defaults are the full model's), while the other
 * commands are stubs, and the full model is still built where every command is shown. Every
 * in-process CLI test (CliHarness) runs through the same lean model as `ration`.
 */
class NamedCommandOnlyTest {
  private static final ClusterGateway.Factory NO_GATEWAY = (servers, timeout, id) -> {
    throw new AssertionError("no call expected");
  };
  private static final NodeLauncher NO_LAUNCH = (config, join) -> {
    throw new AssertionError("no start expected");
  };

  private static CommandLine full() {
    return RationCli.commandLine(NO_GATEWAY, NO_LAUNCH);
  }

  private static CommandLine lean(String... args) {
    NamedCommandOnly models = NamedCommandOnly.forArgs(args);
    assertFalse(models.buildsAll(), "full model for " + List.of(args));
    return RationCli.commandLine(NO_GATEWAY, NO_LAUNCH, models);
  }

  /** Qualified name → usage text, for {@code cl} and every subcommand below it. */
  private static Map<String, String> usages(CommandLine cl) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put(cl.getCommandSpec().qualifiedName(), cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
    for (CommandLine sub : new java.util.LinkedHashSet<>(cl.getSubcommands().values())) {
      all.putAll(usages(sub));
    }
    return all;
  }

  @Test
  void theNamedCommandIsTheFullModelsAndTheOthersAreStubs() {
    CommandLine full = full();
    for (RationCli.Entry entry : RationCli.COMMANDS) {
      Class<?> command = entry.type();
      String name = command.getAnnotation(Command.class).name();
      assertEquals(name, entry.name(), "the table names " + command.getSimpleName() + " as picocli does");
      assertEquals(0, command.getAnnotation(Command.class).aliases().length,
          name + ": a stub carries no aliases");
      if (command == CompletionCommand.class) {
        continue; // always the full model, below
      }
      CommandLine lean = lean(name, "--help");
      assertEquals(usages(full.getSubcommands().get(name)), usages(lean.getSubcommands().get(name)), name);
      assertInstanceOf(command, lean.getSubcommands().get(name).getCommandSpec().userObject(), name);
      assertEquals(full.getSubcommands().keySet(), lean.getSubcommands().keySet(), "every name is kept");
      for (Map.Entry<String, CommandLine> other : lean.getSubcommands().entrySet()) {
        if (!other.getValue().getCommandSpec().name().equals(name)) {
          assertTrue(other.getValue().getSubcommands().isEmpty()
              && other.getValue().getCommandSpec().options().isEmpty(), other.getKey() + " is a stub");
        }
      }
    }
  }

  @Test
  void globalOptionsBeforeTheCommandAreSkippedToFindIt() {
    CommandLine lean = lean("--servers", "a:1,b:2", "--output", "json", "--timeout=3s", "cluster", "status");
    assertInstanceOf(ClusterCommand.class, lean.getSubcommands().get("cluster").getCommandSpec().userObject());
    assertFalse(lean.getSubcommands().get("limit").getCommandSpec().userObject() instanceof LimitCommand);
  }

  @Test
  void rootHelpNoCommandAndCompletionBuildTheFullModel() {
    for (String[] args : List.of(new String[] {}, new String[] {"--help"}, new String[] {"-h", "cluster"},
        new String[] {"completion"})) {
      assertTrue(NamedCommandOnly.forArgs(args).buildsAll(), List.of(args).toString());
    }
  }

  @Test
  void aMisspeltCommandIsRefusedAsByTheFullModel() {
    CliHarness.Run lean = CliHarness.capture(lean("clustr", "status"), "clustr", "status");
    CliHarness.Run full = CliHarness.capture(full(), "clustr", "status");
    assertEquals(Exit.USAGE, lean.exitCode(), lean.toString());
    assertTrue(lean.err().contains("'clustr'"), lean.toString());
    assertEquals(full, lean);
  }

  @Test
  void versionNeedsNoCommandModel() {
    CliHarness.Run run = CliHarness.capture(lean("--version"), "--version");
    assertEquals(0, run.exitCode(), run.toString());
    assertTrue(run.out().startsWith("ration "), run.toString());
  }
}
