package dev.ration.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The tls section: modes, paths (environment, home, relative), client-auth, and its refusals. */
class TlsConfigTest {
  static final Path BASE = Path.of("/etc/ration");
  static final String NODE = """
      node: { id: n1, data-dir: data }
      cluster:
        peers:
          - { id: n1, raft: 127.0.0.1:7201, client: 127.0.0.1:7101, admin: 127.0.0.1:7301 }
      """;

  static ServerConfig parse(String tls) throws ConfigException {
    return ConfigLoader.parse(NODE + tls, "test.yaml", BASE, Optional.empty());
  }

  static String problems(String tls) {
    return assertThrows(ConfigException.class, () -> parse(tls)).getMessage();
  }

  @Test
  void noSectionRunsInsecure() throws Exception {
    assertFalse(parse("").tls().on());
  }

  @Test
  void explicitInsecure() throws Exception {
    TlsOptions t = parse("tls: { mode: insecure }\n").tls();
    assertEquals(TlsOptions.Mode.INSECURE, t.mode());
    assertTrue(problems("tls: { mode: insecure, ca: ca.crt }\n").contains("tls.mode: is insecure but ca, cert or key is set"));
  }

  @Test
  void secureWithRelativePathsAndDefaults() throws Exception {
    TlsOptions t = parse("tls: { mode: secure, ca: certs/ca.crt, cert: /abs/n1.crt, key: n1.key }\n").tls();
    assertTrue(t.on());
    assertEquals(BASE.resolve("certs/ca.crt"), t.ca());
    assertEquals(Path.of("/abs/n1.crt"), t.cert());
    assertEquals(BASE.resolve("n1.key"), t.key());
    assertEquals(TlsOptions.ClientAuth.REQUIRED, t.clientAuth());
    assertEquals(Duration.ofSeconds(10), t.reloadInterval());
    assertEquals("test.yaml", t.source());
  }

  @Test
  void clientAuthAndReloadInterval() throws Exception {
    TlsOptions t = parse("tls: { mode: secure, ca: a, cert: b, key: c, client-auth: optional, reload-interval: 2s }\n").tls();
    assertEquals(TlsOptions.ClientAuth.OPTIONAL, t.clientAuth());
    assertEquals(Duration.ofSeconds(2), t.reloadInterval());
    assertTrue(problems("tls: { mode: secure, ca: a, cert: b, key: c, client-auth: maybe }\n")
        .contains("tls.client-auth: 'maybe' is not one of none, optional, required"));
  }

  @Test
  void secureNeedsAllThreeFiles() {
    String m = problems("tls: { mode: secure, ca: a }\n");
    assertTrue(m.contains("tls.cert: is required") && m.contains("tls.key: is required"), m);
  }

  @Test
  void unknownModeAndKeysAreRefused() {
    assertTrue(problems("tls: { mode: maybe }\n").contains("tls.mode: 'maybe' is not one of secure, insecure"));
    // YAML reads an unquoted `on` as a boolean; the loader says so rather than guessing.
    assertTrue(problems("tls: { mode: on }\n").contains("tls.mode"));
    assertTrue(problems("tls: { mode: insecure, certificate: x }\n").contains("tls.certificate"));
  }

  @Test
  void environmentAndHomeExpansion() {
    Map<String, String> env = Map.of("CERTS", "/srv/certs");
    assertEquals(Optional.of("/srv/certs/ca.crt"), ConfigLoader.expand("${CERTS}/ca.crt", env::get));
    assertEquals(Optional.of("~/.ration/certs/ca.crt"), ConfigLoader.expand("${NOPE:-~/.ration/certs}/ca.crt", env::get));
    assertEquals(Optional.empty(), ConfigLoader.expand("${NOPE}/ca.crt", env::get));
    assertEquals(Optional.of("plain"), ConfigLoader.expand("plain", env::get));
  }

  @Test
  void homeDirectoryInPaths() throws Exception {
    TlsOptions t = parse("tls: { mode: secure, ca: \"~/c/ca.crt\", cert: b, key: c }\n").tls();
    assertEquals(Path.of(System.getProperty("user.home"), "c/ca.crt"), t.ca());
  }
}
