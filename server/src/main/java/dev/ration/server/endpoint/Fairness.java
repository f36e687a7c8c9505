package dev.ration.server.endpoint;

import dev.ration.client.internal.protocol.Kind;
import dev.ration.client.internal.protocol.QuotaRequest;
import dev.ration.client.internal.protocol.Request;
import dev.ration.client.internal.protocol.TtlRequest;
import dev.ration.server.config.TenantFairness;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Whose share of a node's admission ({@link TenantShares}) a request takes, per operation kind.
 * A request that names a tenant takes that tenant's place: a limit's or lease's tenant, a TTL
 * namespace, a quota scope's {@code org/tenant}. One that names none — a renewal or a listing
 * by lease id, consumer or sequence — takes the place of its client session, so a hot holder
 * renewing thousands of leases is bounded like a hot tenant. Requests that only free capacity
 * (returning a lease, settling a reservation, acknowledging usage) and those the connection
 * answers itself are never gated.
 *
 * <p>The table covers every {@link Kind} or this class fails to load, naming the kinds missing:
 * a new operation must say whose share it takes. Stateless.
 */
final class Fairness {
  /** Session keys start with a control character, which no valid name contains. */
  private static final String SESSION = "\u0001session ";

  /** Kinds that never take a share: they free capacity, or the connection answers them. */
  private static final Set<Kind> UNGATED = EnumSet.of(
      Kind.HELLO, Kind.CANCEL, Kind.CLUSTER_STATUS, Kind.RETURN_LEASE,
      Kind.RESERVATION_COMPLETE, Kind.RESERVATION_CANCEL, Kind.USAGE_ACK);

  /** Kinds gated even in {@link TenantFairness#QUOTA} mode: the quota work a tenant can flood. */
  private static final Set<Kind> QUOTA_WORK =
      EnumSet.of(Kind.RESERVE, Kind.RESERVE_KEYED, Kind.USAGE_INGEST);

  /** The tenant a request names ("" when it names none: the session's share is taken). */
  private static final Map<Kind, Function<Request, String>> TENANT = new EnumMap<>(Kind.class);

