package dev.ration.server.security;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Kind;
import dev.ration.protocol.Permission;
import dev.ration.protocol.Request;
import dev.ration.statemachine.security.SecurityTable;
import dev.ration.statemachine.security.StoredToken;
import dev.ration.wire.security.RoleGrant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authentication and authorization of client requests (docs/SECURITY.md). Every decision is
 * made against the replicated {@link SecurityTable} as this node last applied it, an in-memory
 * lookup: no request waits for the log to be checked.
 *
 * <p>Authentication happens at HELLO (a client certificate's name, or a bearer token in the
 * credential) and a token is checked again on every request, so revoking or expiring it ends
 * its use on open connections as soon as the entry is applied here. Authorization denies by
 * default: a request passes only if one of the identity's grants gives a role with the kind's
 * {@link Permission} over the request's {@link Scope}; bootstrap administrators (configured
 * certificate names) hold {@code admin} on "*" before anything is granted.
 *
 * <p>Thread-safe: called from every event loop. Failed authentications are counted per source
 * address ({@link AuthFailures}) and every refusal goes to the {@link RefusalListener}
 * (metrics) and to a rate-limited log line.
 */
public final class Security {
  private static final Logger log = LoggerFactory.getLogger(Security.class);

  /**
   * Metrics of refusals, labelled by two small fixed sets: how the caller authenticated
   * ({@code none}, {@code token}, {@code certificate}) and the reason. Never by identity: series
   * are copied into monitoring systems that other people read, and the name of who was refused
   * is in the refusal's log line.
   */
  public interface RefusalListener {
    void refused(String method, String reason);

    RefusalListener NONE = (method, reason) -> {};
  }

  /** A refused request: the error code and the message the client sees. */
  public record Refusal(ErrorCode code, String message, String reason, int retryAfterMillis) {}

  /** The outcome of authorizing one request. */
  public sealed interface Decision {}

  /**
   * Allowed. {@code tenants}: when non-empty, the command must be proposed limited to these
   * tenants (every change of an identity without a grant on every tenant: the replica judges
   * what the command declares it touches, ids included); {@code attribute}: propose it on behalf
   * of the identity so the audit log records who made the change.
   */
  public record Allowed(List<String> tenants, boolean attribute) implements Decision {}

  public record Denied(Refusal refusal) implements Decision {}

  /** The changes the security audit log records with their actor (docs/SECURITY.md, "Audit"). */
  static final java.util.Set<Kind> AUDITED = java.util.EnumSet.of(
      Kind.SET_LIMIT, Kind.TTL_NAMESPACE_SET, Kind.QUOTA_SET, Kind.USAGE_RECONCILE);

  private final SecurityOptions options;
  private final Supplier<SecurityTable> table;
  private final LongSupplier ledgerNowMillis;
  private final RefusalListener listener;
  private final AuthFailures failures;
  private final LongSupplier nanoClock;
  private long logWindowStartNanos;
  private int loggedInWindow;
  private long suppressed;

  public Security(SecurityOptions options, Supplier<SecurityTable> table,
      LongSupplier ledgerNowMillis, RefusalListener listener, LongSupplier nanoClock) {
    this.options = options;
    this.table = table;
    this.ledgerNowMillis = ledgerNowMillis;
    this.listener = listener;
    this.nanoClock = nanoClock;
    this.failures = new AuthFailures(options.authFailuresPerMinute(), nanoClock);
  }

  /** No authentication, no authorization: everything is allowed (security mode insecure). */
  public static Security insecure() {
    return new Security(SecurityOptions.INSECURE, () -> SecurityTable.EMPTY, () -> 0,
        RefusalListener.NONE, System::nanoTime);
  }

  public SecurityOptions options() {
    return options;
  }

  public boolean secure() {
    return options.secure();
  }

  // ---------------------------------------------------------------- authentication

  /** The port a credential arrives on: failed attempts are counted per port and address. */
  public enum Port {
    CLIENT,
    ADMIN
  }

