package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ration.client.RationClient;
import dev.ration.client.transport.RawClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.RationFailedException;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Kind;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.Policy;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.quota.QuotaSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication and authorization on a real three-node cluster (Ratis, RocksDB, the Netty
 * endpoint, real sockets, the Java client): a service token of tenant alpha is refused on every
 * operation kind against tenant beta, table-driven from {@link Kind} (a kind without a sample
 * request here does not compile: the switch is exhaustive); an identity without grants is
 * refused everything but the session; a revoked and an expired token stop working on an open
 * connection; refusals reach the caller as definite failures.
 */
class SecurityClusterTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private static List<ServerConfig> configs(Path dir) {
    List<Peer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next(),
          "127.0.0.1:" + FreePorts.next()));
    }
    SecurityOptions security = new SecurityOptions(SecurityOptions.Mode.SECURE, List.of(), true, 1000);
    List<ServerConfig> configs = new ArrayList<>();
    for (Peer self : peers) {
      ConsensusOptions consensus = new ConsensusOptions(self.id(),
          UUID.nameUUIDFromBytes("security-cluster".getBytes()).toString(), peers,
          dir.resolve(self.id()), Duration.ofMillis(300), Duration.ofMillis(600),
          Duration.ofSeconds(3), 10_000, 0, 1 << 20, 256, 64 << 10, Duration.ofMillis(2), 4,
          1_000, Duration.ofMillis(100), 100, StateOptions.defaults());
      EndpointOptions endpoint = new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5),
          Duration.ofSeconds(30), 1, 256);
      configs.add(new ServerConfig(consensus, self.clientAddress(), self.adminAddress(), endpoint,
          Duration.ofSeconds(2), security));
    }
    return configs;
  }

  /**
   * The first administrator's token, proposed straight to the leader's log: what an operator
   * with a bootstrap-admin certificate would do with {@code ration token create}.
   */
  private static String bootstrapAdminToken(List<RationNode> nodes) {
    Tokens.Minted minted = Tokens.mint();
    Waits.upTo(Duration.ofSeconds(60)).until("a leader that applies the first token and grant",
        () -> proposedToLeader(nodes, minted), applied -> applied);
    return minted.text();
  }

  /** Proposes the token and its admin grant to the current leader; false if none serves yet. */
  private static boolean proposedToLeader(List<RationNode> nodes, Tokens.Minted minted)
      throws Exception {
    for (RationNode n : nodes) {
      if (!"LEADER".equalsIgnoreCase(n.consensus().status().role())) {
        continue;
      }
      long nanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      Result created;
      try {
        created = n.consensus().submit(new RequestKey(1, 1, 1),
            new SecurityCommand.CreateToken(minted.tokenId(), "root", new Bytes(minted.salt()),
                new Bytes(minted.hash()), 0, "test"), nanos).get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException notYet) {
        continue; // a leader elected but not yet serving, or leadership moved: ask again
      }
      assertInstanceOf(Result.SecurityChanged.class, created, created.toString());
      Result granted;
      try {
        granted = n.consensus().submit(new RequestKey(1, 1, 2),
            new SecurityCommand.GrantRole("root", "admin", "*", "test"), nanos)
            .get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException movedOn) {
        // Leadership moved after the token: ask again. The token's retry, under the same
        // request key, gets its first answer rather than a second token.
        continue;
      }
      assertInstanceOf(Result.SecurityChanged.class, granted, granted.toString());
      return true;
    }
    return false;
  }

  private static RationClient client(List<ServerConfig> configs, String token) {
    return new RationClient(RationClientOptions.builder()
        .addresses(configs.stream().map(ServerConfig::clientAddress).toList())
        .requestDeadline(DEADLINE).token(token).build());
  }

  private static Response call(RationClient c, Request r) {
    return RawClient.of(c).call(r, DEADLINE).join();
  }

  /** A token for {@code identity} (and, if {@code role} is not null, a grant), made by admin. */
  private static String issue(RationClient admin, String identity, String role, String tenant,
      long ttlMillis) {
    Tokens.Minted m = Tokens.mint();
    Response.SecurityChangeReply r = (Response.SecurityChangeReply) call(admin,
        new Request.CreateToken(m.tokenId(), identity, m.salt(), m.hash(), ttlMillis));
    assertEquals(Outcome.SUCCESS, r.outcome(), r.toString());
    if (role != null) {
      Response.SecurityChangeReply g = (Response.SecurityChangeReply) call(admin,
          new Request.GrantRole(identity, role, tenant));
      assertEquals(Outcome.SUCCESS, g.outcome(), g.toString());
    }
    return m.text();
  }

  /** A request of {@code kind} acting on {@code tenant}'s state (ids: that tenant's lease and reservation). */
  static Request sample(Kind kind, String tenant, long leaseId, long reservationId) {
    return switch (kind) {
      case HELLO -> new Request.Hello(1, 1, 2, new byte[0]);
      case SET_LIMIT -> new Request.SetLimit(new Limit(tenant, "api", 10, 10, Mode.HARD, 5_000,
          1_000, 0, Policy.FREE_CAPACITY, 0));
      case GET_LIMIT -> new Request.GetLimit(tenant, "api", false);
      case LIST_LIMITS -> new Request.ListLimits(false);
      case ACQUIRE_LEASE -> new Request.AcquireLease(tenant, "api", "h", 1, 1);
      case RENEW_LEASE -> new Request.RenewLease(leaseId, 0, 1, 1, 0, 0, 0);
      case RETURN_LEASE -> new Request.ReturnLease(leaseId, 0, 0);
      case LIST_LEASES -> new Request.ListLeases(tenant, "api", false);
      case CLUSTER_STATUS -> new Request.ClusterStatus();
      case RENEW_LEASES -> new Request.RenewLeases(
          List.of(new Request.RenewLease(leaseId, 0, 1, 1, 0, 0, 0)));
      case TTL_PUT -> new Request.Ttl(new TtlRequest.Put(tenant + "/locks", "k", new byte[1], 60_000));
      case TTL_CAS -> new Request.Ttl(new TtlRequest.CompareAndSet(tenant + "/locks", "k", 0,
          new byte[1], 60_000));
      case TTL_REFRESH -> new Request.Ttl(new TtlRequest.Refresh(tenant + "/locks", "k", 60_000, 0));
      case TTL_UPDATE -> new Request.Ttl(new TtlRequest.Update(tenant + "/locks", "k", new byte[1], 0));
      case TTL_DELETE -> new Request.Ttl(new TtlRequest.Delete(tenant + "/locks", "k", 0));
      case TTL_GET -> new Request.Ttl(new TtlRequest.Get(tenant + "/locks", "k", false));
      case TTL_LIST -> new Request.Ttl(new TtlRequest.List(tenant + "/locks", "", 10, false));
      case TTL_NAMESPACE_SET -> new Request.Ttl(new TtlRequest.SetNamespace(tenant + "/locks",
          10, 1000, CapacityPolicy.REJECT));
      case TTL_NAMESPACE_GET -> new Request.Ttl(new TtlRequest.GetNamespaces(tenant + "/locks", false));
      case TTL_WATCH -> new Request.Ttl(new TtlRequest.Watch(tenant + "/locks", -1, 0,
          List.of(new TtlRequest.WatchKey("k")), true));
      case QUOTA_SET -> new Request.Quota(new QuotaRequest.SetQuota(new QuotaSpec(tenant, "jobs",
          QuotaKind.CONCURRENT, Window.NONE, 10, "jobs", 0, Overage.REJECT, 0, 0, 0, "x", 0, "r")));
      case QUOTA_GET -> new Request.Quota(new QuotaRequest.GetQuota(tenant, "jobs", false));
      case QUOTA_LIST -> new Request.Quota(new QuotaRequest.ListQuotas(tenant + "/", false));
      case QUOTA_HISTORY -> new Request.Quota(new QuotaRequest.QuotaHistory(tenant, "jobs"));
      case RESERVE -> new Request.Quota(new QuotaRequest.Reserve(tenant + "/shop",
          List.of(new QuotaRequest.Item("jobs", 1)), 0, 60_000));
      case RESERVATION_COMPLETE -> new Request.Quota(
          new QuotaRequest.CompleteReservation(reservationId, List.of(1L)));
      case RESERVATION_CANCEL -> new Request.Quota(new QuotaRequest.CancelReservation(reservationId));
      case RESERVATION_LIST -> new Request.Quota(new QuotaRequest.ListReservations(tenant + "/"));
      case USAGE_INGEST -> new Request.Quota(new QuotaRequest.IngestUsage("e1", 1, tenant,
          "jobs", 1, "jobs", 0));
      case USAGE_READ -> new Request.Quota(new QuotaRequest.ReadUsage("c", 0, 10));
      case USAGE_ACK -> new Request.Quota(new QuotaRequest.AckUsage("c", 0));
      case USAGE_AGGREGATE -> new Request.Quota(new QuotaRequest.AggregateUsage(tenant, "jobs", 0, 1));
      case USAGE_RECONCILE -> new Request.Quota(new QuotaRequest.Reconcile(tenant, "jobs", 0, 1,
          false, "x", "r"));
      case AUDIT_READ -> new Request.Quota(new QuotaRequest.ReadAudit(0, 10));
      case RESERVE_KEYED -> new Request.Quota(new QuotaRequest.ReserveKeyed("k1", tenant + "/shop",
          List.of(new QuotaRequest.Item("jobs", 1)), 0, 60_000));
      // A budget report or return names the tenant's reservation id: the id resolves to the
      // tenant (one id space), so the check is the same; the ledger then answers BUDGET_UNKNOWN.
      case BUDGET_GRANT -> new Request.Quota(new QuotaRequest.GrantBudget("h", tenant + "/shop",
          "jobs", 1, 60_000));
      case BUDGET_REPORT -> new Request.Quota(new QuotaRequest.ReportBudgets(
          List.of(new QuotaRequest.BudgetReport(reservationId, 0, 1, 1, 60_000))));
      case BUDGET_RETURN -> new Request.Quota(new QuotaRequest.ReturnBudget(reservationId, 0, 1));
      case BUDGET_LIST -> new Request.Quota(new QuotaRequest.ListBudgets(tenant + "/"));
      case RESERVE_BATCH -> new Request.Quota(new QuotaRequest.ReserveBatch(List.of(
          new QuotaRequest.ReserveKeyed("", tenant + "/shop", List.of(new QuotaRequest.Item("jobs", 1)),
              0, 60_000))));
      case TOKEN_CREATE -> new Request.CreateToken(7, tenant + "-svc", new byte[16], new byte[32], 0);
      case TOKEN_REVOKE -> new Request.RevokeToken(7);
      case TOKEN_LIST -> new Request.ListTokens();
      case ROLE_GRANT -> new Request.GrantRole(tenant + "-svc", "service", tenant);
      case ROLE_REVOKE -> new Request.RevokeRole(tenant + "-svc", "service", tenant);
      case ROLE_LIST -> new Request.ListGrants("");
      case SECURITY_AUDIT_READ -> new Request.ReadSecurityAudit(0, 10);
      case WHOAMI -> new Request.WhoAmI();
      case CANCEL -> new Request.Cancel(123_456);
      case SET_LIMIT_CONCURRENCY -> new Request.SetLimitConcurrency(new Limit(tenant, "api", 10, 10,
          Mode.HARD, 5_000, 1_000, 0, Policy.FREE_CAPACITY, 0), 4);
      case ACQUIRE_SLOTS -> new Request.AcquireSlots(tenant, "api", "h", 1);
      case RENEW_SLOTS -> new Request.RenewSlots(List.of(new Request.SlotRenewal(leaseId, 0, 1, 0, 0)));
      case GET_SLOTS -> new Request.GetSlots(tenant, "api", false);
    };
  }

  /**
   * The kinds any authenticated identity may use: the session, and nothing of any tenant
   * (CANCEL names only a request of its own connection).
   */
  private static boolean sessionOnly(Kind kind) {
    return kind == Kind.HELLO || kind == Kind.WHOAMI || kind == Kind.CANCEL;
  }

  private static RationException refusal(RationClient c, Request r) {
    try {
      Response answer = call(c, r);
      fail(r.kind() + " was allowed: " + answer);
      return null;
    } catch (CompletionException e) {
      return assertInstanceOf(RationException.class, e.getCause(), e.toString());
    }
  }

  @Test
  void tenantsAreIsolatedAndRefusalsAreDefinite(@TempDir Path dir) throws Exception {
    List<ServerConfig> configs = configs(dir);
    List<RationNode> nodes = new ArrayList<>();
    try {
      for (ServerConfig c : configs) {
        nodes.add(RationNode.start(c));
      }
      String rootToken = bootstrapAdminToken(nodes);
      try (RationClient admin = client(configs, rootToken)) {
        Response.WhoAmIReply me = (Response.WhoAmIReply) call(admin, new Request.WhoAmI());
        assertEquals("root", me.identity());
        String alphaToken = issue(admin, "svc-alpha", "service", "alpha", 0);
        String betaToken = issue(admin, "svc-beta", "service", "beta", 0);
        String nobodyToken = issue(admin, "nobody", null, null, 0);
        // Beta's state, made by the operator of everything and by beta's service.
        assertEquals(Outcome.SUCCESS, ((Response.SetLimitReply) call(admin,
            sample(Kind.SET_LIMIT, "beta", 0, 0))).outcome());
        Response.Quota q = (Response.Quota) call(admin, sample(Kind.QUOTA_SET, "beta", 0, 0));
        assertEquals(Outcome.SUCCESS, ((QuotaResponse.QuotaSetReply) q.response()).outcome());
        long leaseId;
        long reservationId;
        try (RationClient beta = client(configs, betaToken)) {
          Response.LeaseReply lease = (Response.LeaseReply) call(beta,
              sample(Kind.ACQUIRE_LEASE, "beta", 0, 0));
          assertEquals(Outcome.SUCCESS, lease.outcome(), lease.toString());
          leaseId = lease.lease().leaseId();
          QuotaResponse.ReserveReply reserved = (QuotaResponse.ReserveReply) ((Response.Quota)
              call(beta, sample(Kind.RESERVE, "beta", 0, 0))).response();
          assertEquals(Outcome.SUCCESS, reserved.outcome(), reserved.toString());
          reservationId = reserved.reservationId();
        }

        try (RationClient alpha = client(configs, alphaToken);
            RationClient nobody = client(configs, nobodyToken)) {
          List<Kind> checked = new ArrayList<>();
          for (Kind kind : Kind.values()) {
            if (kind == Kind.HELLO) {
              continue; // sent by the client itself, once per connection (tested below)
            }
            Request r = sample(kind, "beta", leaseId, reservationId);
            if (sessionOnly(kind)) {
              call(alpha, r);
              call(nobody, r);
              continue;
            }
            RationException n = refusal(nobody, r);
            assertEquals(ErrorCode.PERMISSION_DENIED, n.code(), kind + ": " + n);
            assertInstanceOf(RationFailedException.class, n, kind + " must fail definitely");
            assertTrue(n.getMessage().contains("identity nobody may not " + kind), n.getMessage());
            if (kind == Kind.CLUSTER_STATUS) {
              call(alpha, r); // a service may read the cluster's status: it names no tenant
              continue;
            }
            RationException a = refusal(alpha, r);
            assertEquals(ErrorCode.PERMISSION_DENIED, a.code(), kind + ": " + a);
            assertTrue(a.definite(), kind + " refusal must be definite: " + a);
            assertTrue(a.getMessage().contains("svc-alpha"), a.getMessage());
            checked.add(kind);
          }
          assertTrue(checked.contains(Kind.RENEW_LEASE) && checked.contains(Kind.RESERVATION_CANCEL),
              checked.toString());
          // Alpha may act in its own tenant.
          assertEquals(Outcome.SUCCESS, ((Response.SetLimitReply) call(admin,
              sample(Kind.SET_LIMIT, "alpha", 0, 0))).outcome());
          Response.LeaseReply own = (Response.LeaseReply) call(alpha,
              sample(Kind.ACQUIRE_LEASE, "alpha", 0, 0));
          assertEquals(Outcome.SUCCESS, own.outcome(), own.toString());
          Response.LeaseReply renewed = (Response.LeaseReply) call(alpha,
              sample(Kind.RENEW_LEASE, "alpha", own.lease().leaseId(), 0));
          assertEquals(Outcome.SUCCESS, renewed.outcome(), renewed.toString());
        }
        // Beta's lease was never touched by the refused renewals and returns.
        try (RationClient beta = client(configs, betaToken)) {
          Response.LeaseReply renewed = (Response.LeaseReply) call(beta,
              sample(Kind.RENEW_LEASE, "beta", leaseId, 0));
          assertEquals(Outcome.SUCCESS, renewed.outcome(), renewed.toString());
        }
        // The audit log names who changed what.
        Response.SecurityAuditList audit = (Response.SecurityAuditList) call(admin,
            new Request.ReadSecurityAudit(0, 100));
        assertTrue(audit.records().stream().anyMatch(rec -> rec.action().equals("limit.set")
            && rec.actor().equals("root") && rec.scope().equals("beta")), audit.toString());
        assertTrue(audit.records().stream().anyMatch(rec -> rec.action().equals("role.grant")
            && rec.actor().equals("root") && rec.resource().equals("svc-alpha")), audit.toString());
        // The quota audit log names the authenticated identity, not the request's actor field.
        Response.Quota quotaAudit = (Response.Quota) call(admin,
            new Request.Quota(new QuotaRequest.ReadAudit(0, 10)));
        List<dev.ration.wire.quota.AuditRecord> quotaRecords =
            ((QuotaResponse.AuditList) quotaAudit.response()).records();
        assertTrue(!quotaRecords.isEmpty() && quotaRecords.stream().allMatch(
            rec -> rec.actor().equals("root")), quotaRecords.toString());
        // Refusals are counted by identity and reason on the nodes that refused them.
        // /metrics needs an identity that may read the cluster; the series name no identity.
        StringBuilder scraped = new StringBuilder();
        for (ServerConfig c : configs) {
          scraped.append(httpBody(c.adminAddress(), "/metrics", rootToken));
        }
        assertTrue(scraped.toString().contains(
            "ration_auth_refused_total{method=\"token\",reason=\"permission_denied\"}"),
            "refusal metric missing");
        assertTrue(!scraped.toString().contains("svc-alpha"), "an identity's name in /metrics");
        // Admin HTTP: probes stay open, /metrics and /status need CLUSTER_READ on *, a
        // mutation needs an administrator.
        String adminAddress = configs.get(0).adminAddress();
        assertEquals(200, http(adminAddress, "GET", "/health", ""));
        assertEquals(401, http(adminAddress, "GET", "/metrics", ""));
        assertEquals(401, http(adminAddress, "GET", "/status", ""));
        assertEquals(403, http(adminAddress, "GET", "/metrics", alphaToken));
        assertEquals(401, http(adminAddress, "POST", "/transfer-leadership?to=n2", ""));
        assertEquals(401, http(adminAddress, "POST", "/transfer-leadership?to=n2", "rtn_bogus"));
        assertEquals(403, http(adminAddress, "POST", "/transfer-leadership?to=n2", alphaToken));
        int asRoot = http(adminAddress, "POST", "/transfer-leadership?to=n2", rootToken);
        assertTrue(asRoot != 401 && asRoot != 403, "an administrator passes the guard: " + asRoot);
      }
    } finally {
      for (RationNode n : nodes) {
        n.shutdown();
      }
    }
  }

  @Test
  void revokedAndExpiredTokensStopWorkingOnOpenConnections(@TempDir Path dir) throws Exception {
    List<ServerConfig> configs = configs(dir);
    List<RationNode> nodes = new ArrayList<>();
    try {
      for (ServerConfig c : configs) {
        nodes.add(RationNode.start(c));
      }
      String rootToken = bootstrapAdminToken(nodes);
      try (RationClient admin = client(configs, rootToken)) {
        String revoked = issue(admin, "svc-r", "service", "alpha", 0);
        String expiring = issue(admin, "svc-e", "service", "alpha", 2_000);
        try (RationClient r = client(configs, revoked); RationClient e = client(configs, expiring)) {
          Request get = sample(Kind.GET_LIMIT, "alpha", 0, 0);
          call(r, get);
          call(e, get);
          call(admin, new Request.RevokeToken(Tokens.parseId(revoked)));
          // Bounded: the revocation is applied on the serving node within the wait.
          RationException refused = awaitRefused(r, get, Duration.ofSeconds(30));
          assertEquals(ErrorCode.UNAUTHENTICATED, refused.code(), refused.toString());
          assertTrue(refused.definite());
          RationException expired = awaitRefused(e, get, Duration.ofSeconds(60));
          assertEquals(ErrorCode.UNAUTHENTICATED, expired.code(), expired.toString());
        }
        Response.TokenList tokens = (Response.TokenList) call(admin, new Request.ListTokens());
        assertFalse(tokens.tokens().stream().anyMatch(t -> t.identity().equals("svc-r")
            || t.identity().equals("svc-e")), tokens.toString());
        assertTrue(tokens.tokens().stream().anyMatch(t -> t.identity().equals("root")));
      }
      // No credential at all: refused at HELLO, definitely, with a message that says why.
      try (RationClient anonymous = client(configs, "")) {
        RationException e = refusal(anonymous, sample(Kind.GET_LIMIT, "alpha", 0, 0));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code(), e.toString());
        assertTrue(e.definite());
        assertTrue(e.getMessage().contains("no credential"), e.getMessage());
      }
    } finally {
      for (RationNode n : nodes) {
        n.shutdown();
      }
    }
  }

  private static String httpBody(String address, String path, String token) throws Exception {
    return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://" + address + path)).timeout(Duration.ofSeconds(20))
            .header("Authorization", "Bearer " + token).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
  }

  private static int http(String address, String method, String path, String token)
      throws Exception {
    java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://" + address + path)).timeout(Duration.ofSeconds(20))
        .method(method, java.net.http.HttpRequest.BodyPublishers.noBody());
    if (!token.isEmpty()) {
      b.header("Authorization", "Bearer " + token);
    }
    return java.net.http.HttpClient.newHttpClient()
        .send(b.build(), java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static RationException awaitRefused(RationClient c, Request r, Duration within) {
    return Waits.upTo(within).every(Duration.ofMillis(50)).until(
        "the request refused UNAUTHENTICATED", () -> unauthenticatedRefusal(c, r), Optional::isPresent).get();
  }

  /** The UNAUTHENTICATED refusal of {@code r}, or empty while it is still accepted. */
  private static Optional<RationException> unauthenticatedRefusal(RationClient c, Request r) {
    try {
      call(c, r);
      return Optional.empty();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RationException re && re.code() == ErrorCode.UNAUTHENTICATED) {
        return Optional.of(re);
      }
      throw e;
    }
  }
}
