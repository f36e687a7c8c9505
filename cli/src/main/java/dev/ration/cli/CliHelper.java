package dev.ration.cli;

import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * The resident helper of `bin/ration` (docs/CLI.md, "Start time"; docs/DECISIONS.md, "CLI start:
 * a resident helper"): a JVM of one user that keeps the CLI's classes loaded and compiled and
 * runs admin commands (reads, and mutations with a fixed request key) for the launcher, so such a command costs
 * a bash start and the command's own work instead of a JVM start.
 *
 * <p>It runs the very command line a direct run would ({@link RationCli#commandLine}, a fresh
 * one per call) with stdout and stderr captured through picocli's writers in the charsets a
 * direct run would use, and answers the exit code and both outputs. It listens on loopback on an
 * ephemeral port, written with two random secrets to a state file (mode 0600, in a directory
 * of mode 0700). Per connection: the caller sends the first secret; a wrong one is dropped
 * without a byte; the helper answers the second secret, so the caller knows it is talking to
 * its own helper before it sends the command (a stale port may have been taken by another
 * process). Then the caller sends the argument count and each argument NUL-terminated, and the
 * helper answers {@code "EXIT OUT_LEN ERR_LEN\n"}, ERR_LEN bytes of stderr, then OUT_LEN bytes of
 * stdout, and closes. Anything it will not run (not {@link #served}, its jar changed, a call
 * past its deadline) is closed without a header: the launcher then runs the command directly.
 * An argument count of 0 asks for the helper's status line instead.
 *
 * <p>It exits after {@link #IDLE} without calls, and at once when its jar or its java
 * executable changes (a new build or JDK must not be answered by the old code).
 */
public final class CliHelper {
  /** How long the helper waits for the next call before it exits. */
  static final Duration IDLE = Duration.ofMinutes(10);
  /** Beyond a command's own deadline: a call still running then is given up. */
  private static final Duration MARGIN = Duration.ofSeconds(10);
  private static final int MAX_REQUEST_BYTES = 1 << 20;
  private static final int CONCURRENT_CALLS = 4;
  /**
   * Connections read at once, most of them only until the caller's secret (or its absence) is
   * known: any local user can connect, so silent connections must not take the places of
   * callers ({@link #CONCURRENT_CALLS} bounds the commands actually run).
   */
  private static final int CONNECTIONS_MAX = 64;
  /** How long a connection may take to present the secret: the launcher sends it at once. */
  private static final int SECRET_TIMEOUT_MILLIS = 1_000;

  /**
   * The read-only commands the helper runs: no standard input, no file output. Mirrored in
   * bin/ration (CliHelperTest checks both lists are the same). `--version` alone is served too.
   */
  static final List<String> SERVED = List.of("cluster status", "limit get", "limit list", "limit slots",
      "lease list", "ttl get", "ttl list", "ttl namespace-get", "quota get", "quota list",
      "quota history", "quota budgets", "reservation list", "role list", "token list", "security whoami",
      "security audit", "audit");
  /**
   * The mutations the helper runs, each only with its request key given ({@code --client-id}
   * and {@code --request-id}; bin/ration fixes one before the call): a launcher that falls
   * back to a direct run after the helper took the command resends the same key, which the
   * cluster answers with the first outcome. Mirrored in bin/ration.
   */
  static final List<String> MUTATIONS = List.of("limit set", "lease acquire", "lease renew",
      "lease return", "ttl put", "ttl cas", "ttl refresh", "ttl update", "ttl delete",
      "ttl namespace-set", "lock acquire", "lock release", "quota set", "reserve",
      "reservation complete", "reservation cancel", "usage ingest", "usage ack",
      "usage reconcile", "role grant", "role revoke", "token revoke");
  /** Options that name files, and help (its layout follows the terminal): such calls run directly. */
  static final List<String> DIRECT_OPTIONS = List.of("--ca", "--cert", "--key", "--auth-token-file",
      "-h", "--help");
  /** Environment variables naming files, read by the commands served: relative ones run directly. */
  static final List<String> PATH_VARIABLES = List.of("RATION_CERTS_DIR", "RATION_TOKEN_FILE");
  private static final List<String> ROOT_OPTIONS_WITH_VALUE = List.of("--servers", "--output", "--timeout");

  private final Path state;
  private final Path jar;
  private final String jarStamp;
  private final Duration idle;
  private final Map<String, String> env;
  private final Function<String[], Result> runner;
  private final byte[] callerSecret;
  private final String helperSecret;
  private final ServerSocket server;
  private final ExecutorService connections = Executors.newFixedThreadPool(CONNECTIONS_MAX, daemon("helper-call"));
  private final java.util.concurrent.Semaphore calls = new java.util.concurrent.Semaphore(CONCURRENT_CALLS);
  private final ExecutorService commands = Executors.newCachedThreadPool(daemon("helper-command"));
  private final AtomicLong lastCall = new AtomicLong(System.nanoTime());
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicLong served = new AtomicLong();
  private final Instant started = Instant.now();
  private volatile boolean stopping;

  /** {@code runner} runs one command line: {@link #run} with the production gateway, or a test's. */
  CliHelper(Path state, Path jar, Duration idle, Map<String, String> env, Function<String[], Result> runner)
      throws IOException {
    this.runner = runner;
    this.state = state;
    this.jar = jar;
    this.jarStamp = stamp(jar);
    this.idle = idle;
    this.env = env;
    SecureRandom random = new SecureRandom();
    byte[] a = new byte[32];
    byte[] b = new byte[32];
    random.nextBytes(a);
    random.nextBytes(b);
    this.callerSecret = HexFormat.of().formatHex(a).getBytes(StandardCharsets.US_ASCII);
    this.helperSecret = HexFormat.of().formatHex(b);
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
  }

  /** {@code CliHelper --state FILE --jar JAR}: what bin/ration starts. */
  public static void main(String[] args) throws Exception {
    if (args.length != 4 || !args[0].equals("--state") || !args[2].equals("--jar")) {
      System.err.println("error: usage: CliHelper --state FILE --jar JAR");
      System.exit(Exit.USAGE);
    }
    System.setProperty("io.netty.jfr.enabled", "false");
    Path state = Path.of(args[1]).toAbsolutePath();
    Path dir = state.getParent();
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    // One helper per state file: a second one started by a concurrent first call gives way.
    Path lockFile = dir.resolve(state.getFileName() + ".lock");
    try (FileChannel lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
         FileLock lock = lockChannel.tryLock()) {
      if (lock == null) {
        log("another helper holds " + lockFile + "; exiting");
        return;
      }
      CliHelper helper = new CliHelper(state, Path.of(args[3]), IDLE, System.getenv(),
          a -> run(a, ClientGateway.FACTORY));
      Runtime.getRuntime().addShutdownHook(new Thread(helper::removeState));
      // Warm first, then publish: until the state file names it, callers run directly.
      helper.warmUp();
      helper.publish();
      log("helper pid " + ProcessHandle.current().pid() + " listening on " + helper.port()
          + " for " + state.getFileName());
      String why = helper.serve();
      log("helper pid " + ProcessHandle.current().pid() + " exiting: " + why);
    }
    System.exit(0);
  }

  int port() {
    return server.getLocalPort();
  }

  /** Writes the state file atomically, readable by this user only: "PORT CALLER HELPER PID". */
  void publish() throws IOException {
    Path tmp = state.resolveSibling(state.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(tmp, stateLine(), StandardCharsets.US_ASCII);
    try {
      Files.move(tmp, state, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }

  private String stateLine() {
    return port() + " " + new String(callerSecret, StandardCharsets.US_ASCII) + " " + helperSecret + " "
        + ProcessHandle.current().pid() + "\n";
  }

  /** Removes the state file if it is still this helper's (a later helper may have replaced it). */
  void removeState() {
    try {
      if (Files.readString(state, StandardCharsets.US_ASCII).equals(stateLine())) {
        Files.delete(state);
      }
    } catch (IOException e) {
      // Gone already, or unreadable: either way no caller will reach this helper through it.
    }
  }

  /**
   * Loads the path of the commonest call once, and has the JIT compile the elliptic-curve
   * arithmetic of TLS handshakes (ECDSA on P-256, X25519 and P-256 key agreement: most of a warm
   * call's CPU): in JDK 17 that is Java code whose compilation would otherwise take the first
   * dozens of calls. Bounded by {@link #WARM_UP_ITERATIONS} and {@link #WARM_UP_TIME}.
   */
  void warmUp() {
    for (String[] args : List.of(new String[] {"--version"}, new String[] {"cluster", "status", "--help"})) {
      runner.apply(args);
    }
    try {
      java.security.KeyPairGenerator ec = java.security.KeyPairGenerator.getInstance("EC");
      ec.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
      java.security.KeyPairGenerator x = java.security.KeyPairGenerator.getInstance("X25519");
      byte[] data = new byte[64];
      long end = System.nanoTime() + WARM_UP_TIME.toNanos();
      for (int i = 0; i < WARM_UP_ITERATIONS && System.nanoTime() < end; i++) {
        java.security.KeyPair a = ec.generateKeyPair();
        java.security.KeyPair b = ec.generateKeyPair();
        java.security.Signature sign = java.security.Signature.getInstance("SHA256withECDSA");
        sign.initSign(a.getPrivate());
        sign.update(data);
        byte[] sig = sign.sign();
        java.security.Signature verify = java.security.Signature.getInstance("SHA256withECDSA");
        verify.initVerify(a.getPublic());
        verify.update(data);
        verify.verify(sig);
        javax.crypto.KeyAgreement ecdh = javax.crypto.KeyAgreement.getInstance("ECDH");
        ecdh.init(a.getPrivate());
        ecdh.doPhase(b.getPublic(), true);
        ecdh.generateSecret();
        java.security.KeyPair c = x.generateKeyPair();
        java.security.KeyPair d = x.generateKeyPair();
        javax.crypto.KeyAgreement xdh = javax.crypto.KeyAgreement.getInstance("X25519");
        xdh.init(c.getPrivate());
        xdh.doPhase(d.getPublic(), true);
        xdh.generateSecret();
      }
    } catch (java.security.GeneralSecurityException e) {
      log("warm-up of the TLS arithmetic skipped: " + e);
    }
  }

  private static final int WARM_UP_ITERATIONS = 400;
  private static final Duration WARM_UP_TIME = Duration.ofSeconds(8);

  /** Accepts calls until idle, stopped or the jar changed; returns why it stopped. */
  String serve() throws IOException {
    Thread watcher = daemon("helper-watch").newThread(() -> {
      while (!stopping) {
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
        if (jarChanged()) {
          stop("its jar changed");
        } else if (inFlight.get() == 0 && System.nanoTime() - lastCall.get() > idle.toNanos()) {
          stop("idle for " + idle.toSeconds() + " s");
        }
      }
    });
    watcher.start();
    while (!stopping) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        if (stopping) {
          break;
        }
        throw e;
      }
      try {
        connections.execute(() -> {
          try (s) {
            handle(s);
          } catch (IOException | RuntimeException e) {
            // The caller went away or spoke nonsense: nothing to answer.
          }
        });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        s.close(); // shutting down
      }
    }
    removeState();
    connections.shutdownNow();
    commands.shutdownNow();
    return stopReason;
  }

  private volatile String stopReason = "stopped";

  void stop(String why) {
    stopReason = why;
    stopping = true;
    removeState();
    try {
      server.close();
    } catch (IOException e) {
      // Closing is all that is wanted.
    }
  }

  /** Whether its jar or its java executable changed: a new build or JDK must not be answered by this one. */
  private boolean jarChanged() {
    try {
      return !stamp(jar).equals(jarStamp);
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * The size and modification time of the jar, of the other Ration jars on the class path (the
   * daemon's and the load generator's: a rebuild may change them and not the CLI's) and of the
   * running java executable.
   */
  private static String stamp(Path jar) throws IOException {
    StringBuilder b = new StringBuilder();
    List<Path> files = new ArrayList<>(List.of(jar));
    files.addAll(RATION_JARS);
    files.add(JAVA);
    for (Path p : files) {
      if (!p.toString().isEmpty()) {
        b.append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p).toMillis()).append(' ');
      }
    }
    return b.toString();
  }

  private static final Path JAVA = Path.of(ProcessHandle.current().info().command().orElse(""));
  /** The ration-*.jar files of the class path (bin/ration's lib/*, expanded by the JVM). */
  private static final List<Path> RATION_JARS = Arrays.stream(
          System.getProperty("java.class.path", "").split(java.io.File.pathSeparator))
      .filter(e -> e.endsWith(".jar") && Path.of(e).getFileName().toString().startsWith("ration-"))
      .map(Path::of).toList();

  /**
   * One connection: the caller's secret first (within {@link #SECRET_TIMEOUT_MILLIS}); only a
   * caller that presents it counts as activity (the idle timer, calls in flight) and takes one
   * of the {@link #CONCURRENT_CALLS} places, so another local user holding silent connections
   * neither keeps the helper alive nor delays the owner's calls by more than that timeout.
   */
  private void handle(Socket s) throws IOException {
    s.setSoTimeout(SECRET_TIMEOUT_MILLIS);
    InputStream in = new java.io.BufferedInputStream(s.getInputStream());
    byte[] given = readUntil(in, (byte) '\n', 256);
    if (!MessageDigest.isEqual(given, callerSecret)) {
      return;
    }
    lastCall.set(System.nanoTime());
    inFlight.incrementAndGet();
    try {
      calls.acquire();
    } catch (InterruptedException e) {
      inFlight.decrementAndGet();
      Thread.currentThread().interrupt();
      return;
    }
    try {
      s.setSoTimeout(5_000);
      call(s, in);
    } finally {
      calls.release();
      lastCall.set(System.nanoTime());
      inFlight.decrementAndGet();
    }
  }

  /** The rest of an authenticated call: the helper's secret, the arguments, the answer. */
  private void call(Socket s, InputStream in) throws IOException {
    OutputStream out = new BufferedOutputStream(s.getOutputStream());
    out.write((helperSecret + "\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    int argc = Integer.parseInt(new String(readUntil(in, (byte) '\n', 16), StandardCharsets.US_ASCII));
    if (argc < 0 || argc > 10_000) {
      return;
    }
    Charset argCharset = argumentCharset();
    String[] args = new String[argc];
    int total = 0;
    for (int i = 0; i < argc; i++) {
      byte[] a = readUntil(in, (byte) 0, MAX_REQUEST_BYTES - total);
      total += a.length + 1;
      args[i] = new String(a, argCharset);
    }
    if (argc == 0) {
      byte[] status = statusLine().getBytes(StandardCharsets.UTF_8);
      answer(out, new Result(0, status, new byte[0]));
      return;
    }
    if (jarChanged()) {
      stop("its jar changed");
      return;
    }
    if (!served(args, env)) {
      return;
    }
    Future<Result> call = commands.submit(() -> runner.apply(args));
    Result r;
    try {
      r = call.get(deadline(args).toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      return;
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      return;
    } catch (java.util.concurrent.ExecutionException e) {
      return;
    }
    served.incrementAndGet();
    answer(out, r);
  }

  private static void answer(OutputStream out, Result r) throws IOException {
    out.write((r.exitCode() + " " + r.out().length + " " + r.err().length + "\n").getBytes(StandardCharsets.US_ASCII));
    out.write(r.err());
    out.write(r.out());
    out.flush();
  }

  String statusLine() {
    return "pid=" + ProcessHandle.current().pid() + " port=" + port() + " started=" + started
        + " served=" + served.get() + " idle-exit=" + idle.toSeconds() + "s\n";
  }

  /** What a call printed and returned. */
  record Result(int exitCode, byte[] out, byte[] err) {}

  /** Runs {@code args} as a direct `ration` run would, capturing both outputs. */
  static Result run(String[] args, ClusterGateway.Factory gateways) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintWriter outWriter = writer(out, "sun.stdout.encoding");
    PrintWriter errWriter = writer(err, "sun.stderr.encoding");
    CommandLine cl = RationCli.commandLine(gateways, (config, join) -> {
      throw new IllegalStateException("the helper does not run servers");
    }, NamedCommandOnly.forArgs(args));
    cl.setOut(outWriter);
    cl.setErr(errWriter);
    int code = cl.execute(args);
    outWriter.flush();
    errWriter.flush();
    return new Result(code, out.toByteArray(), err.toByteArray());
  }

  /** A writer in the charset picocli gives System.out or System.err in a direct run. */
  private static PrintWriter writer(OutputStream stream, String encodingProperty) {
    String name = System.getProperty(encodingProperty);
    Charset charset = Charset.defaultCharset();
    if (name != null) {
      try {
        charset = Charset.forName("cp65001".equalsIgnoreCase(name) ? "UTF-8" : name);
      } catch (RuntimeException e) {
        // picocli falls back to the default charset too.
      }
    }
    return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
  }

  /** The charset the JVM decodes its command-line arguments with. */
  private static Charset argumentCharset() {
    try {
      return Charset.forName(System.getProperty("sun.jnu.encoding", Charset.defaultCharset().name()));
    } catch (RuntimeException e) {
      return Charset.defaultCharset();
    }
  }

  /**
   * Whether the helper runs {@code args}: a {@link #SERVED} command, a {@link #MUTATIONS} one
   * with its request key, or `--version` alone; no
   * option that names a file or asks for help, no @argument file, and no relative path in the
   * environment (the helper's working directory is not the caller's). When in doubt, no.
   */
  static boolean served(String[] args, Map<String, String> env) {
    for (String v : PATH_VARIABLES) {
      String value = env.get(v);
      if (value != null && !value.isEmpty() && !value.startsWith("/")) {
        return false;
      }
    }
    if (args.length == 1 && args[0].equals("--version")) {
      return true;
    }
    for (String a : args) {
      if (a.startsWith("@")) {
        return false;
      }
      for (String o : DIRECT_OPTIONS) {
        if (a.equals(o) || a.startsWith(o + "=")) {
          return false;
        }
      }
    }
    String shape = shape(args);
    return SERVED.contains(shape) || MUTATIONS.contains(shape) && keyed(args);
  }

  /** Whether a mutation's arguments fix its request key: both options, and no "--" before them. */
  private static boolean keyed(String[] args) {
    boolean client = false;
    boolean request = false;
    for (String a : args) {
      if (a.equals("--")) {
        return false;
      }
      client |= a.equals("--client-id") || a.startsWith("--client-id=");
      request |= a.equals("--request-id") || a.startsWith("--request-id=");
    }
    return client && request;
  }

  /** The command named, as bin/ration's command_shape finds it: "cluster status", "audit", "". */
  static String shape(String[] args) {
    List<String> words = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (words.isEmpty()) {
        if (ROOT_OPTIONS_WITH_VALUE.contains(a)) {
          i++;
        } else if (!a.startsWith("-")) {
          if (!a.matches("[a-z][a-z0-9-]*")) {
            break;
          }
          words.add(a);
        }
      } else {
        if (a.matches("[a-z][a-z0-9-]*")) {
          words.add(a);
        }
        break;
      }
    }
    return String.join(" ", words);
  }

  /** The command's own --timeout (default 5 s), twice over for commands that ask more than once, plus a margin. */
  static Duration deadline(String[] args) {
    String text = "5s";
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--timeout") && i + 1 < args.length) {
        text = args[i + 1];
      } else if (args[i].startsWith("--timeout=")) {
        text = args[i].substring("--timeout=".length());
      }
    }
    Duration d;
    try {
      d = dev.ration.server.config.Quantities.parseDuration(text);
    } catch (IllegalArgumentException e) {
      d = Duration.ofSeconds(5); // The command refuses it at once.
    }
    if (d.isNegative() || d.toHours() > 1) {
      d = Duration.ofHours(1);
    }
    return d.multipliedBy(2).plus(MARGIN);
  }

  private static byte[] readUntil(InputStream in, byte end, int max) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("the caller closed the connection");
      }
      if (c == (end & 0xff)) {
        return b.toByteArray();
      }
      if (b.size() >= max) {
        throw new IOException("request too long");
      }
      b.write(c);
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void log(String line) {
    System.err.println(Instant.now() + " " + line);
  }
}
