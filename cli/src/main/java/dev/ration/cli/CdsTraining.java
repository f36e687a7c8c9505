package dev.ration.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The training run that records the class-data archive shipped with a build (lib/ration-cli.jsa,
 * made at {@code mvn package} by src/build/cds-archive.sh; docs/CLI.md, "Start time").
 *
 * <p>Runs every admin command once, in this JVM, the way `ration` runs it (its own model only,
 * {@link NamedCommandOnly}), with the required options filled in from their types, against a
 * TLS peer in this JVM that completes the handshake with the command's client certificate
 * (made by `cert create-cluster` in a temporary directory) and then closes the connection:
 * each command parses its arguments, builds its client, TLS context and request, and shakes
 * hands, which loads the classes a real call loads short of reading an answer. One call in
 * plaintext against an address where nothing listens covers `--insecure`. The JVM records
 * the classes at exit. Commands that start processes, print help only or name files to write
 * ({@link #SKIPPED}) are left out; the certificate commands run once, making the certificates.
 *
 * <p>A command whose generated arguments are refused as a usage error would be missing from the
 * archive; the run fails then, naming it, so a new option type does not go unnoticed.
 */
final class CdsTraining {
  /** Top-level commands not trained: they start processes, write files or print help only. */
  static final List<String> SKIPPED = List.of("server", "bench", "helper", "completion", "cert",
      "snapshot");
  private static final String NOWHERE = "127.0.0.1:1";
  /** Values the option's type does not give: by option name or parameter label. */
  private static final Map<String, String> SAMPLES = Map.of("--kind", "rate", "--item", "api=1",
      "HOST:PORT", NOWHERE, "ID", "0123456789abcdef");
  /** Options a command needs beyond its required ones. */
  private static final Map<String, List<String>> EXTRA = Map.of(
      "lease acquire", List.of("--rate", "1", "--burst", "1"),
      "cluster caught-up", List.of("--wait", "1s"),
      "ttl watch", List.of("--count", "1", "--for", "1s"));
  /** Commands that contact no server and take no root options. */
  private static final List<String> OFFLINE = List.of("token bootstrap");

  private CdsTraining() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("io.netty.jfr.enabled", "false");
    java.nio.file.Path certs = java.nio.file.Files.createTempDirectory("ration-cds-");
    try {
      System.exit(train(certs));
    } finally {
      try (var files = java.nio.file.Files.walk(certs)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static int train(java.nio.file.Path certs) throws Exception {
    StartWarmup.run();
    CliHelper.Result made = CliHelper.run(new String[] {"cert", "create-cluster", "--nodes", "n1",
        "--certs-dir", certs.toString()}, ClientGateway.FACTORY);
    if (made.exitCode() != Exit.OK) {
      System.err.println("error: cert create-cluster: " + new String(made.err(), java.nio.charset.StandardCharsets.UTF_8));
      return 1;
    }
    io.netty.channel.EventLoopGroup group = new io.netty.channel.nio.NioEventLoopGroup(1);
    try {
      return train(certs, tlsPeer(certs, group));
    } finally {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }
  }

  /** A loopback TLS endpoint with node n1's certificate that closes after each handshake. */
  private static String tlsPeer(java.nio.file.Path certs, io.netty.channel.EventLoopGroup group)
      throws Exception {
    io.netty.handler.ssl.SslContext ssl = io.netty.handler.ssl.SslContextBuilder
        .forServer(certs.resolve("node.n1.crt").toFile(), certs.resolve("node.n1.key").toFile())
        .trustManager(certs.resolve("ca.crt").toFile())
        .clientAuth(io.netty.handler.ssl.ClientAuth.REQUIRE).build();
    io.netty.channel.Channel server = new io.netty.bootstrap.ServerBootstrap().group(group)
        .channel(io.netty.channel.socket.nio.NioServerSocketChannel.class)
        .childHandler(new io.netty.channel.ChannelInitializer<io.netty.channel.socket.SocketChannel>() {
          @Override
          protected void initChannel(io.netty.channel.socket.SocketChannel ch) {
            io.netty.handler.ssl.SslHandler tls = ssl.newHandler(ch.alloc());
            tls.handshakeFuture().addListener(done -> ch.close());
            ch.pipeline().addLast(tls);
          }
        })
        .bind(java.net.InetAddress.getLoopbackAddress(), 0).sync().channel();
    return "127.0.0.1:" + ((java.net.InetSocketAddress) server.localAddress()).getPort();
  }

  private static int train(java.nio.file.Path certs, String peer) throws Exception {
    List<String> tls = List.of("--ca", certs.resolve("ca.crt").toString(),
        "--cert", certs.resolve("client.admin.crt").toString(),
        "--key", certs.resolve("client.admin.key").toString());
    Map<String, List<String>> lines = commandLines(peer, tls);
    ExecutorService pool = Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r, "cds-training");
      t.setDaemon(true);
      return t;
    });
    Map<String, Future<CliHelper.Result>> runs = new TreeMap<>();
    for (Map.Entry<String, List<String>> e : lines.entrySet()) {
      String[] line = e.getValue().toArray(new String[0]);
      runs.put(e.getKey(), pool.submit(() -> CliHelper.run(line, ClientGateway.FACTORY)));
    }
    CliHelper.run(new String[] {"--servers", NOWHERE, "--timeout", "1s", "limit", "list",
        "--insecure"}, ClientGateway.FACTORY);
    List<String> refused = new ArrayList<>();
    for (Map.Entry<String, Future<CliHelper.Result>> e : runs.entrySet()) {
      CliHelper.Result r;
      try {
        r = e.getValue().get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException timeout) {
        refused.add(e.getKey() + ": no answer within 30 s");
        continue;
      }
      if (r.exitCode() == Exit.USAGE) {
        refused.add(e.getKey() + ": " + String.join(" ", lines.get(e.getKey())) + " -> "
            + new String(r.err(), java.nio.charset.StandardCharsets.UTF_8).strip());
      }
    }
    pool.shutdown();
    // Loaded once per process in a real call, and not by the runs above: version and help.
    CliHelper.run(new String[] {"--version"}, ClientGateway.FACTORY);
    CliHelper.run(new String[] {"limit", "get", "--help"}, ClientGateway.FACTORY);
    if (!refused.isEmpty()) {
      System.err.println("error: the class-data training run could not build these commands' "
          + "arguments (see CdsTraining):\n  " + String.join("\n  ", refused));
      return 1;
    }
    System.out.println("class-data training: " + runs.size() + " commands run");
    return 0;
  }

  /** Each trained command's name and a command line that runs it, in name order. */
  static Map<String, List<String>> commandLines(String servers, List<String> tls) {
    CommandLine root = RationCli.commandLine(ClientGateway.FACTORY, (config, join) -> {
      throw new IllegalStateException("training starts no servers");
    });
    Map<String, List<String>> lines = new TreeMap<>();
    for (Map.Entry<String, CommandLine> top : root.getSubcommands().entrySet()) {
      String name = top.getKey();
      if (SKIPPED.contains(name) || !name.equals(top.getValue().getCommandName())) {
        continue; // left out, or an alias
      }
      collect(top.getValue(), List.of(name), servers, tls, lines);
    }
    return lines;
  }

  private static void collect(CommandLine command, List<String> path, String servers,
      List<String> tls, Map<String, List<String>> out) {
    Map<String, CommandLine> subs = command.getSubcommands();
    if (subs.isEmpty()) {
      String name = String.join(" ", path);
      List<String> line = new ArrayList<>();
      if (!OFFLINE.contains(name)) {
        line.addAll(List.of("--servers", servers, "--timeout", "1s"));
      }
      line.addAll(path);
      line.addAll(requiredArguments(command.getCommandSpec()));
      if (command.getCommandSpec().findOption("--ca") != null) {
        line.addAll(tls);
      }
      line.addAll(EXTRA.getOrDefault(name, List.of()));
      out.put(name, line);
      return;
    }
    for (Map.Entry<String, CommandLine> sub : subs.entrySet()) {
      if (sub.getKey().equals(sub.getValue().getCommandName())) {
        List<String> next = new ArrayList<>(path);
        next.add(sub.getKey());
        collect(sub.getValue(), next, servers, tls, out);
      }
    }
  }

  /** A value for each required option and positional parameter, by its type. */
  private static List<String> requiredArguments(CommandSpec spec) {
    List<String> args = new ArrayList<>();
    for (OptionSpec o : spec.options()) {
      if (o.required()) {
        args.add(o.longestName());
        if (o.arity().max() > 0) {
          args.add(sample(o));
        }
      }
    }
    for (ArgSpec p : spec.positionalParameters()) {
      if (p.required()) {
        args.add(sample(p));
      }
    }
    return args;
  }

  private static String sample(ArgSpec arg) {
    if (arg instanceof OptionSpec o && SAMPLES.containsKey(o.longestName())) {
      return SAMPLES.get(o.longestName());
    }
    Class<?> type = arg.type();
    if (type.isEnum()) {
      return type.getEnumConstants()[0].toString();
    }
    if (type == java.time.Duration.class) {
      return "1s";
    }
    if (type != String.class) {
      return "1";
    }
    String label = arg.paramLabel();
    if (SAMPLES.containsKey(label)) {
      return SAMPLES.get(label);
    }
    String lower = label.toLowerCase(java.util.Locale.ROOT);
    return lower.contains("duration") || lower.contains("ttl") ? "1s" : "cds";
  }
}