  /**
   * Who presents {@code credential} (HELLO's bytes or a bearer token, possibly empty) and
   * {@code certificateName} (the verified client certificate's name, if TLS asked for one),
   * connecting to {@code port} from {@code source}. A token wins over a certificate: it names
   * the identity explicitly.
   *
   * <p>Failed token attempts are limited per (port, address) ({@link AuthFailures}). A
   * connection that presents no token but a certificate TLS has verified is never held back by
   * them: the guessing they slow down is of token secrets, and a verified certificate has
   * already proved who it is, so a flood of bad tokens from one address (or a NAT shared with
   * an attacker) cannot lock out certificate holders; nor can a flood on one port lock out the
   * other.
   */
  public Object authenticate(byte[] credential, Optional<String> certificateName, Port port,
      String source) {
    if (!secure()) {
      return Principal.ANONYMOUS;
    }
    String counted = port.name().toLowerCase(java.util.Locale.ROOT) + " " + source;
    if (credential.length > 0) {
      long wait = failures.waitMillis(counted);
      if (wait > 0) {
        return refuse("unknown", Principal.Method.TOKEN, new Refusal(ErrorCode.UNAUTHENTICATED,
            "too many failed token authentications from " + source + " on the "
                + port.name().toLowerCase(java.util.Locale.ROOT) + " port; retry in " + wait
                + " ms (a client certificate is not held back)",
            "rate_limited", (int) Math.min(Integer.MAX_VALUE, wait)));
      }
    }
    if (credential.length > 0) {
      Optional<Tokens.Parsed> parsed = Tokens.parse(credential);
      if (parsed.isEmpty()) {
        failures.failed(counted);
        return refuse("unknown", Principal.Method.TOKEN, new Refusal(ErrorCode.UNAUTHENTICATED,
            "the HELLO credential (" + credential.length + " bytes) is not a Ration token"
                + " (expected rtn_<16 hex digits>_<secret>, as printed by ration token create)",
            "malformed_credential", 0));
      }
      Optional<StoredToken> token = table.get().token(parsed.get().tokenId());
      Optional<SecurityOptions.BootstrapToken> configured = token.isPresent() ? Optional.empty()
          : options.bootstrapToken(parsed.get().tokenId());
      if (configured.isPresent()
          && Tokens.matches(configured.get().salt(), configured.get().hash(), parsed.get().secret())) {
        return new Principal(configured.get().identity(), Principal.Method.TOKEN,
            configured.get().tokenId());
      }
      if (token.isEmpty() || !Tokens.matches(token.get().salt().unsafeArray(),
          token.get().hash().unsafeArray(), parsed.get().secret())) {
        failures.failed(counted);
        // One message for an unknown id and a wrong secret: a guesser learns nothing.
        return refuse("unknown", Principal.Method.TOKEN, new Refusal(ErrorCode.UNAUTHENTICATED,
            "token " + String.format("%016x", parsed.get().tokenId())
                + " is unknown, revoked or expired, or its secret is wrong",
            "bad_token", 0));
      }
      if (token.get().expiredAt(ledgerNowMillis.getAsLong())) {
        failures.failed(counted);
        return refuse(token.get().identity(), Principal.Method.TOKEN, new Refusal(ErrorCode.UNAUTHENTICATED,
            "token " + String.format("%016x", parsed.get().tokenId()) + " of "
                + token.get().identity() + " expired", "expired_token", 0));
      }
      return new Principal(token.get().identity(), Principal.Method.TOKEN, token.get().tokenId());
    }
    if (certificateName.isPresent()) {
      return new Principal(certificateName.get(), Principal.Method.CERTIFICATE, 0);
    }
    return refuse("unknown", Principal.Method.NONE, new Refusal(ErrorCode.UNAUTHENTICATED,
        "security is on and this connection presented no credential: send a token"
            + " (RationClientOptions token, ration --auth-token or RATION_TOKEN) or a client certificate",
        "no_credential", 0));
  }

  /**
   * Whether {@code principal} may still act: its token is still in the table and not expired.
   * Certificates are checked by TLS at the handshake and stay valid for the connection.
   */
  public Optional<Refusal> recheck(Principal principal) {
    if (principal.method() != Principal.Method.TOKEN) {
      return Optional.empty();
    }
    Optional<StoredToken> token = table.get().token(principal.tokenId());
    if (token.isEmpty() && options.bootstrapToken(principal.tokenId()).isPresent()) {
      return Optional.empty(); // configured: valid until the node's file no longer names it
    }
    if (token.isEmpty() || token.get().expiredAt(ledgerNowMillis.getAsLong())) {
      Refusal r = new Refusal(ErrorCode.UNAUTHENTICATED, "token "
          + String.format("%016x", principal.tokenId()) + " of " + principal.identity()
          + " was revoked or expired; this connection is no longer authenticated",
          "revoked_token", 0);
      return Optional.of(refusal(principal, r));
    }
    return Optional.empty();
  }

  // ---------------------------------------------------------------- authorization

  /** Whether {@code principal} may make {@code request}, and how it must be proposed. */
  public Decision authorize(Principal principal, Request request) {
    return authorize(principal, request, Scopes.of(request));
  }

