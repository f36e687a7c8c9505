package dev.ration.protocol.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads certificates and private keys from PEM files with the JDK alone (this module, and so
 * the client library, takes no cryptography dependency). Keys must be unencrypted PKCS#8
 * ({@code BEGIN PRIVATE KEY}), EC or RSA, which is what {@code ration cert} writes; the older
 * OpenSSL forms get an error that says how to convert them. Stateless; thread-safe.
 */
public final class PemFiles {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----", Pattern.DOTALL);

  private PemFiles() {}

  /** Every certificate in {@code file}, in order; at least one. */
  public static List<X509Certificate> certificates(Path file) throws PemException {
    String text = read(file);
    List<X509Certificate> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
    }
    while (m.find()) {
      if (!m.group(1).equals("CERTIFICATE")) {
        continue;
      }
      byte[] der = decode(file, m.group(2), "CERTIFICATE");
      try {
        Certificate c = factory.generateCertificate(new ByteArrayInputStream(der));
        out.add((X509Certificate) c);
      } catch (CertificateException | ClassCastException e) {
        throw new PemException(file, "certificate " + (out.size() + 1) + " is not a valid X.509 certificate: " + e.getMessage(), e);
      }
    }
    if (out.isEmpty()) {
      throw new PemException(file, "holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)");
    }
    return List.copyOf(out);
  }

  /** The one private key in {@code file}. */
  public static PrivateKey privateKey(Path file) throws PemException {
    String text = read(file);
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      String type = m.group(1);
      if (type.equals("EC PRIVATE KEY") || type.equals("RSA PRIVATE KEY")) {
        throw new PemException(file, "holds a " + type + " in the old OpenSSL form; convert it to PKCS#8 with "
            + "`openssl pkcs8 -topk8 -nocrypt -in OLD -out NEW`");
      }
      if (type.equals("ENCRYPTED PRIVATE KEY")) {
        throw new PemException(file, "holds an encrypted private key; Ration needs it unencrypted "
            + "(protect the file with mode 0600 instead)");
      }
      if (!type.equals("PRIVATE KEY")) {
        continue;
      }
      byte[] der = decode(file, m.group(2), type);
      for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
        try {
          return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
          // try the next algorithm
        }
      }
      throw new PemException(file, "the PRIVATE KEY block is not a PKCS#8 EC, RSA or Ed25519 key");
    }
    throw new PemException(file, "holds no PEM private key (expected -----BEGIN PRIVATE KEY-----)");
  }

  private static String read(Path file) throws PemException {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      throw new PemException(file, "no such file");
    } catch (AccessDeniedException e) {
      throw new PemException(file, "not readable (permission denied)");
    } catch (IOException | RuntimeException e) {
      throw new PemException(file, "cannot read: " + e, e);
    }
  }

  private static byte[] decode(Path file, String body, String type) throws PemException {
    try {
      return Base64.getDecoder().decode(body.replaceAll("\\s", ""));
    } catch (IllegalArgumentException e) {
      throw new PemException(file, "the " + type + " block is not valid base64: " + e.getMessage(), e);
    }
  }
}
