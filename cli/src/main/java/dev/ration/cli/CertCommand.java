package dev.ration.cli;

import dev.ration.protocol.tls.PemException;
import dev.ration.protocol.tls.PemFiles;
import dev.ration.server.tls.DevCertificates;
import dev.ration.server.tls.DevCertificates.Issued;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * `ration cert create-ca|create-node|create-client`: development certificates in the
 * certificates directory ({@code --certs-dir}, else $RATION_CERTS_DIR, else ~/.ration/certs),
 * under the fixed names the node examples and the CLI look for: ca.crt/ca.key,
 * node.ID.crt/key, client.NAME.crt/key. Keys are written 0600. Existing files are kept unless
 * --overwrite is given, so `create-*` can run again safely.
 */
@Command(name = "cert", description = "Create a development CA, node and client certificates (PEM).",
    subcommands = {CertCommand.CreateCa.class, CertCommand.CreateNode.class, CertCommand.CreateClient.class})
final class CertCommand {
  @Mixin HelpOption help;

  abstract static class CertAction implements Callable<Integer> {
    @Mixin HelpOption help;
    @Spec CommandSpec spec;

    @Option(names = "--certs-dir", paramLabel = "DIR",
        description = "Where the files go (default: $RATION_CERTS_DIR, else ~/.ration/certs).")
    Path certsDir;

    @Option(names = "--days", paramLabel = "N", description = "Validity in days (default: ${DEFAULT-VALUE}).")
    int days = defaultDays();

    @Option(names = "--overwrite", description = "Replace existing files instead of refusing.")
    boolean overwrite;

    int defaultDays() {
      return (int) DevCertificates.CERT_VALIDITY.toDays();
    }

    Path dir() {
      return certsDir != null ? certsDir : CertsDir.path();
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    Duration validity() {
      if (days < 1 || days > 100 * 365) {
        throw new CliFailure(Exit.USAGE, "--days: " + days + " is outside 1..36500");
      }
      return Duration.ofDays(days);
    }

    /** Refuses up front if one of the files exists and --overwrite was not given. */
    void checkAbsent(String base) {
      if (overwrite) {
        return;
      }
      for (String ext : List.of(".crt", ".key")) {
        Path f = dir().resolve(base + ext);
        if (Files.exists(f)) {
          throw new CliFailure(Exit.FAILED, f + " exists; pass --overwrite to replace it");
        }
      }
    }

    Issued loadCa() {
      Path crt = dir().resolve(CertsDir.CA_CERT);
      Path key = dir().resolve(CertsDir.CA_KEY);
      try {
        return new Issued(PemFiles.certificates(crt).get(0), PemFiles.privateKey(key));
      } catch (PemException e) {
        throw new CliFailure(Exit.FAILED, "cannot read the CA (" + e.getMessage()
            + "); create one first with `ration cert create-ca`", e);
      }
    }

    int write(String base, Issued issued, String what) {
      try {
        DevCertificates.write(dir(), base, issued, overwrite);
      } catch (IOException e) {
        throw new CliFailure(Exit.FAILED, "cannot write " + dir().resolve(base) + ".crt/.key: " + e.getMessage(), e);
      }
      out().printf("%s: %s (certificate), %s (key, mode 0600); valid until %s%n", what,
          dir().resolve(base + ".crt"), dir().resolve(base + ".key"), issued.certificate().getNotAfter().toInstant());
      out().flush();
      return Exit.OK;
    }
  }

  @Command(name = "create-ca", description = "Create the CA certificate and key (ca.crt, ca.key).")
  static final class CreateCa extends CertAction {
    @Override
    int defaultDays() {
      return (int) DevCertificates.CA_VALIDITY.toDays();
    }

    @Override
    public Integer call() {
      checkAbsent("ca");
      Instant now = Instant.now();
      // Backdated a little: a peer whose clock is a minute behind must not see "not yet valid".
      Issued ca = DevCertificates.ca("Ration dev CA " + DevCertificates.shortId(), now.minus(Duration.ofHours(1)), now.plus(validity()));
      return write("ca", ca, "CA");
    }
  }

  @Command(name = "create-node", description = "Create node ID's certificate (server and client use, and the node name urn:ration:node:ID the Raft port requires), signed by the CA.")
  static final class CreateNode extends CertAction {
    @Parameters(index = "0", paramLabel = "ID") String id;

    @Option(names = "--host", paramLabel = "HOST", split = ",",
        description = "A name or IP address peers and clients dial this node at (repeatable; default: localhost,127.0.0.1).")
    List<String> hosts = new ArrayList<>();

    @Override
    public Integer call() {
      String base = CertsDir.nodeBase(id);
      checkAbsent(base);
      Issued ca = loadCa();
      List<String> names = hosts.isEmpty() ? List.of("localhost", "127.0.0.1") : hosts;
      Instant now = Instant.now();
      Issued node = DevCertificates.node(ca, id, names, now.minus(Duration.ofHours(1)), now.plus(validity()));
      return write(base, node, "node " + id + " (" + String.join(", ", names) + ")");
    }
  }

  @Command(name = "create-client", description = "Create client NAME's certificate (CN=NAME), signed by the CA.")
  static final class CreateClient extends CertAction {
    @Parameters(index = "0", paramLabel = "NAME") String name;

    @Override
    public Integer call() {
      if (!name.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")) {
        throw new CliFailure(Exit.USAGE, "'" + name + "' is not a client name (1-64 of A-Z a-z 0-9 _ . -)");
      }
      String base = CertsDir.clientBase(name);
      checkAbsent(base);
      Issued ca = loadCa();
      Instant now = Instant.now();
      Issued client = DevCertificates.leaf(ca, name, List.of(), now.minus(Duration.ofHours(1)), now.plus(validity()));
      return write(base, client, "client " + name);
    }
  }
}
