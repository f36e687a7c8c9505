package dev.ration.protocol.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager holding one key and its certificate chain, swappable while connections are
 * open: each new handshake uses the pair current when it starts, so a rotated certificate is
 * used by every connection made after {@link #set}, and connections already open keep theirs.
 *
 * <p>A handshake asks for an alias, then for the chain and the key under that alias in separate
 * calls; a swap in between must not hand it the new chain with the old key. Every pair
 * therefore gets its own alias, and the previous pair stays reachable under its alias, so a
 * handshake that chose an alias gets a matching chain and key whatever happens meanwhile.
 * Thread-safe (volatile references to immutable pairs).
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
  private record Entry(String alias, PrivateKey key, X509Certificate[] chain) {}

  private final AtomicLong generation = new AtomicLong();
  private volatile Entry current;
  private volatile Entry previous;

  public ReloadingKeyManager(PrivateKey key, List<X509Certificate> chain) {
    this.current = entry(key, chain);
    this.previous = current;
  }

  /** Makes {@code key} and {@code chain} (leaf first) the pair of every later handshake. */
  public synchronized void set(PrivateKey key, List<X509Certificate> chain) {
    Entry next = entry(key, chain);
    previous = current;
    current = next;
  }

  /** The leaf certificate presented now. */
  public X509Certificate certificate() {
    return current.chain[0];
  }

  private Entry entry(PrivateKey key, List<X509Certificate> chain) {
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("empty certificate chain");
    }
    return new Entry("ration-" + generation.incrementAndGet(), key, chain.toArray(new X509Certificate[0]));
  }

  private String aliasFor(String keyType) {
    Entry e = current;
    String algorithm = e.key.getAlgorithm();
    boolean matches = keyType == null
        || keyType.equals(algorithm)
        || keyType.startsWith(algorithm + "_")
        || (algorithm.equals("RSA") && keyType.equals("RSASSA-PSS"));
    return matches ? e.alias : null;
  }

  private Entry find(String alias) {
    Entry c = current;
    if (c.alias.equals(alias)) {
      return c;
    }
    Entry p = previous;
    return p.alias.equals(alias) ? p : null;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    String a = aliasFor(keyType);
    return a == null ? null : new String[] {a};
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    return chooseFirst(keyTypes);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    return chooseFirst(keyTypes);
  }

  private String chooseFirst(String[] keyTypes) {
    if (keyTypes == null) {
      return aliasFor(null);
    }
    for (String t : keyTypes) {
      String a = aliasFor(t);
      if (a != null) {
        return a;
      }
    }
    return null;
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return aliasFor(keyType);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Entry e = find(alias);
    return e == null ? null : e.chain.clone();
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Entry e = find(alias);
    return e == null ? null : e.key;
  }
}
