package dev.ration.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs `ration ARGS...` in this JVM as the command line would, capturing what it prints. */
final class CliRuns {
  private CliRuns() {}

  /** {exit code, standard output, standard error} of one command. */
  static String[] cli(String... args) {
    CommandLine cl = RationCli.commandLine(ClientGateway::open, RationNodeLauncher::start);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new String[] {String.valueOf(code), out.toString(), err.toString()};
  }
}
