package dev.ration.statemachine.security;

import dev.ration.wire.security.RoleGrant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable copy of the tokens and grants, published by the {@link SecurityLedger} after
 * every entry that changed them. The server authenticates and authorizes every request
 * against the latest copy without touching the ledger: a revoked or expired token stops
 * working on the next request once the entry removing it is applied on the serving node.
 *
 * <p>Thread: immutable, shared freely.
 */
public final class SecurityTable {
  public static final SecurityTable EMPTY = new SecurityTable(Map.of(), Map.of());

  private final Map<Long, StoredToken> tokens;
  private final Map<String, List<RoleGrant>> grants;

  SecurityTable(Map<Long, StoredToken> tokens, Map<String, List<RoleGrant>> grants) {
    this.tokens = Map.copyOf(tokens);
    this.grants = Map.copyOf(grants);
  }

  /** A table holding exactly {@code tokens} and {@code grants} (tests, tools). */
  public static SecurityTable of(List<StoredToken> tokens, List<RoleGrant> grants) {
    Map<Long, StoredToken> byId = new java.util.HashMap<>();
    for (StoredToken t : tokens) {
      byId.put(t.tokenId(), t);
    }
    Map<String, List<RoleGrant>> byIdentity = new java.util.HashMap<>();
    for (RoleGrant g : grants) {
      byIdentity.computeIfAbsent(g.identity(), k -> new java.util.ArrayList<>()).add(g);
    }
    Map<String, List<RoleGrant>> frozen = new java.util.HashMap<>();
    byIdentity.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
    return new SecurityTable(byId, frozen);
  }

  public Optional<StoredToken> token(long tokenId) {
    return Optional.ofNullable(tokens.get(tokenId));
  }

  /** The grants of {@code identity}, empty if none. */
  public List<RoleGrant> grants(String identity) {
    return grants.getOrDefault(identity, List.of());
  }

  public int tokenCount() {
    return tokens.size();
  }
}
