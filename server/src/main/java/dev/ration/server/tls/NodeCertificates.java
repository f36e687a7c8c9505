package dev.ration.server.tls;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;

/**
 * What makes a certificate a node's: a subject alternative name of type URI starting with
 * {@link #NODE_URI_PREFIX} ({@code urn:ration:node:<id>}). A client certificate of the same CA
 * (a tenant's, an administrator's) is signed exactly like a node's and differs only in its
 * names, which anyone with `ration cert create-client` chooses, and create-client never writes
 * this name; so the Raft port tells a node from a client by a name only node certificates are
 * issued with. A URI name rather than an extended key usage of Ration's own: an OID needs a
 * registered arc whose numbers every TLS stack parses (Go's, in Prometheus, refuses a
 * certificate whose usage OID has a 128-bit arc), and any CA tool writes a URI name.
 * Stateless; thread-safe.
 */
public final class NodeCertificates {
  /**
   * The start of a node's URI name; the node id follows. Changing it locks every node out of
   * its peers.
   */
  public static final String NODE_URI_PREFIX = "urn:ration:node:";

  /** GeneralName type of a URI in {@link X509Certificate#getSubjectAlternativeNames()}. */
  private static final int URI = 6;

  private NodeCertificates() {}

  /** The URI name node {@code id}'s certificate carries. */
  public static String nodeUri(String id) {
    return NODE_URI_PREFIX + id;
  }

  /** True if {@code certificate} names a node ({@link #NODE_URI_PREFIX}) among its URI names. */
  public static boolean isNode(X509Certificate certificate) {
    try {
      Collection<List<?>> names = certificate.getSubjectAlternativeNames();
      if (names == null) {
        return false;
      }
      for (List<?> name : names) {
        if (name.size() >= 2 && Integer.valueOf(URI).equals(name.get(0))
            && name.get(1) instanceof String uri && uri.startsWith(NODE_URI_PREFIX)
            && uri.length() > NODE_URI_PREFIX.length()) {
          return true;
        }
      }
      return false;
    } catch (CertificateParsingException e) {
      return false;
    }
  }

  /** How to re-issue node {@code id}'s certificate as a node's, for refusal messages. */
  public static String howToReissue(String id) {
    return "re-issue it as a node certificate: `ration cert create-node " + id
        + " --host HOST,... --overwrite` (same CA, same hosts), or from your own CA with the subject"
        + " alternative name URI:" + nodeUri(id) + " next to its host names; docs/SECURITY.md,"
        + " \"Node certificates\"";
  }
}
