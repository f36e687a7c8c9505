package dev.ration.server.tls;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What makes a certificate a node's: an extended key usage of Ration's own, {@link #NODE_USAGE},
 * next to the usual serverAuth and clientAuth. A client certificate of the same CA (a tenant's,
 * an administrator's) is signed exactly like a node's and differs only in its names, which
 * anyone with `ration cert create-client` chooses; so the Raft port cannot tell a node from a
 * client by chain or name, only by a usage that only node certificates are issued with.
 * Stateless; thread-safe.
 */
public final class NodeCertificates {
  /**
   * The node usage: an OID under the UUID arc {@code 2.25} (ITU-T X.667), which needs no
   * registration and collides with nobody's. Changing it locks every node out of its peers.
   */
  public static final String NODE_USAGE = "2.25.267090585079946004897133559556111488901";

  private NodeCertificates() {}

  /** True if {@code certificate}'s extended key usages include {@link #NODE_USAGE}. */
  public static boolean isNode(X509Certificate certificate) {
    try {
      List<String> usages = certificate.getExtendedKeyUsage();
      return usages != null && usages.contains(NODE_USAGE);
    } catch (CertificateParsingException e) {
      return false;
    }
  }

  /** How to re-issue node {@code id}'s certificate with the node usage, for refusal messages. */
  public static String howToReissue(String id) {
    return "re-issue it as a node certificate: `ration cert create-node " + id
        + " --host HOST,... --overwrite` (same CA, same hosts), or from your own CA with extended key usages "
        + "serverAuth, clientAuth and " + NODE_USAGE + "; docs/SECURITY.md, \"Node certificates\"";
  }
}
