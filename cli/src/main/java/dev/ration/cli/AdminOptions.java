package dev.ration.cli;

import dev.ration.client.tls.ClientTls;
import dev.ration.server.config.ConfigLoader;
import java.nio.file.Path;
import dev.ration.server.config.Quantities;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Options every admin command shares: where the cluster is, how to print, how long to wait.
 * The default servers are the embedded default cluster's client addresses (see
 * ConfigLoader's default-cluster.yaml); RATION_SERVERS overrides the default.
 */
final class AdminOptions {
  static final String DEFAULT_SERVERS = "127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103";

  enum Format { table, json }

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--servers", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
      defaultValue = "${env:RATION_SERVERS:-" + DEFAULT_SERVERS + "}",
      description = "Client addresses of the servers (default: ${DEFAULT-VALUE}; env RATION_SERVERS).")
  List<String> servers = new ArrayList<>();

  @Option(names = "--output", paramLabel = "table|json", defaultValue = "table",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format output = Format.table;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5s",
      description = "How long to wait for an answer, e.g. 500ms, 5s (default: ${DEFAULT-VALUE}). Connecting to one"
          + " server may take half of it, at least 3s.")
  String timeoutText = "5s";

  @Option(names = "--ca", paramLabel = "FILE",
      description = "PEM CA certificate the servers' certificates must chain to (default: ca.crt in the certificates "
          + "directory, env RATION_CERTS_DIR, else ~/.ration/certs; without one, plaintext).")
  Path ca;

  @Option(names = "--cert", paramLabel = "FILE",
      description = "PEM client certificate to present (default: client.admin.crt in the certificates directory, if there).")
  Path cert;

  @Option(names = "--key", paramLabel = "FILE",
      description = "PEM PKCS#8 key of --cert (default: client.admin.key in the certificates directory, if there).")
  Path key;

  @Option(names = "--insecure",
      description = "Plaintext, ignoring any certificates: for a cluster running with tls mode insecure.")
  boolean insecure;

  /**
   * TLS settings from the flags, else from the certificates directory: the CA certificate makes
   * the connection TLS, and the client certificate is presented when it is there too. Nothing
   * found and no flag: empty, plaintext.
   */
  Optional<ClientTls> tls() {
    try {
      return ClientCredentials.resolve(ca, cert, key, insecure);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), e.getMessage());
    }
  }

  @Option(names = "--auth-token", paramLabel = "TOKEN", defaultValue = "${env:RATION_TOKEN:-}",
      description = "Bearer token to authenticate with (default: env RATION_TOKEN). Prefer"
          + " --auth-token-file: a command line is visible to other users of the machine.")
  String token = "";

  @Option(names = "--auth-token-file", paramLabel = "FILE",
      defaultValue = "${env:RATION_TOKEN_FILE:-}",
      description = "File holding the bearer token (default: env RATION_TOKEN_FILE).")
  String tokenFile = "";

  /** The token to present: --auth-token, else the content of --auth-token-file, else none. */
  String token() {
    if (token != null && !token.isBlank()) {
      return token.strip();
    }
    if (tokenFile == null || tokenFile.isBlank()) {
      return "";
    }
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of(tokenFile)).strip();
    } catch (java.io.IOException e) {
      throw new ParameterException(mixee.commandLine(), "--auth-token-file: cannot read " + tokenFile
          + ": " + e.getMessage());
    }
  }

  /** The servers, checked to be host:port. */
  List<String> servers() {
    List<String> out = new ArrayList<>();
    for (String s : servers) {
      String t = s.trim();
      if (t.isEmpty()) {
        continue;
      }
      Optional<String> why = ConfigLoader.addressProblem(t);
      if (why.isPresent()) {
        throw new ParameterException(mixee.commandLine(), "--servers: '" + t + "' " + why.get());
      }
      out.add(t);
    }
    if (out.isEmpty()) {
      throw new ParameterException(mixee.commandLine(), "--servers: name at least one host:port");
    }
    return out;
  }

  Duration timeout() {
    Duration d;
    try {
      d = Quantities.parseDuration(timeoutText);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), "--timeout: " + e.getMessage());
    }
    if (d.toMillis() < 1 || d.toHours() > 1) {
      throw new ParameterException(mixee.commandLine(), "--timeout: " + timeoutText + " is outside 1ms..1h");
    }
    return d;
  }
}
