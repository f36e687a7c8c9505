package dev.ration.protocol.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** JDK trust managers from certificates already read. Stateless. */
public final class Pki {
  private Pki() {}

  /**
   * True if {@code key} is the private key of {@code cert}: a random message signed with the
   * key verifies with the certificate's public key.
   */
  public static boolean matches(PrivateKey key, X509Certificate cert) {
    String algorithm = switch (key.getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    if (algorithm == null || !key.getAlgorithm().equals(cert.getPublicKey().getAlgorithm())
        && !(key.getAlgorithm().startsWith("Ed") && cert.getPublicKey().getAlgorithm().startsWith("Ed"))) {
      return false;
    }
    try {
      byte[] message = new byte[32];
      new SecureRandom().nextBytes(message);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(message);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(message);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }

  /** A PKIX trust manager trusting exactly {@code cas} (no JDK default roots). */
  public static X509ExtendedTrustManager trustManager(List<X509Certificate> cas) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      int i = 0;
      for (X509Certificate ca : cas) {
        ks.setCertificateEntry("ca-" + i++, ca);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
      tmf.init(ks);
      for (TrustManager tm : tmf.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new IllegalStateException("the JDK's TrustManagerFactory made no X509ExtendedTrustManager");
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("cannot build a trust manager: " + e.getMessage(), e);
    }
  }
}
