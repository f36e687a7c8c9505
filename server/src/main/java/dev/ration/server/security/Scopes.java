package dev.ration.server.security;

import dev.ration.protocol.Kind;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.Request;
import dev.ration.protocol.TtlRequest;
import dev.ration.wire.security.Tenants;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The scope extractor of every operation kind: which tenant a request acts on. Declared once
 * per kind, next to nothing else, and complete or the class does not load (a new kind without
 * an extractor fails every test that authorizes anything, and {@code ScopesTest} names it).
 *
 * <p>Rules (docs/SECURITY.md, "Roles and permissions"): a limit or lease names its tenant; a
 * quota scope path and a TTL namespace belong to their first '/'-separated segment
 * ({@link Tenants#ofPath}); a list whose filter does not pin one tenant (an empty tenant, an
 * empty namespace, a scope prefix without '/') is about every tenant; a renewal, return or
 * settlement names only an id and is checked by the ledger ({@link Scope.ById}).
 */
public final class Scopes {
  private static final Map<Kind, Function<Object, Scope>> BY_KIND = new EnumMap<>(Kind.class);
  private static final Map<Kind, String> RULES = new EnumMap<>(Kind.class);

  static {
    session(Kind.HELLO);
    on(Kind.SET_LIMIT, Request.SetLimit.class, "tenant", r -> tenant(r.limit().tenant()));
    on(Kind.GET_LIMIT, Request.GetLimit.class, "tenant", r -> tenant(r.tenant()));
    all(Kind.LIST_LIMITS);
    on(Kind.ACQUIRE_LEASE, Request.AcquireLease.class, "tenant", r -> tenant(r.tenant()));
    byId(Kind.RENEW_LEASE);
    byId(Kind.RETURN_LEASE);
    byId(Kind.RENEW_LEASES);
    on(Kind.LIST_LEASES, Request.ListLeases.class, "tenant (empty: *)",
        r -> r.tenant() == null || r.tenant().isEmpty() ? Scope.ALL : tenant(r.tenant()));
    session(Kind.CLUSTER_STATUS);
    // Answered by the connection, for its own requests only.
    session(Kind.CANCEL);
    on(Kind.SET_LIMIT_CONCURRENCY, Request.SetLimitConcurrency.class, "tenant", r -> tenant(r.limit().tenant()));
    on(Kind.ACQUIRE_SLOTS, Request.AcquireSlots.class, "tenant", r -> tenant(r.tenant()));
    byId(Kind.RENEW_SLOTS);
    on(Kind.GET_SLOTS, Request.GetSlots.class, "tenant", r -> tenant(r.tenant()));
    on(Kind.TTL_PUT, TtlRequest.Put.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_CAS, TtlRequest.CompareAndSet.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_REFRESH, TtlRequest.Refresh.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_UPDATE, TtlRequest.Update.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_DELETE, TtlRequest.Delete.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_GET, TtlRequest.Get.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_LIST, TtlRequest.List.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_WATCH, TtlRequest.Watch.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_NAMESPACE_SET, TtlRequest.SetNamespace.class, "namespace's first segment", r -> path(r.namespace()));
    on(Kind.TTL_NAMESPACE_GET, TtlRequest.GetNamespaces.class, "namespace's first segment (empty: *)",
        r -> r.namespace() == null || r.namespace().isEmpty() ? Scope.ALL : path(r.namespace()));
    on(Kind.QUOTA_SET, QuotaRequest.SetQuota.class, "scope path's first segment", r -> path(r.spec().scope()));
    on(Kind.QUOTA_GET, QuotaRequest.GetQuota.class, "scope path's first segment", r -> path(r.scope()));
    on(Kind.QUOTA_LIST, QuotaRequest.ListQuotas.class, "scope prefix's first segment (no '/': *)", r -> prefix(r.scopePrefix()));
    on(Kind.QUOTA_HISTORY, QuotaRequest.QuotaHistory.class, "scope path's first segment", r -> path(r.scope()));
    on(Kind.RESERVE, QuotaRequest.Reserve.class, "scope path's first segment", r -> path(r.scope()));
    on(Kind.RESERVE_KEYED, QuotaRequest.ReserveKeyed.class, "scope path's first segment", r -> path(r.scope()));
    on(Kind.RESERVE_BATCH, QuotaRequest.ReserveBatch.class,
        "the scope paths' first segment (several: *)", r -> oneTenantOrAll(r));
    byId(Kind.RESERVATION_COMPLETE);
    byId(Kind.RESERVATION_CANCEL);
    on(Kind.BUDGET_GRANT, QuotaRequest.GrantBudget.class, "scope path's first segment", r -> path(r.scope()));
    byId(Kind.BUDGET_REPORT);
    byId(Kind.BUDGET_RETURN);
    on(Kind.BUDGET_LIST, QuotaRequest.ListBudgets.class, "scope prefix's first segment (no '/': *)", r -> prefix(r.scopePrefix()));
    on(Kind.RESERVATION_LIST, QuotaRequest.ListReservations.class, "scope prefix's first segment (no '/': *)", r -> prefix(r.scopePrefix()));
    on(Kind.USAGE_INGEST, QuotaRequest.IngestUsage.class, "scope path's first segment", r -> path(r.scope()));
    // A usage consumer's cursor reads every tenant's events.
    all(Kind.USAGE_READ);
    all(Kind.USAGE_ACK);
    on(Kind.USAGE_AGGREGATE, QuotaRequest.AggregateUsage.class, "scope path's first segment", r -> path(r.scope()));
    on(Kind.USAGE_RECONCILE, QuotaRequest.Reconcile.class, "scope path's first segment", r -> path(r.scope()));
    all(Kind.AUDIT_READ);
    all(Kind.TOKEN_CREATE);
    all(Kind.TOKEN_REVOKE);
    all(Kind.TOKEN_LIST);
    all(Kind.ROLE_GRANT);
    all(Kind.ROLE_REVOKE);
    all(Kind.ROLE_LIST);
    all(Kind.SECURITY_AUDIT_READ);
    session(Kind.WHOAMI);
    List<Kind> missing = missing();
    if (!missing.isEmpty()) {
      throw new IllegalStateException("no scope extractor for " + missing
          + ": declare which tenant each kind acts on in Scopes");
    }
  }

  private Scopes() {}

  /** The kinds without an extractor (none, or the class would not have loaded). */
  public static List<Kind> missing() {
    List<Kind> out = new ArrayList<>();
    for (Kind k : Kind.values()) {
      if (!BY_KIND.containsKey(k)) {
        out.add(k);
      }
    }
    return out;
  }

  /** The scope of {@code request}. */
  public static Scope of(Request request) {
    Object body = request;
    if (request instanceof Request.Ttl t) {
      body = t.request();
    } else if (request instanceof Request.Quota q) {
      body = q.request();
    }
    return BY_KIND.get(request.kind()).apply(body);
  }

  /** How {@code kind}'s scope is found, in words (docs/SECURITY.md's table). */
  public static String rule(Kind kind) {
    return RULES.get(kind);
  }

  private static <Q> void on(Kind kind, Class<Q> type, String rule, Function<Q, Scope> extractor) {
    if (kind.requestType() != type) {
      throw new IllegalStateException(kind + " carries " + kind.requestType().getName()
          + ", its scope extractor takes " + type.getName());
    }
    put(kind, rule, body -> extractor.apply(type.cast(body)));
  }

  private static void session(Kind kind) {
    put(kind, "none (the session)", body -> Scope.SESSION);
  }

  private static void all(Kind kind) {
    put(kind, "* (every tenant)", body -> Scope.ALL);
  }

  private static void byId(Kind kind) {
    put(kind, "the id's tenant, resolved by the ledger", body -> Scope.BY_ID);
  }

  private static void put(Kind kind, String rule, Function<Object, Scope> extractor) {
    RULES.put(kind, rule);
    if (BY_KIND.put(kind, extractor) != null) {
      throw new IllegalStateException("two scope extractors for " + kind);
    }
  }

  private static Scope tenant(String tenant) {
    return new Scope.Tenant(tenant == null ? "" : tenant);
  }

  private static Scope path(String path) {
    return tenant(Tenants.ofPath(path == null ? "" : path));
  }

  /**
   * A batch acts on its reservations' one tenant; reservations of several tenants (or none) need
   * a grant on every tenant: what the check cannot pin to one tenant, it refuses to a
   * tenant-scoped identity.
   */
  private static Scope oneTenantOrAll(QuotaRequest.ReserveBatch r) {
    String tenant = null;
    for (QuotaRequest.ReserveKeyed one : r.reserves()) {
      String t = Tenants.ofPath(one.scope() == null ? "" : one.scope());
      if (tenant != null && !tenant.equals(t)) {
        return Scope.ALL;
      }
      tenant = t;
    }
    return tenant == null ? Scope.ALL : tenant(tenant);
  }

  /** A scope prefix pins one tenant only when it holds a whole first segment ("acme/..."). */
  private static Scope prefix(String prefix) {
    if (prefix == null || prefix.indexOf('/') < 0) {
      return Scope.ALL;
    }
    return tenant(Tenants.ofPath(prefix));
  }
}
