package dev.ration.cli;

import dev.ration.server.config.ConfigException;
import dev.ration.server.config.ConfigLoader;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.Backups;
import dev.ration.statemachine.CheckpointManifest;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** `ration snapshot save|restore`: backups of a live cluster and new clusters seeded from them. */
@Command(name = "snapshot", description = "Back up a live cluster; seed a new cluster from a backup.",
    subcommands = {SnapshotCommand.Save.class, SnapshotCommand.Restore.class})
final class SnapshotCommand {
  @Mixin HelpOption help;

  /**
   * Downloads GET /snapshot from the leader's admin endpoint (or, with --stale, from the first
   * node that answers) into FILE, verifying the archive before it takes FILE's name.
   */
  @Command(name = "save", description = "Save a consistent checkpoint of a live cluster (every"
      + " write acknowledged before the command started) into FILE, verified.")
  static final class Save implements Callable<Integer> {
    /** How long a save waits for a leader while the nodes it asks know none. */
    static final Duration ELECTION_WAIT = Duration.ofSeconds(30);
    private static final Duration ELECTION_POLL = Duration.ofMillis(250);
    @Mixin AdminOptions admin;
    @Mixin HelpOption help;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "Where to write the backup.")
    Path file;

    @Option(names = "--admin-servers", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
        defaultValue = "${env:RATION_ADMIN_SERVERS:-" + MembershipCommand.DEFAULT_ADMIN + "}",
        description = "Admin HTTP addresses of the nodes (default: ${DEFAULT-VALUE}; env RATION_ADMIN_SERVERS).")
    List<String> adminServers = new ArrayList<>();

    @Option(names = "--stale", description = "Take the first answering node's applied state, leader"
        + " or not (disaster recovery after a lost majority): it may miss the newest writes.")
    boolean stale;

    @Override
    public Integer call() throws Exception {
      if (Files.exists(file)) {
        throw new ParameterException(spec.commandLine(), "FILE: " + file + " exists; name a new file");
      }
      Path part = file.toAbsolutePath().resolveSibling(file.getFileName() + ".part");
      Files.deleteIfExists(part);
      AdminHttp adminHttp = AdminHttp.of(admin.tls(), admin.timeout(), admin.token());
      HttpClient http = adminHttp.client();
      long electionDeadline = System.nanoTime() + ELECTION_WAIT.toNanos();
      List<String> failures = new ArrayList<>();
      boolean waitingSaid = false;
      while (true) {
        failures.clear();
        boolean leaderless = false;
        for (String first : adminServers) {
          String target = first.trim();
          if (ConfigLoader.addressProblem(target).isPresent()) {
            throw new ParameterException(spec.commandLine(), "--admin-servers: '" + target + "' "
                + ConfigLoader.addressProblem(target).get());
          }
          for (int hop = 0; hop < 4; hop++) {
            HttpRequest request = adminHttp.request(target, "/snapshot"
                + (stale ? "?stale=true" : "")).timeout(admin.timeout().plus(Duration.ofMinutes(10))).GET().build();
            HttpResponse<Path> response;
            try {
              response = http.send(request, HttpResponse.BodyHandlers.ofFile(part));
            } catch (IOException e) {
              failures.add(target + ": " + e);
              break;
            }
            Optional<String> leader = response.headers().firstValue("Ration-Leader-Admin");
            if (response.statusCode() == 421 && leader.isPresent() && !leader.get().equals(target)) {
              target = leader.get();
              continue;
            }
            if (response.statusCode() != 200) {
              leaderless |= response.statusCode() == 421;
              String body = Files.readString(part).trim();
              Files.deleteIfExists(part);
              failures.add(target + ": HTTP " + response.statusCode() + ": " + body);
              break;
            }
            return saved(target, part);
          }
        }
        // A node that knows no leader is in an election: ask again while it may end.
        if (!leaderless || System.nanoTime() + ELECTION_POLL.toNanos() >= electionDeadline) {
          break;
        }
        if (!waitingSaid) {
          waitingSaid = true;
          spec.commandLine().getErr().println("waiting for a leader: no node knows one (an election,"
              + " or a majority is down); asking again for up to " + ELECTION_WAIT.toSeconds() + " s");
          spec.commandLine().getErr().flush();
        }
        Thread.sleep(ELECTION_POLL.toMillis());
      }
      Files.deleteIfExists(part);
      throw new CliFailure(Exit.INDETERMINATE, "no backup taken: " + String.join("; ", failures));
    }

