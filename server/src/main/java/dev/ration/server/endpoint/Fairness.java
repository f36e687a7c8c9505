package dev.ration.server.endpoint;

import dev.ration.protocol.Kind;
import dev.ration.protocol.Request;
import dev.ration.server.config.TenantFairness;
import dev.ration.server.security.Scope;
import dev.ration.server.security.Scopes;
import java.util.EnumSet;
import java.util.Set;

/**
 * Whose share of a node's admission ({@link TenantShares}) a request takes. The tenant comes
 * from the same per-kind table authorization uses ({@link Scopes}): a request scoped to one
 * tenant takes that tenant's place (a limit's or lease's tenant, a TTL namespace's or quota
 * scope's first segment); one that names no single tenant — a renewal or settlement by id, a
 * listing of every tenant, a security command — takes the place of its client session, so a hot
 * holder renewing thousands of leases is bounded like a hot tenant. Requests that only free
 * capacity (returning a lease, settling a reservation, acknowledging usage) and those the
 * connection answers itself are never gated. Stateless.
 */
final class Fairness {
  /** Session keys start with a control character, which no valid name contains. */
  private static final String SESSION = "\u0001session ";

  /** Kinds that never take a share: they free capacity, or the connection answers them. */
  private static final Set<Kind> UNGATED = EnumSet.of(
      Kind.HELLO, Kind.CANCEL, Kind.CLUSTER_STATUS, Kind.RETURN_LEASE,
      Kind.RESERVATION_COMPLETE, Kind.RESERVATION_CANCEL, Kind.USAGE_ACK, Kind.BUDGET_RETURN);

  /** Kinds gated even in {@link TenantFairness#QUOTA} mode: the quota work a tenant can flood. */
  private static final Set<Kind> QUOTA_WORK =
      EnumSet.of(Kind.RESERVE, Kind.RESERVE_KEYED, Kind.RESERVE_BATCH, Kind.USAGE_INGEST,
          Kind.BUDGET_GRANT, Kind.BUDGET_REPORT);

  private Fairness() {}

  /**
   * The share {@code request} takes under {@code mode}: a tenant, a session key made from
   * {@code session} (the client id from HELLO), or "" when it is not gated.
   */
  static String keyOf(TenantFairness mode, Request request, String session) {
    return keyOf(mode, request, Scopes.of(request), session);
  }

  /**
   * As {@link #keyOf(TenantFairness, Request, String)}, with {@code scope} already found by
   * {@link Scopes#of}: the connection finds it once per request for authorization and for this.
   */
  static String keyOf(TenantFairness mode, Request request, Scope scope, String session) {
    Kind kind = request.kind();
    if (mode == TenantFairness.NONE || UNGATED.contains(kind)
        || (mode == TenantFairness.QUOTA && !QUOTA_WORK.contains(kind))) {
      return "";
    }
    if (scope instanceof Scope.Tenant t && !t.tenant().isEmpty()) {
      return t.tenant();
    }
    return SESSION + session;
  }

  /** How a key reads in a refusal. */
  static String describe(String key) {
    return key.startsWith(SESSION) ? "this client session" : "tenant " + key;
  }
}