  /**
   * As {@link #authorize(Principal, Request)}, with {@code scope} already found by
   * {@link Scopes#of}: the connection finds it once per request and hands the same scope to
   * admission fairness.
   */
  public Decision authorize(Principal principal, Request request, Scope scope) {
    if (!secure()) {
      return new Allowed(List.of(), false);
    }
    Kind kind = request.kind();
    Permission permission = kind.permission();
    List<RoleGrant> grants = grantsOf(principal.identity());
    TreeSet<String> tenants = new TreeSet<>();
    for (RoleGrant g : grants) {
      Optional<Role> role = Role.byName(g.role());
      if (role.isPresent() && role.get().permits(permission)) {
        tenants.add(g.tenant());
      }
    }
    boolean all = tenants.contains(RoleGrant.ALL_TENANTS);
    boolean attribute = AUDITED.contains(kind);
    if (permission == Permission.CONNECT) {
      return new Allowed(List.of(), false);
    }
    if (scope instanceof Scope.Session && !tenants.isEmpty()) {
      return new Allowed(List.of(), false);
    }
    if (scope instanceof Scope.Tenant t && (all || tenants.contains(t.tenant()))) {
      // A change by an identity limited to tenants is proposed limited to them, so the replica
      // judges everything the command declares it touches, the ids it names included (an
      // event's reservation), not only the scope the endpoint read.
      boolean limited = !all && kind.mutation();
      return new Allowed(limited ? List.copyOf(tenants) : List.of(), attribute || limited);
    }
    if (scope instanceof Scope.AllTenants && all) {
      return new Allowed(List.of(), attribute);
    }
    if (scope instanceof Scope.ById && !tenants.isEmpty()) {
      return new Allowed(all ? List.of() : List.copyOf(tenants), attribute || !all);
    }
    String where = scope instanceof Scope.Tenant t ? "tenant " + t.tenant()
        : scope instanceof Scope.AllTenants ? "all tenants (*)" : "any tenant";
    String held = grants.isEmpty() ? "no grants"
        : "grants: " + String.join(", ", grants.stream().map(g -> g.role() + " on " + g.tenant()).toList());
    Refusal r = new Refusal(ErrorCode.PERMISSION_DENIED, "identity " + principal.identity()
        + " may not " + kind + " on " + where + " (needs " + permission + "; " + held + ")",
        "permission_denied", 0);
    return new Denied(refusal(principal, r));
  }

  /** The grants of {@code identity}; a bootstrap administrator holds admin on "*" as well. */
  public List<RoleGrant> grantsOf(String identity) {
    List<RoleGrant> grants = table.get().grants(identity);
    if (!options.bootstrapAdmin(identity)) {
      return grants;
    }
    List<RoleGrant> out = new ArrayList<>(grants);
    out.add(new RoleGrant(identity, Role.ADMIN.roleName(), RoleGrant.ALL_TENANTS, 0,
        "security (bootstrap)"));
    return out;
  }

  /** Whether {@code identity} holds {@code permission} over every tenant (admin HTTP). */
  public boolean holdsEverywhere(String identity, Permission permission) {
    if (!secure()) {
      return true;
    }
    for (RoleGrant g : grantsOf(identity)) {
      if (RoleGrant.ALL_TENANTS.equals(g.tenant())
          && Role.byName(g.role()).map(r -> r.permits(permission)).orElse(false)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A refusal of an authenticated caller, also one not tied to a request kind (admin HTTP):
   * counted and logged like the rest.
   */
  public Refusal refusal(Principal principal, Refusal r) {
    return refuse(principal.identity(), principal.method(), r);
  }

  private Refusal refuse(String identity, Principal.Method method, Refusal r) {
    listener.refused(methodLabel(method), r.reason());
    logRefusal(identity, r);
    return r;
  }

  // ---------------------------------------------------------------- bounded metrics and logs

  /** The refusal metric's {@code method} label: none (no credential), token or certificate. */
  static String methodLabel(Principal.Method method) {
    return method.name().toLowerCase(java.util.Locale.ROOT);
  }

  /** At most 10 refusal lines a second per node; the rest are counted in the next line. */
  private void logRefusal(String identity, Refusal r) {
    long now = nanoClock.getAsLong();
    long dropped;
    synchronized (this) {
      if (now - logWindowStartNanos >= 1_000_000_000L) {
        logWindowStartNanos = now;
        loggedInWindow = 0;
      }
      if (loggedInWindow >= 10) {
        suppressed++;
        return;
      }
      loggedInWindow++;
      dropped = suppressed;
      suppressed = 0;
    }
    log.warn("event=request_refused code={} reason={} identity={} suppressed_since_last={} message=\"{}\"",
        r.code(), r.reason(), identity, dropped, r.message());
  }

  /** For tests: the kinds' grants table as the server reads it. */
  static Map<String, List<RoleGrant>> describe(List<RoleGrant> grants) {
    Map<String, List<RoleGrant>> out = new LinkedHashMap<>();
    for (RoleGrant g : grants) {
      out.computeIfAbsent(g.identity(), k -> new ArrayList<>()).add(g);
    }
    return out;
  }
}
