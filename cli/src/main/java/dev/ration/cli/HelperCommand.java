package dev.ration.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * `ration helper status|stop`: this user's resident helpers (CliHelper), found by their state
 * files in the cache directory bin/ration uses. Always a direct run, never served by a helper.
 */
@Command(name = "helper", description = "Show or stop this user's resident CLI helpers (docs/CLI.md, \"Start time\").",
    subcommands = {HelperCommand.Start.class, HelperCommand.Status.class, HelperCommand.Stop.class})
final class HelperCommand {
  @picocli.CommandLine.Mixin HelpOption help;

  /** Where bin/ration keeps the helpers' state files: "helpers" in its cache directory. */
  static Path helpersDir(Map<String, String> env) {
    return cacheDir(env).resolve("helpers");
  }

  /** The directory bin/ration keeps its class-data sharing archives in. */
  static Path cacheDir(Map<String, String> env) {
    String dir = env.get("RATION_CDS_DIR");
    if (dir != null && !dir.isEmpty()) {
      return Path.of(dir);
    }
    String xdg = env.get("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isEmpty()) {
      return Path.of(xdg, "ration");
    }
    String home = env.getOrDefault("HOME", "");
    return Path.of(home.isEmpty() ? "/tmp" : home, ".cache", "ration");
  }

  /** One state file: "PORT CALLER_SECRET HELPER_SECRET PID". */
  record State(Path file, int port, String callerSecret, String helperSecret, long pid) {
    static Optional<State> read(Path file) {
      try {
        String[] f = Files.readString(file, StandardCharsets.US_ASCII).strip().split(" ");
        return Optional.of(new State(file, Integer.parseInt(f[0]), f[1], f[2], Long.parseLong(f[3])));
      } catch (IOException | RuntimeException e) {
        return Optional.empty();
      }
    }

    Optional<ProcessHandle> process() {
      return ProcessHandle.of(pid).filter(p -> p.info().commandLine()
          .map(c -> c.contains(CliHelper.class.getName())).orElse(false));
    }

    /** The helper's own status line, asked over its socket; empty if it does not answer. */
    Optional<String> ask() {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
        s.setSoTimeout(2_000);
        OutputStream out = s.getOutputStream();
        out.write((callerSecret + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        if (!helperSecret.equals(in.readLine())) {
          return Optional.empty();
        }
        out.write("0\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        in.readLine(); // header: the status line is the whole stdout
        return Optional.ofNullable(in.readLine());
      } catch (IOException e) {
        return Optional.empty();
      }
    }
  }

  static List<State> states(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().matches("helper-[0-9a-f]+\\.state"))
          .sorted().map(State::read).flatMap(Optional::stream).toList();
    }
  }

  /** This user's helpers' state files; when there are none, says so on {@code out}. */
  private static List<State> statesOrSayNone(PrintWriter out) throws IOException {
    Path dir = helpersDir(System.getenv());
    List<State> states = states(dir);
    if (states.isEmpty()) {
      out.println("no helper in " + dir);
    }
    return states;
  }

  @Command(name = "status", description = "List this user's helpers: pid, port, calls served; stale state files.")
  static final class Status implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Mixin HelpOption help;
    @Spec CommandSpec spec;
    @picocli.CommandLine.Option(names = "--output", paramLabel = "table|json", defaultValue = "table",
        description = "Output format: table (default) or json.")
    AdminOptions.Format output = AdminOptions.Format.table;

    @Override
    public Integer call() throws IOException {
      PrintWriter out = spec.commandLine().getOut();
      if (output == AdminOptions.Format.json) {
        Path dir = helpersDir(System.getenv());
        List<Fields> helpers = new java.util.ArrayList<>();
        for (State s : states(dir)) {
          Optional<String> line = s.process().isPresent() ? s.ask() : Optional.empty();
          helpers.add(new Fields().put("file", s.file().getFileName().toString()).put("pid", s.pid())
              .put("port", s.port()).put("answering", line.isPresent())
              .put("status", line.map(String::strip).orElse("")));
        }
        out.print(new Fields().put("dir", dir.toString()).put("helpers", helpers).toJson() + "\n");
        out.flush();
        return Exit.OK;
      }
      List<State> states = statesOrSayNone(out);
      for (State s : states) {
        String name = s.file().getFileName().toString();
        Optional<String> line = s.process().isPresent() ? s.ask() : Optional.empty();
        out.println(name + ": " + line.orElse("pid=" + s.pid() + " not answering (stale; the next call starts a new helper)"));
      }
      out.flush();
      return Exit.OK;
    }
  }

  /**
   * Starting a helper is the launcher's work (it alone knows the setting a helper serves);
   * reached here only when bin/ration did not start one.
   */
  @Command(name = "start", description = "Start this setting's helper (bin/ration does it) and wait until it answers.")
  static final class Start implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Mixin HelpOption help;

    @Override
    public Integer call() {
      throw new CliFailure(Exit.USAGE, "helper start is done by bin/ration, and only without "
          + "RATION_HELPER=off and with sha256sum on the PATH; this run started no helper");
    }
  }

  @Command(name = "stop", description = "Stop this user's helpers and remove their state files.")
  static final class Stop implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Mixin HelpOption help;
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException {
      PrintWriter out = spec.commandLine().getOut();
      List<State> states = statesOrSayNone(out);
      for (State s : states) {
        Optional<ProcessHandle> p = s.process();
        if (p.isPresent()) {
          p.get().destroy();
          try {
            p.get().onExit().get(10, TimeUnit.SECONDS);
          } catch (ExecutionException | TimeoutException e) {
            throw new CliFailure(Exit.INDETERMINATE, "helper pid " + s.pid() + " did not exit within 10 s");
          }
          out.println("stopped helper pid " + s.pid());
        }
        Files.deleteIfExists(s.file());
      }
      out.flush();
      return Exit.OK;
    }
  }
}
