package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.tls.ClientTls;
import dev.ration.protocol.tls.PemFiles;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.tls.ServerTls;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** `ration cert` writes usable files with owner-only keys; admin commands take TLS flags. */
class CertCommandTest {
  @TempDir Path dir;

  record Run(int code, String out, String err) {}

  Run run(ClusterGateway.Factory gateways, String... args) {
    CommandLine cl = RationCli.commandLine(gateways, (c, join) -> {
      throw new AssertionError("no node here");
    });
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return new Run(cl.execute(args), out.toString(), err.toString());
  }

  Run cert(String... args) {
    List<String> full = new ArrayList<>(List.of("cert"));
    full.addAll(List.of(args));
    full.add("--certs-dir");
    full.add(dir.toString());
    return run((s, t, id) -> {
      throw new AssertionError("cert needs no cluster");
    }, full.toArray(String[]::new));
  }

  @Test
  void createsACaANodeAndAClientThatANodeAccepts() throws Exception {
    Run ca = cert("create-ca");
    assertEquals(0, ca.code(), ca.toString());
    assertTrue(ca.out().contains(dir.resolve("ca.crt").toString()), ca.out());
    Run node = cert("create-node", "n1", "--host", "node1.example,127.0.0.1", "--days", "30");
    assertEquals(0, node.code(), node.toString());
    Run client = cert("create-client", "admin");
    assertEquals(0, client.code(), client.toString());

    for (String key : List.of("ca.key", "node.n1.key", "client.admin.key")) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(key))), key);
    }
    X509Certificate n1 = PemFiles.certificates(dir.resolve("node.n1.crt")).get(0);
    assertEquals("CN=n1,O=Ration", n1.getSubjectX500Principal().getName());
    assertTrue(n1.getSubjectAlternativeNames().toString().contains("node1.example"), n1.getSubjectAlternativeNames().toString());
    assertTrue(n1.getSubjectAlternativeNames().toString().contains("127.0.0.1"));
    assertTrue(n1.getNotAfter().toInstant().isBefore(java.time.Instant.now().plus(Duration.ofDays(31))));
    // Only the node certificate carries the node name the Raft port requires.
    assertTrue(dev.ration.server.tls.NodeCertificates.isNode(n1), String.valueOf(n1.getSubjectAlternativeNames()));
    X509Certificate admin = PemFiles.certificates(dir.resolve("client.admin.crt")).get(0);
    assertTrue(!dev.ration.server.tls.NodeCertificates.isNode(admin), String.valueOf(admin.getSubjectAlternativeNames()));

    // What a node checks at start, the files pass.
    try (ServerTls tls = ServerTls.load(new TlsOptions(TlsOptions.Mode.ON, "test", dir.resolve("ca.crt"),
        dir.resolve("node.n1.crt"), dir.resolve("node.n1.key"), TlsOptions.ClientAuth.REQUIRED, Duration.ofSeconds(10)))) {
      assertEquals(n1, tls.certificate());
    }
    // And the client accepts its own pair.
    dev.ration.client.tls.internal.ClientSslContexts.of(ClientTls.trusting(dir.resolve("ca.crt")).withKeyPair(dir.resolve("client.admin.crt"), dir.resolve("client.admin.key")));
  }

  @Test
  void createClusterWritesTheWholeSetInOneRunThatNodesAndTheCliAccept() throws Exception {
    Run set = cert("create-cluster", "--nodes", "n1,n2,n3", "--host", "node.example,127.0.0.1");
    assertEquals(0, set.code(), set.toString());
    List<String> files = List.of("ca", "node.n1", "node.n2", "node.n3", "client.admin");
    for (String base : files) {
      assertTrue(Files.isRegularFile(dir.resolve(base + ".crt")), base + ".crt\n" + set.out());
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(base + ".key"))), base);
      assertTrue(set.out().contains(dir.resolve(base + ".crt").toString()), set.out());
    }
    X509Certificate ca = PemFiles.certificates(dir.resolve("ca.crt")).get(0);
    for (String id : List.of("n1", "n2", "n3")) {
      X509Certificate node = PemFiles.certificates(dir.resolve("node." + id + ".crt")).get(0);
      assertEquals("CN=" + id + ",O=Ration", node.getSubjectX500Principal().getName());
      assertTrue(node.getSubjectAlternativeNames().toString().contains("node.example"), node.getSubjectAlternativeNames().toString());
      assertTrue(dev.ration.server.tls.NodeCertificates.isNode(node), id);
      node.verify(ca.getPublicKey());
      try (ServerTls tls = ServerTls.load(new TlsOptions(TlsOptions.Mode.ON, "test", dir.resolve("ca.crt"),
          dir.resolve("node." + id + ".crt"), dir.resolve("node." + id + ".key"), TlsOptions.ClientAuth.REQUIRED,
          Duration.ofSeconds(10)))) {
        assertEquals(node, tls.certificate());
      }
    }
    X509Certificate admin = PemFiles.certificates(dir.resolve("client.admin.crt")).get(0);
    assertTrue(admin.getSubjectX500Principal().getName().startsWith("CN=admin"), admin.getSubjectX500Principal().getName());
    assertTrue(!dev.ration.server.tls.NodeCertificates.isNode(admin));
    admin.verify(ca.getPublicKey());
    // The CA outlives what it signed.
    assertTrue(ca.getNotAfter().after(admin.getNotAfter()));
    dev.ration.client.tls.internal.ClientSslContexts.of(ClientTls.trusting(dir.resolve("ca.crt"))
        .withKeyPair(dir.resolve("client.admin.crt"), dir.resolve("client.admin.key")));
  }

  @Test
  void createClusterRefusesBeforeWritingAnythingWhenOneFileExists() throws Exception {
    assertEquals(0, cert("create-cluster", "--nodes", "n1", "--clients", "ops").code());
    String ca = Files.readString(dir.resolve("ca.crt"));
    Run again = cert("create-cluster", "--nodes", "n1,n2");
    assertEquals(Exit.FAILED, again.code(), again.toString());
    assertTrue(again.err().contains(dir.resolve("ca.crt") + " exists; pass --overwrite to replace it"), again.err());
    assertEquals(ca, Files.readString(dir.resolve("ca.crt")));
    assertTrue(!Files.exists(dir.resolve("node.n2.crt")) && !Files.exists(dir.resolve("client.admin.crt")));
    assertTrue(Files.exists(dir.resolve("client.ops.crt")));

    Run replaced = cert("create-cluster", "--nodes", "n1,n2", "--overwrite");
    assertEquals(0, replaced.code(), replaced.toString());
    assertTrue(!ca.equals(Files.readString(dir.resolve("ca.crt"))));
    assertTrue(Files.exists(dir.resolve("node.n2.crt")) && Files.exists(dir.resolve("client.admin.crt")));

    Run bad = cert("create-cluster", "--nodes", "n1,bad/id", "--overwrite");
    assertEquals(Exit.USAGE, bad.code(), bad.toString());
    Run none = cert("create-cluster");
    assertEquals(Exit.USAGE, none.code(), none.toString());
  }

  @Test
  void existingFilesAreKeptUnlessOverwriteIsGiven() throws Exception {
    assertEquals(0, cert("create-ca").code());
    String before = Files.readString(dir.resolve("ca.crt"));
    Run again = cert("create-ca");
    assertEquals(Exit.FAILED, again.code(), again.toString());
    assertTrue(again.err().contains(dir.resolve("ca.crt") + " exists; pass --overwrite to replace it"), again.err());
    assertEquals(before, Files.readString(dir.resolve("ca.crt")));
    assertEquals(0, cert("create-ca", "--overwrite").code());
    assertTrue(!before.equals(Files.readString(dir.resolve("ca.crt"))));
  }

  @Test
  void nodeWithoutACaSaysHowToMakeOne() {
    Run node = cert("create-node", "n1");
    assertEquals(Exit.FAILED, node.code(), node.toString());
    assertTrue(node.err().contains("create one first with `ration cert create-ca`"), node.err());
  }

  @Test
  void adminCommandsPassTheTlsFlagsToTheGateway() throws Exception {
    assertEquals(0, cert("create-ca").code());
    assertEquals(0, cert("create-client", "ops").code());
    List<Optional<ClientTls>> seen = new ArrayList<>();
    ClusterGateway.Factory capturing = new ClusterGateway.Factory() {
      @Override
      public ClusterGateway open(List<String> servers, Duration timeout, Optional<ClusterGateway.ClientIdentity> id) {
        throw new AssertionError("the TLS-aware open must be used");
      }

      @Override
      public ClusterGateway open(List<String> servers, Duration timeout, Optional<ClusterGateway.ClientIdentity> id,
          Optional<ClientTls> tls, String token) {
        seen.add(tls);
        CliHarness.FakeGateway g = new CliHarness.FakeGateway();
        g.statusScript = a -> {
          throw new ClusterGateway.GatewayException(dev.ration.wire.ErrorCode.UNAVAILABLE, true, 0, "down", null);
        };
        return g;
      }
    };
    run(capturing, "cluster", "status", "--servers", "127.0.0.1:7101", "--ca", dir.resolve("ca.crt").toString(),
        "--cert", dir.resolve("client.ops.crt").toString(), "--key", dir.resolve("client.ops.key").toString());
    assertEquals(Optional.of(ClientTls.trusting(dir.resolve("ca.crt"))
        .withKeyPair(dir.resolve("client.ops.crt"), dir.resolve("client.ops.key"))), seen.get(0));

    run(capturing, "cluster", "status", "--servers", "127.0.0.1:7101", "--insecure");
    assertEquals(Optional.empty(), seen.get(1));

    Run half = run(capturing, "cluster", "status", "--servers", "127.0.0.1:7101", "--cert", "x.crt");
    assertEquals(Exit.USAGE, half.code(), half.toString());
    assertTrue(half.err().contains("--cert: needs --key"), half.err());
    Run both = run(capturing, "cluster", "status", "--servers", "127.0.0.1:7101", "--insecure", "--ca", "x");
    assertEquals(Exit.USAGE, both.code(), both.toString());
  }
}