    private int saved(String from, Path part) throws IOException {
      Path check = part.resolveSibling(part.getFileName() + ".verify");
      Backups.Header header;
      try {
        deleteTree(check);
        header = Backups.extract(part, check);
      } catch (IOException e) {
        Files.deleteIfExists(part);
        throw new CliFailure(Exit.INDETERMINATE, "the backup from " + from + " is damaged: " + e.getMessage());
      } finally {
        deleteTree(check);
      }
      long bytes = Files.size(part);
      Files.move(part, file, StandardCopyOption.ATOMIC_MOVE);
      Fields f = new Fields().put("file", file.toString()).put("from", from)
          .put("node", header.nodeId()).put("group", header.groupId())
          .put("appliedTerm", header.term()).put("appliedIndex", header.index())
          .put("bytes", bytes).put("stale", stale);
      print(spec, admin, f);
      return Exit.OK;
    }
  }

  /**
   * Seeds one node of a NEW cluster from a backup: the node's configuration file (its own
   * cluster.group-id, which must differ from the backup's) says where; the data directory must
   * be empty. Verifies the archive and the state before writing.
   */
  @Command(name = "restore", description = "Seed a node of a new cluster (new cluster.group-id) from"
      + " a backup: verified, then written into the node's empty data directory.")
  static final class Restore implements Callable<Integer> {
    @Mixin HelpOption help;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The backup (from 'snapshot save').")
    Path file;

    @Option(names = "--config", required = true, paramLabel = "FILE",
        description = "The new node's configuration (docs/CONFIGURATION.md).")
    Path config;

    @Option(names = "--data-dir", paramLabel = "DIR",
        description = "Data directory, overriding node.data-dir.")
    Path dataDir;

    @Option(names = "--output", paramLabel = "table|json", defaultValue = "table",
        description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    AdminOptions.Format output = AdminOptions.Format.table;

    @Override
    public Integer call() throws Exception {
      if (!Files.isRegularFile(file)) {
        throw new ParameterException(spec.commandLine(), "FILE: " + file + " is not a file");
      }
      ServerConfig c;
      try {
        c = ConfigLoader.load(config, Optional.ofNullable(dataDir));
      } catch (ConfigException e) {
        throw e;
      }
      Path dir = c.consensus().dataDir().toAbsolutePath();
      for (String child : List.of("raft", "state")) {
        if (!isAbsentOrEmpty(dir.resolve(child))) {
          throw new CliFailure(Exit.FAILED, "data directory " + dir + " already holds " + child
              + "/: restore only into an empty data directory");
        }
      }
      Path tmp = dir.resolve("restore.tmp");
      deleteTree(tmp);
      try {
        Backups.Header header;
        try {
          header = Backups.extract(file, tmp);
        } catch (IOException e) {
          throw new CliFailure(Exit.FAILED, "cannot restore " + file + ": " + e.getMessage());
        }
        if (header.groupId().equals(c.consensus().groupId())) {
          throw new CliFailure(Exit.FAILED, "the backup is of cluster.group-id " + header.groupId()
              + ", the same as " + config + ": a restored cluster is a new cluster; give it a new"
              + " cluster.group-id (any new UUID, the same in every node's file)");
        }
        CheckpointManifest manifest;
        try {
          manifest = Backups.restore(tmp, dir.resolve("state"), c.consensus().stateOptions());
        } catch (IOException e) {
          deleteTree(dir.resolve("state"));
          throw new CliFailure(Exit.FAILED, "cannot restore " + file + ": " + e.getMessage());
        }
        Fields f = new Fields().put("node", c.consensus().nodeId()).put("dataDir", dir.toString())
            .put("group", c.consensus().groupId()).put("fromGroup", header.groupId())
            .put("fromNode", header.nodeId()).put("appliedTerm", manifest.term())
            .put("appliedIndex", manifest.index()).put("savedAt", header.createdAt());
        PrintWriter out = spec.commandLine().getOut();
        out.print(output == AdminOptions.Format.json ? f.toJson() + "\n" : Tables.vertical(f));
        out.flush();
        return Exit.OK;
      } finally {
        deleteTree(tmp);
      }
    }
  }

  static void print(CommandSpec spec, AdminOptions admin, Fields f) {
    PrintWriter out = spec.commandLine().getOut();
    out.print(admin.output == AdminOptions.Format.json ? f.toJson() + "\n" : Tables.vertical(f));
    out.flush();
  }

  private static boolean isAbsentOrEmpty(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return !Files.exists(dir);
    }
    try (Stream<Path> children = Files.list(dir)) {
      return children.findAny().isEmpty();
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
