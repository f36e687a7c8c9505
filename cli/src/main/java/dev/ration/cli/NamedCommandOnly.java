package dev.ration.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Which commands of `ration` get their full command-line model: only the one a command line
 * names; every other command is registered as a stub that carries its name and nothing else.
 *
 * <p>Why: picocli builds the model of a command and all its subcommands by reflection when it
 * is registered, which loads the command classes, the types their fields and methods name (the
 * certificate commands pull in BouncyCastle, a signed jar the JVM verifies on first use) and
 * picocli's model of every option. An admin call runs one command. The stubs keep the names,
 * so a misspelt command is refused exactly as before.
 *
 * <p>Every model is built, as before, when no command is named and help may list them
 * (`ration`, `ration --help`), and for `completion`, whose script lists every command. The
 * named command's model is built by the same picocli code from the same class either way, so
 * its options, defaults and help are the full model's (NamedCommandOnlyTest).
 */
final class NamedCommandOnly {
  /** Every command's full model. */
  static final NamedCommandOnly ALL = new NamedCommandOnly(null, true);

  private static final List<String> OPTIONS_WITH_VALUE = List.of("--servers", "--output", "--timeout");
  private static final List<String> ROOT_HELP = List.of("-h", "--help");

  private final Class<?> named;
  private final boolean all;

  private NamedCommandOnly(Class<?> named, boolean all) {
    this.named = named;
    this.all = all;
  }

  /** What {@code args} needs: the named command's model, or all of them (see the class comment). */
  static NamedCommandOnly forArgs(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (OPTIONS_WITH_VALUE.contains(a)) {
        i++;
      } else if (ROOT_HELP.contains(a)) {
        return ALL;
      } else if (!a.startsWith("-")) {
        for (RationCli.Entry c : RationCli.COMMANDS) {
          if (c.name().equals(a)) {
            return c.type() == CompletionCommand.class ? ALL : new NamedCommandOnly(c.type(), false);
          }
        }
        // Not a command: the stubs are enough for picocli to refuse it.
        return new NamedCommandOnly(null, false);
      }
    }
    // `ration --version` needs no command; `ration` alone answers with usage help.
    return args.length == 0 ? ALL : new NamedCommandOnly(null, false);
  }

  /**
   * The first word of {@code args} that is not an option or a global option's value: the
   * command named, or empty.
   */
  static java.util.Optional<String> commandWord(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (OPTIONS_WITH_VALUE.contains(args[i])) {
        i++;
      } else if (!args[i].startsWith("-")) {
        return java.util.Optional.of(args[i]);
      }
    }
    return java.util.Optional.empty();
  }

  /** Whether every command gets its full model. */
  boolean buildsAll() {
    return all;
  }

  /** Registers {@code commands} under {@code root}: full models or stubs, in this order. */
  void register(CommandLine root, List<RationCli.Entry> commands) {
    for (RationCli.Entry c : commands) {
      root.addSubcommand(all || c.type() == named ? c.type() : stub(c.name()));
    }
  }

  private static CommandLine stub(String name) {
    return new CommandLine(CommandSpec.create().name(name));
  }
}
