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
 * `ration cert create-ca|create-node|create-client|create-cluster`: development certificates in the
 * certificates directory ({@code --certs-dir}, else $RATION_CERTS_DIR, else ~/.ration/certs),
 * under the fixed names the node examples and the CLI look for: ca.crt/ca.key,
 * node.ID.crt/key, client.NAME.crt/key. Keys are written 0600. Existing files are kept unless
 * --overwrite is given, so `create-*` can run again safely.
 */
@Command(name = "cert", description = "Create a development CA, node and client certificates (PEM).",
    subcommands = {CertCommand.CreateCa.class, CertCommand.CreateNode.class, CertCommand.CreateClient.class,
        CertCommand.CreateCluster.class})
final class CertCommand {
  static final List<String> DEFAULT_HOSTS = List.of("localhost", "127.0.0.1");

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

    static final String CLIENT_NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}";

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
      List<String> names = hosts.isEmpty() ? DEFAULT_HOSTS : hosts;
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
      if (!name.matches(CLIENT_NAME)) {
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

  /**
   * The whole development set of a cluster in one run: the CA, every node's certificate and
   * the client certificates (admin by default). One JVM start instead of one per file, which on
   * a small host is most of the time between unpacking a release and a running cluster. Every
   * file is checked up front, so a refusal writes nothing.
   */
  @Command(name = "create-cluster", description = "Create the CA, a certificate for every node and the client certificates "
      + "(default: admin) in one run.")
  static final class CreateCluster extends CertAction {
    @Option(names = "--nodes", paramLabel = "ID[,ID...]", split = ",", required = true,
        description = "The node ids, e.g. n1,n2,n3.")
    List<String> nodes = new ArrayList<>();

    @Option(names = "--host", paramLabel = "HOST", split = ",",
        description = "A name or IP address peers and clients dial the nodes at, put in every node's certificate "
            + "(repeatable; default: localhost,127.0.0.1). For nodes on several hosts, name them all.")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--clients", paramLabel = "NAME[,NAME...]", split = ",",
        description = "Client certificates to create (default: admin, the first administrator of the shipped configurations).")
    List<String> clients = new ArrayList<>(List.of(CertsDir.ADMIN_CLIENT));

    @Override
    public Integer call() {
      List<String> ids = nodes.stream().map(String::strip).filter(n -> !n.isEmpty()).distinct().toList();
      if (ids.isEmpty()) {
        throw new CliFailure(Exit.USAGE, "--nodes: name at least one node id");
      }
      for (String id : ids) {
        if (!id.matches(CLIENT_NAME)) {
          throw new CliFailure(Exit.USAGE, "'" + id + "' is not a node id (1-64 of A-Z a-z 0-9 _ . -)");
        }
      }
      List<String> names = clients.stream().map(String::strip).filter(n -> !n.isEmpty()).distinct().toList();
      for (String name : names) {
        if (!name.matches(CLIENT_NAME)) {
          throw new CliFailure(Exit.USAGE, "'" + name + "' is not a client name (1-64 of A-Z a-z 0-9 _ . -)");
        }
      }
      Duration leafValidity = validity();
      checkAbsent("ca");
      ids.forEach(id -> checkAbsent(CertsDir.nodeBase(id)));
      names.forEach(name -> checkAbsent(CertsDir.clientBase(name)));
      Instant now = Instant.now();
      // Backdated a little, as create-ca and create-node do, for peers whose clocks are behind.
      Instant from = now.minus(Duration.ofHours(1));
      // The CA outlives the certificates it signs, so renewing them needs no new CA.
      Duration caValidity = leafValidity.compareTo(DevCertificates.CA_VALIDITY) > 0 ? leafValidity : DevCertificates.CA_VALIDITY;
      Issued ca = DevCertificates.ca("Ration dev CA " + DevCertificates.shortId(), from, now.plus(caValidity));
      write("ca", ca, "CA");
      List<String> dial = hosts.isEmpty() ? DEFAULT_HOSTS : hosts;
      for (String id : ids) {
        write(CertsDir.nodeBase(id), DevCertificates.node(ca, id, dial, from, now.plus(leafValidity)),
            "node " + id + " (" + String.join(", ", dial) + ")");
      }
      for (String name : names) {
        write(CertsDir.clientBase(name), DevCertificates.leaf(ca, name, List.of(), from, now.plus(leafValidity)),
            "client " + name);
      }
      return Exit.OK;
    }
  }
}