  static {
    lease(Kind.SET_LIMIT, Request.SetLimit.class, r -> r.limit().tenant());
    lease(Kind.GET_LIMIT, Request.GetLimit.class, Request.GetLimit::tenant);
    lease(Kind.LIST_LIMITS, Request.ListLimits.class, r -> "");
    lease(Kind.ACQUIRE_LEASE, Request.AcquireLease.class, Request.AcquireLease::tenant);
    lease(Kind.RENEW_LEASE, Request.RenewLease.class, r -> "");
    lease(Kind.RENEW_LEASES, Request.RenewLeases.class, r -> "");
    lease(Kind.LIST_LEASES, Request.ListLeases.class, Request.ListLeases::tenant);
    lease(Kind.SET_LIMIT_CONCURRENCY, Request.SetLimitConcurrency.class, r -> r.limit().tenant());
    lease(Kind.ACQUIRE_SLOTS, Request.AcquireSlots.class, Request.AcquireSlots::tenant);
    lease(Kind.RENEW_SLOTS, Request.RenewSlots.class, r -> "");
    lease(Kind.GET_SLOTS, Request.GetSlots.class, Request.GetSlots::tenant);
    ttl(Kind.TTL_PUT, TtlRequest.Put.class, TtlRequest.Put::namespace);
    ttl(Kind.TTL_CAS, TtlRequest.CompareAndSet.class, TtlRequest.CompareAndSet::namespace);
    ttl(Kind.TTL_REFRESH, TtlRequest.Refresh.class, TtlRequest.Refresh::namespace);
    ttl(Kind.TTL_DELETE, TtlRequest.Delete.class, TtlRequest.Delete::namespace);
    ttl(Kind.TTL_GET, TtlRequest.Get.class, TtlRequest.Get::namespace);
    ttl(Kind.TTL_LIST, TtlRequest.List.class, TtlRequest.List::namespace);
    ttl(Kind.TTL_NAMESPACE_SET, TtlRequest.SetNamespace.class, TtlRequest.SetNamespace::namespace);
    ttl(Kind.TTL_NAMESPACE_GET, TtlRequest.GetNamespaces.class, TtlRequest.GetNamespaces::namespace);
    quota(Kind.QUOTA_SET, QuotaRequest.SetQuota.class, r -> r.spec().scope());
    quota(Kind.QUOTA_GET, QuotaRequest.GetQuota.class, QuotaRequest.GetQuota::scope);
    quota(Kind.QUOTA_LIST, QuotaRequest.ListQuotas.class, QuotaRequest.ListQuotas::scopePrefix);
    quota(Kind.QUOTA_HISTORY, QuotaRequest.QuotaHistory.class, QuotaRequest.QuotaHistory::scope);
    quota(Kind.RESERVE, QuotaRequest.Reserve.class, QuotaRequest.Reserve::scope);
    quota(Kind.RESERVE_KEYED, QuotaRequest.ReserveKeyed.class, QuotaRequest.ReserveKeyed::scope);
    quota(Kind.RESERVATION_LIST, QuotaRequest.ListReservations.class,
        QuotaRequest.ListReservations::scopePrefix);
    quota(Kind.USAGE_INGEST, QuotaRequest.IngestUsage.class, QuotaRequest.IngestUsage::scope);
    quota(Kind.USAGE_READ, QuotaRequest.ReadUsage.class, r -> "");
    quota(Kind.USAGE_AGGREGATE, QuotaRequest.AggregateUsage.class, QuotaRequest.AggregateUsage::scope);
    quota(Kind.USAGE_RECONCILE, QuotaRequest.Reconcile.class, QuotaRequest.Reconcile::scope);
    quota(Kind.AUDIT_READ, QuotaRequest.ReadAudit.class, r -> "");
    Set<Kind> missing = EnumSet.allOf(Kind.class);
    missing.removeAll(TENANT.keySet());
    missing.removeAll(UNGATED);
    if (!missing.isEmpty()) {
      throw new IllegalStateException("no fairness entry for " + missing
          + ": say whose share each kind takes, or list it as ungated");
    }
  }

  private Fairness() {}

  /**
   * The share {@code request} takes under {@code mode}: a tenant, a session key made from
   * {@code session} (the client id from HELLO), or "" when it is not gated.
   */
  static String keyOf(TenantFairness mode, Request request, String session) {
    Kind kind = request.kind();
    if (mode == TenantFairness.NONE || UNGATED.contains(kind)
        || (mode == TenantFairness.QUOTA && !QUOTA_WORK.contains(kind))) {
      return "";
    }
    String tenant = TENANT.get(kind).apply(request);
    return tenant.isEmpty() ? SESSION + session : tenant;
  }

  /** Whether a key is a session's rather than a tenant's (for messages). */
  static boolean isSession(String key) {
    return key.startsWith(SESSION);
  }

  /** How a key reads in a refusal. */
  static String describe(String key) {
    return isSession(key) ? "this client session" : "tenant " + key;
  }

  private static <Q> void lease(Kind kind, Class<Q> type, Function<Q, String> tenant) {
    put(kind, type, r -> tenant.apply(type.cast(r)));
  }

  private static <Q> void ttl(Kind kind, Class<Q> type, Function<Q, String> namespace) {
    put(kind, type, r -> namespace.apply(type.cast(((Request.Ttl) r).request())));
  }

  private static <Q> void quota(Kind kind, Class<Q> type, Function<Q, String> scope) {
    put(kind, type, r -> TenantShares.tenantOf(scope.apply(type.cast(((Request.Quota) r).request()))));
  }

  private static void put(Kind kind, Class<?> type, Function<Request, String> tenant) {
    if (kind.requestType() != type) {
      throw new IllegalStateException(kind + " carries " + kind.requestType().getName()
          + ", its fairness entry reads " + type.getName());
    }
    if (TENANT.put(kind, tenant) != null) {
      throw new IllegalStateException("two fairness entries for " + kind);
    }
  }
}
