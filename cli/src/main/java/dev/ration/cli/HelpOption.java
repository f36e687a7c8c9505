package dev.ration.cli;

import picocli.CommandLine.Option;

/**
 * -h/--help for every subcommand. Not picocli's standard mixin, because that also adds
 * --version, which `lease renew --version V` needs for the lease version.
 */
final class HelpOption {
  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;
}
