package dev.ration.cli;

import dev.ration.protocol.Kind;
import java.nio.ByteBuffer;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Readies, on a second thread, what a one-shot admin command needs after its options are parsed:
 * the TLS context of the default certificates (ClientCredentials), the protocol's message tables,
 * the TLS engine's classes (a client hello is built and thrown away) and the elliptic-curve code
 * the handshake verifies with. The logging facade is initialised before this thread starts
 * (RationCli.main): two threads initialising it at once make it print warnings. A command spends its first tenth of a second building picocli's model of itself on the main
 * thread; these run meanwhile on the other core, so the connection that follows finds them done
 * (docs/CLI.md, "Start time"). Nothing here touches the network or the cluster; the only files
 * read are the certificates the command itself would read; every failure is ignored: the
 * command then does the same work itself, just later.
 */
final class StartWarmup {
  /** Commands that never reach a cluster from this process: no warm-up. */
  private static final List<String> LOCAL = List.of("server", "bench", "cert", "completion", "helper");

  private StartWarmup() {}

  /**
   * Starts the warm-up for {@code args} and returns its thread, or null when the command works
   * without a cluster (or only prints help or the version).
   */
  static Thread startFor(String[] args) {
    // On one core a second thread only takes turns with the main one. The property is for
    // measuring the warm-up against its absence.
    if (Runtime.getRuntime().availableProcessors() < 2
        || "false".equals(System.getProperty("ration.cli.warmup"))) {
      return null;
    }
    for (String a : args) {
      if (LOCAL.contains(a) || a.equals("--help") || a.equals("-h") || a.equals("--version")
          || a.equals("-V")) {
        return null;
      }
    }
    Thread t = new Thread(() -> run(args), "ration-warmup");
    t.setDaemon(true);
    t.start();
    return t;
  }

  static void run() {
    run(new String[0]);
  }

  /** The warm-up for {@code args}: their default certificates, then the classes. */
  static void run(String[] args) {
    try {
      prepareDefaultTls(args);
      // The message shapes of HELLO and of the command's family (each family's are built on
      // first use).
      Kind.HELLO.requestType();
      Kind.HELLO.replyType();
      Kind family = familyOf(args);
      family.requestType();
      family.replyType();
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair pair = g.generateKeyPair();
      Signature s = Signature.getInstance("SHA256withECDSA");
      s.initSign(pair.getPrivate());
      s.update((byte) 1);
      byte[] sig = s.sign();
      s.initVerify(pair.getPublic());
      s.update((byte) 1);
      s.verify(sig);
      SSLContext ctx = SSLContext.getInstance("TLSv1.3");
      // A trust manager of its own: the default one would read the JDK's whole CA store.
      ctx.init(null, new TrustManager[] {new RefusingTrustManager()}, null);
      SSLEngine engine = ctx.createSSLEngine("warmup.invalid", 1);
      engine.setUseClientMode(true);
      engine.beginHandshake();
      engine.wrap(ByteBuffer.allocate(0), ByteBuffer.allocate(engine.getSession().getPacketBufferSize()));
    } catch (Exception | LinkageError e) {
      // Nothing to do: the command loads and initialises the same classes when it needs them.
    }
  }

  /** A kind of the message family the command named in {@code args} speaks. */
  static Kind familyOf(String[] args) {
    return switch (NamedCommandOnly.commandWord(args).orElse("")) {
      case "ttl", "lock" -> Kind.TTL_GET;
      case "quota", "reserve", "reservation", "usage", "audit" -> Kind.QUOTA_GET;
      case "token", "role", "security" -> Kind.WHOAMI;
      default -> Kind.CLUSTER_STATUS;
    };
  }

  /**
   * Reads the certificates a command without TLS options uses (the certificates directory's,
   * ClientCredentials) and builds their TLS context, which the command's client then takes
   * instead of building its own (ClientTlsFiles.load). With --ca, --cert, --key or --insecure the
   * command uses other settings: nothing is prepared.
   */
  private static void prepareDefaultTls(String[] args) {
    for (String a : args) {
      if (a.startsWith("--ca") || a.startsWith("--cert") || a.startsWith("--key") || a.equals("--insecure")
          || a.startsWith("@")) {
        return;
      }
    }
    ClientCredentials.resolve(null, null, null, false).ifPresent(tls ->
        dev.ration.protocol.tls.ClientTlsFiles.prepare(tls.caFile(), tls.certFile(), tls.keyFile()));
  }

  /** Never used for a decision: the engine above never receives a certificate. */
  private static final class RefusingTrustManager implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("warm-up trusts nothing");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("warm-up trusts nothing");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
