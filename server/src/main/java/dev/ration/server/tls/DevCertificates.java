package dev.ration.server.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Development certificates, CockroachDB's {@code cert create-ca} style: a CA, node certificates
 * (server and client use, naming the node in a URI name and the hosts peers and clients dial) and
 * client certificates (a name as the subject's common name), all EC P-256, written as PEM with
 * keys in PKCS#8 and mode 0600. Also used by tests to make expired, not-yet-valid and foreign-CA certificates.
 * Stateless; thread-safe.
 */
public final class DevCertificates {
  public static final Duration CA_VALIDITY = Duration.ofDays(10 * 365);
  public static final Duration CERT_VALIDITY = Duration.ofDays(365);
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A certificate and its key. */
  public record Issued(X509Certificate certificate, PrivateKey key) {}

  private DevCertificates() {}

  /** Eight random hex digits: CAs made on different machines get different names. */
  public static String shortId() {
    byte[] b = new byte[4];
    RANDOM.nextBytes(b);
    return java.util.HexFormat.of().formatHex(b);
  }

  public static KeyPair newKeyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make EC P-256 keys", e);
    }
  }

  /** A self-signed CA certificate valid from {@code notBefore} to {@code notAfter}. */
  public static Issued ca(String commonName, Instant notBefore, Instant notAfter) {
    KeyPair kp = newKeyPair();
    X500Name name = name(commonName);
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(), Date.from(notBefore),
          Date.from(notAfter), name, kp.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
      return new Issued(sign(b, kp.getPrivate()), kp.getPrivate());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot make the CA certificate: " + e.getMessage(), e);
    }
  }

  /**
   * Node {@code id}'s certificate signed by {@code ca}: server and client use, CN={@code id}, with
   * {@code hosts} (names or IP addresses) and the node name peers require on the Raft port
   * ({@link NodeCertificates#nodeUri}) as subject alternative names.
   */
  public static Issued node(Issued ca, String id, List<String> hosts, Instant notBefore, Instant notAfter) {
    return leaf(ca, id, hosts, notBefore, notAfter, true);
  }

  /**
   * A leaf certificate for {@code commonName} signed by {@code ca}: server and client use, with
   * {@code hosts} (names or IP addresses) as subject alternative names, and without the node
   * usage: a client's, or (in tests) what a node certificate looked like before it had one.
   */
  public static Issued leaf(Issued ca, String commonName, List<String> hosts, Instant notBefore, Instant notAfter) {
    return leaf(ca, commonName, hosts, notBefore, notAfter, false);
  }

  private static Issued leaf(Issued ca, String commonName, List<String> hosts, Instant notBefore, Instant notAfter,
      boolean node) {
    KeyPair kp = newKeyPair();
    KeyPurposeId[] usages = {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth};
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.certificate(), serial(), Date.from(notBefore),
          Date.from(notAfter), name(commonName), kp.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
          .addExtension(Extension.extendedKeyUsage, false,
              new ExtendedKeyUsage(usages))
          .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca.certificate()))
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
      if (!hosts.isEmpty() || node) {
        List<GeneralName> names = new ArrayList<>();
        for (String h : hosts) {
          names.add(isIp(h) ? new GeneralName(GeneralName.iPAddress, h) : new GeneralName(GeneralName.dNSName, h));
        }
        if (node) {
          names.add(new GeneralName(GeneralName.uniformResourceIdentifier,
              NodeCertificates.nodeUri(commonName)));
        }
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(new GeneralName[0])));
      }
      return new Issued(sign(b, ca.key()), kp.getPrivate());
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot make the certificate for " + commonName + ": " + e.getMessage(), e);
    }
  }

  private static boolean isIp(String host) {
    if (IPV4.matcher(host).matches()) {
      return true;
    }
    if (host.contains(":")) {
      try {
        InetAddress.getByName(host);
        return true;
      } catch (IOException e) {
        return false;
      }
    }
    return false;
  }

  private static X500Name name(String commonName) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "Ration").addRDN(BCStyle.CN, commonName).build();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer) throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter().getCertificate(
          b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign: " + e.getMessage(), e);
    }
  }

  // ------------------------------------------------------------------ PEM files

  public static String pem(X509Certificate c) {
    try {
      return pem("CERTIFICATE", c.getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String pem(PrivateKey k) {
    return pem("PRIVATE KEY", k.getEncoded());
  }

  private static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  /** Writes {@code issued} as {@code <base>.crt} (0644) and {@code <base>.key} (0600) in {@code dir}. */
  public static void write(Path dir, String base, Issued issued, boolean overwrite) throws IOException {
    if (!Files.isDirectory(dir)) {
      try {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        Files.createDirectories(dir);
      }
    }
    writeFile(dir.resolve(base + ".key"), pem(issued.key()), "rw-------", overwrite);
    writeFile(dir.resolve(base + ".crt"), pem(issued.certificate()), "rw-r--r--", overwrite);
  }

  /**
   * Writes {@code text} with {@code mode}, never visible with a wider mode: a key file is
   * created 0600 before a byte of the key is written. Replaces through a temporary file and a
   * rename, so a node reloading its certificates never reads half a file.
   */
  public static void writeFile(Path file, String text, String mode, boolean overwrite) throws IOException {
    if (!overwrite && Files.exists(file)) {
      throw new FileAlreadyExistsException(file.toString(), null, "exists; pass --overwrite to replace it");
    }
    Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(mode)));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tmp);
    }
    Files.writeString(tmp, text, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
