package dev.ration.protocol.tls;

import java.security.cert.CertificateException;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLException;

/** Turns a failed TLS handshake into a sentence naming the cause. Stateless. */
public final class TlsErrors {
  private TlsErrors() {}

  /**
   * What went wrong, if {@code error} (or one of its causes) is a TLS failure on the connection
   * to {@code address}; empty if it is not about TLS at all. {@code presentedCertificate} tells
   * an alert about a refused certificate from one about a missing certificate (a JDK server
   * answers an empty certificate message with bad_certificate, not certificate_required).
   */
  public static Optional<String> explain(String address, Throwable error, boolean presentedCertificate) {
    CertificateException certificate = null;
    SSLException ssl = null;
    for (Throwable t = error; t != null && t.getCause() != t; t = t.getCause()) {
      if (certificate == null && t instanceof CertificateException c) {
        certificate = c;
      }
      if (ssl == null && t instanceof SSLException s) {
        ssl = s;
      }
    }
    if (certificate != null) {
      return Optional.of("TLS handshake with " + address + " refused: " + certificate.getMessage());
    }
    if (ssl == null) {
      return Optional.empty();
    }
    // Netty quotes the bytes of a record that is not TLS in hex: noise to a developer.
    String m = String.valueOf(ssl.getMessage()).replaceAll(": [0-9a-f]{16,}$", "");
    String lower = m.toLowerCase(Locale.ROOT);
    if (lower.contains("certificate_required") || (!presentedCertificate && lower.contains("bad_certificate"))) {
      return Optional.of("server " + address + " requires a client certificate and this client presents none "
          + "(ClientTls.withKeyPair, or --cert/--key on the CLI)");
    }
    if (lower.contains("unknown_ca") || lower.contains("bad_certificate") || lower.contains("certificate_unknown")
        || lower.contains("certificate_expired")) {
      return Optional.of("server " + address + " refused this client's certificate (" + m
          + "): it is expired or not signed by a CA the server trusts");
    }
    if (lower.contains("not an ssl/tls record") || lower.contains("unsupported or unrecognized ssl message")) {
      return Optional.of("server " + address + " does not speak TLS (" + m + "); is it running with tls mode insecure?");
    }
    return Optional.of("TLS handshake with " + address + " failed: " + m);
  }
}
