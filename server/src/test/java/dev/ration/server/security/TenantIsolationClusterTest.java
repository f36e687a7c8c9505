package dev.ration.server.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LeaseResult;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.client.RationFailedException;
import dev.ration.client.RenewalReport;
import dev.ration.client.ReturnResult;
import dev.ration.client.limiter.LeaseInfo;
import dev.ration.client.quota.IngestResult;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.ReconcileResult;
import dev.ration.client.quota.Reservation;
import dev.ration.client.quota.Settlement;
import dev.ration.client.quota.UsageAggregates;
import dev.ration.client.quota.UsageReport;
import dev.ration.client.time.LedgerTime;
import dev.ration.client.tls.ClientTls;
import dev.ration.client.transport.RawClient;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.RationNode;
import dev.ration.server.config.EndpointOptions;
import dev.ration.server.config.ServerConfig;
import dev.ration.server.config.TlsOptions;
import dev.ration.server.consensus.ConsensusOptions;
import dev.ration.server.consensus.Peer;
import dev.ration.server.tls.DevCertificates;
import dev.ration.server.tls.DevCertificates.Issued;
import dev.ration.server.tls.TestCertificates;
import dev.ration.statemachine.StateOptions;
import dev.ration.testkit.FreePorts;
import dev.ration.testkit.Waits;
import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenant isolation of ids on a real secure three-node cluster (TLS with client certificates on
 * every port, authorization on, Ratis, RocksDB, the Java client): an id that resolves to no
 * live object of the caller's tenants is refused like another tenant's id, and says nothing
 * about the object; usage event ids are per tenant; a lease return with a stale version frees
 * nothing. Identities: {@code admin} (an administrator by configuration), {@code svc-a}
 * (service of tenant a only) and {@code svc-b} (service of tenant b only), each with its own
 * client certificate. One cluster serves every test; each test uses state of its own.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TenantIsolationClusterTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofMinutes(10);
  /** An id no object was ever given: the ids of this cluster stay far below it. */
  private static final long NEVER_USED_ID = 987_654;

  @TempDir static Path dir;
  private static final List<RationNode> nodes = new ArrayList<>();
  private static RationClient admin;
  private static RationClient a;
  private static RationClient b;

  static ServerConfig config(Peer self, List<Peer> peers, Path certs) {
    return config(self, peers, certs, dir);
  }

  /**
   * Starts a secure three-node cluster under {@code root} (development certificates in
   * root/certs, with client certificates for svc-a and svc-b besides the administrator's),
   * adding its nodes to {@code into}; returns its peers.
   */
  static List<Peer> startSecureCluster(Path root, List<RationNode> into) throws Exception {
    Path certs = Files.createDirectories(root.resolve("certs"));
    Issued ca = TestCertificates.devSet(certs, List.of("n1", "n2", "n3"));
    for (String name : List.of("svc-a", "svc-b")) {
      DevCertificates.write(certs, "client." + name, TestCertificates.leaf(ca, name, 30), true);
    }
    List<Peer> peers = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      peers.add(new Peer("n" + i, "127.0.0.1:" + FreePorts.next(), "127.0.0.1:" + FreePorts.next(),
          "127.0.0.1:" + FreePorts.next()));
    }
    for (Peer p : peers) {
      into.add(RationNode.start(config(p, peers, certs, root)));
    }
    return peers;
  }

  /** A node of a secure three-node test cluster, its data under {@code dataRoot}. */
  static ServerConfig config(Peer self, List<Peer> peers, Path certs, Path dataRoot) {
    ConsensusOptions consensus = new ConsensusOptions(self.id(),
        UUID.nameUUIDFromBytes("tenant-isolation".getBytes()).toString(), peers,
        dataRoot.resolve("data-" + self.id()), Duration.ofMillis(300), Duration.ofMillis(600),
        Duration.ofSeconds(3), 10_000, 0, 1 << 20, 256, 64 << 10, Duration.ofMillis(2), 4,
        1_000, Duration.ofMillis(100), 100, StateOptions.defaults());
    EndpointOptions endpoint = new EndpointOptions(1 << 20, 64, 16, Duration.ofSeconds(5),
        Duration.ofSeconds(30), 1, 256);
    TlsOptions tls = TestCertificates.options(certs, "node." + self.id(),
        TlsOptions.ClientAuth.REQUIRED, Duration.ofSeconds(10));
    SecurityOptions security = new SecurityOptions(SecurityOptions.Mode.SECURE, List.of("admin"),
        true, 1000);
    return new ServerConfig(consensus, self.clientAddress(), self.adminAddress(), endpoint,
        Duration.ofSeconds(2), tls, security);
  }

  /** A client presenting the certificate {@code client.NAME} of {@code certs}. */
  static RationClient client(List<String> addresses, Path certs, String name) {
    ClientTls tls = ClientTls.trusting(certs.resolve("ca.crt"))
        .withKeyPair(certs.resolve("client." + name + ".crt"), certs.resolve("client." + name + ".key"));
    return new RationClient(RationClientOptions.builder().addresses(addresses)
        .requestDeadline(DEADLINE).connectTimeout(Duration.ofSeconds(10)).tls(tls).build());
  }

  private static Response call(RationClient c, Request r) {
    return RawClient.of(c).call(r, DEADLINE).join();
  }

  @BeforeAll
  static void startCluster() throws Exception {
    Path certs = dir.resolve("certs");
    List<Peer> peers = startSecureCluster(dir, nodes);
    List<String> addresses = peers.stream().map(Peer::clientAddress).toList();
    admin = client(addresses, certs, "admin");
    // The first request waits for a leader that serves.
    Waits.upTo(Duration.ofSeconds(90)).every(Duration.ofMillis(200)).until("a serving leader",
        () -> nodes.stream().anyMatch(
            n -> "LEADER".equalsIgnoreCase(n.consensus().status().role())), up -> up);
    // Tenant b's identity also reads its usage (the service role writes it only); tenant a's
    // is a service and nothing more.
    for (String[] grant : new String[][] {{"svc-a", "service", "a"}, {"svc-b", "service", "b"},
        {"svc-b", "operator", "b"}}) {
      Response.SecurityChangeReply g = (Response.SecurityChangeReply) call(admin,
          new Request.GrantRole(grant[0], grant[1], grant[2]));
      assertEquals(Outcome.SUCCESS, g.outcome(), g.toString());
    }
    for (String tenant : List.of("a", "b")) {
      assertEquals(Outcome.SUCCESS, admin.quotas().setQuota(
          QuotaDefinition.concurrent(tenant, "jobs", 1_000_000).unit("jobs").build()).outcome());
      assertEquals(Outcome.SUCCESS, admin.setLimit(LimitSpec.builder(tenant, "api")
          .ratePerSecond(1_000).burst(1_000).leaseDuration(TTL).build()).outcome());
    }
    a = client(addresses, certs, "svc-a");
    b = client(addresses, certs, "svc-b");
    // Each identity is who its certificate names, with only its own tenant.
    for (Object[] who : new Object[][] {{a, "svc-a", "a"}, {b, "svc-b", "b"}}) {
      Response.WhoAmIReply me = (Response.WhoAmIReply) call((RationClient) who[0],
          new Request.WhoAmI());
      assertEquals(who[1], me.identity(), me.toString());
      assertFalse(me.grants().isEmpty(), me.toString());
      assertTrue(me.grants().stream().allMatch(g -> g.tenant().equals(who[2])), me.toString());
    }
  }

  @AfterAll
  static void stopCluster() {
    for (RationClient c : new RationClient[] {a, b, admin}) {
      if (c != null) {
        c.close();
      }
    }
    for (RationNode n : nodes) {
      n.shutdown();
    }
  }

  private static RationException refused(org.junit.jupiter.api.function.Executable call) {
    RationException e = assertThrows(RationException.class, call);
    assertEquals(ErrorCode.PERMISSION_DENIED, e.code(), e.toString());
    assertInstanceOf(RationFailedException.class, e, "a refusal is definite: " + e);
    assertTrue(e.definite(), e.toString());
    return e;
  }

  /** The usage of "jobs" recorded at {@code scope} and below, of all time. */
  private static long usage(RationClient c, String scope) {
    UsageAggregates all = c.quotas().aggregateUsage(scope, "jobs", LedgerTime.ofMillis(0),
        LedgerTime.NEVER);
    return all.total();
  }

  /** The ledger's refusal, from the identity on, with the id it names replaced by "ID". */
  private static String refusalWords(RationException e, long id) {
    String m = e.getMessage();
    assertTrue(m.contains("identity "), m);
    return m.substring(m.indexOf("identity ")).replace(" " + id + ":", " ID:");
  }

  @Test
  void anotherTenantsSettledReservationAndAnUnknownIdAreRefusedAlike() {
    // Goal: a settled reservation of tenant b, and an id that names nothing, are refused to tenant a alike and reveal nothing of b's settlement.
    Reservation reserved = b.quotas().reserve("b/p", "jobs", 4711, TTL);
    long id = reserved.reservationId();
    Settlement done = b.quotas().complete(id, List.of(4711L));
    assertEquals(Outcome.SUCCESS, done.outcome(), done.toString());
    assertFalse(done.alreadySettled(), done.toString());
    assertEquals(List.of(4711L), done.quantities(), done.toString());

    // Before, a settled reservation resolved to no tenant and passed: a's complete was then
    // answered alreadySettled with b's quantities, and a's cancel with b's settlement.
    RationException complete = refused(() -> a.quotas().complete(id, List.of(1L)));
    RationException cancel = refused(() -> a.quotas().cancel(id));
    for (RationException e : List.of(complete, cancel)) {
      assertTrue(e.getMessage().contains("svc-a"), e.getMessage());
      assertFalse(e.getMessage().contains("4711"), "the refusal leaks b's quantity: " + e.getMessage());
      assertFalse(e.getMessage().contains("tenant b") || e.getMessage().contains("b/p"),
          "the refusal names b's tenant: " + e.getMessage());
    }
    // Before, an id naming nothing passed and was answered as not found: different words tell
    // a caller which ids exist in other tenants.
    RationException unknown = refused(() -> a.quotas().complete(NEVER_USED_ID, List.of(1L)));
    assertNotEquals(String.valueOf(id), String.valueOf(NEVER_USED_ID));
    assertEquals(refusalWords(complete, id), refusalWords(unknown, NEVER_USED_ID),
        "an unknown id and another tenant's id are refused in the same words");

    // The owner's retry still gets its first answer.
    Settlement retried = b.quotas().complete(id, List.of(4711L));
    assertEquals(Outcome.SUCCESS, retried.outcome(), retried.toString());
    assertTrue(retried.alreadySettled(), retried.toString());
    assertEquals(List.of(4711L), retried.quantities(), retried.toString());
  }

  @Test
  void usageEventIdsArePerTenant() {
    // Goal: tenant a using tenant b's event id first does not make b's own event a duplicate.
    // Event times are ledger times: the cluster's clock, not the wall clock.
    LedgerTime now = b.clusterStatus().ledgerNow();
    long before = usage(b, "b/p");
    IngestResult first = a.quotas().ingestUsage(new UsageReport("b-evt-2", now, "a/p", "jobs", 3,
        "jobs", OptionalLong.empty()));
    assertEquals(Outcome.SUCCESS, first.outcome(), first.toString());
    assertFalse(first.duplicate(), first.toString());

    // Before, event ids were global: b's event was answered a duplicate of a's (or refused as
    // the same id with other content) and b's usage was never recorded.
    IngestResult own = b.quotas().ingestUsage(new UsageReport("b-evt-2", now, "b/p", "jobs", 29,
        "jobs", OptionalLong.empty()));
    assertEquals(Outcome.SUCCESS, own.outcome(), own.toString());
    assertFalse(own.duplicate(), own.toString());
    assertNotEquals(first.sequence(), own.sequence(), "b's event is a record of its own");

    assertEquals(before + 29, usage(b, "b/p"), "b's event counted");

    // Within one tenant the id still deduplicates: a retry is a duplicate, other content is
    // refused.
    IngestResult again = b.quotas().ingestUsage(new UsageReport("b-evt-2", now, "b/p", "jobs", 29,
        "jobs", OptionalLong.empty()));
    assertTrue(again.duplicate(), again.toString());
    assertEquals(own.sequence(), again.sequence(), again.toString());
    IngestResult changed;
    try {
      changed = b.quotas().ingestUsage(new UsageReport("b-evt-2", now, "b/p", "jobs", 30,
          "jobs", OptionalLong.empty()));
    } catch (RationException e) {
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.toString());
      changed = null;
    }
    if (changed != null) {
      assertEquals(Outcome.INVALID_ARGUMENT, changed.outcome(), changed.toString());
    }
    assertEquals(before + 29, usage(b, "b/p"), "neither the retry nor the changed event counted");
  }

  @Test
  void usageNamingAnotherTenantsReservationIsRefused() {
    // Goal: tenant a cannot attach usage to tenant b's reservation, so b's books stay consistent.
    Reservation reserved = b.quotas().reserve("b/p", "jobs", 5, TTL);
    long id = reserved.reservationId();
    Settlement done = b.quotas().complete(id, List.of(5L));
    assertEquals(Outcome.SUCCESS, done.outcome(), done.toString());

    // An ingest checked by its scope alone (a/p: a's own) is recorded against b's reservation;
    // the reservation id it names must be checked as well.
    LedgerTime now = a.clusterStatus().ledgerNow();
    long aBefore = usage(admin, "a/p");
    RationException e = refused(() -> a.quotas().ingestUsage(new UsageReport("a-on-b", now,
        "a/p", "jobs", 1_000, "jobs", OptionalLong.of(id))));
    assertTrue(e.getMessage().contains("svc-a"), e.getMessage());

    // Reconciliation compares the reservations settled at exactly the scope it is given (b/p
    // here) with every usage record naming them, whatever the record's scope: an accepted event
    // of a's would show as a drift of b's reservation (expected 5, recorded 1005).
    ReconcileResult books = b.quotas().reconcile("b/p", "", LedgerTime.ofMillis(0), LedgerTime.NEVER);
    assertEquals(Outcome.SUCCESS, books.outcome(), books.toString());
    assertTrue(books.drifts().stream().noneMatch(d -> d.reservation().equals(OptionalLong.of(id))),
        "a's refused event left a drift on b's reservation: " + books);
    assertTrue(books.drifts().isEmpty(), books.toString());
    // Nothing was recorded under a's scope either.
    assertEquals(aBefore, usage(admin, "a/p"), "the refused event was recorded");
  }

  @Test
  void aReturnPresentingAStaleVersionFreesNothing() {
    // Goal: a lease return that does not present the lease's current version is refused and leaves the lease to its holder.
    LeaseResult acquired = b.acquireLease("b", "api", "holder-b", 10, 10);
    assertEquals(Outcome.SUCCESS, acquired.outcome(), acquired.toString());
    LeaseInfo lease = acquired.lease().orElseThrow();
    LeaseResult renewed = b.renewLease(RenewalReport.builder(lease.leaseId(), lease.version())
        .demand(10, 10).build());
    assertEquals(Outcome.SUCCESS, renewed.outcome(), renewed.toString());
    long version = renewed.lease().orElseThrow().version();

    // Before, a return freed the lease whatever version it presented.
    ReturnResult stale = b.returnLease(lease.leaseId(), version + 1000, 0);
    assertEquals(Outcome.VERSION_MISMATCH, stale.outcome(), stale.toString());
    assertFalse(stale.alreadyGone(), stale.toString());
    assertEquals(0, stale.credited(), stale.toString());
    assertTrue(b.listLeases("b", "api").stream().anyMatch(l -> l.leaseId() == lease.leaseId()),
        "the refused return left the lease");

    LeaseResult next = b.renewLease(RenewalReport.builder(lease.leaseId(), version)
        .demand(10, 10).build());
    assertEquals(Outcome.SUCCESS, next.outcome(), next.toString());
    long current = next.lease().orElseThrow().version();

    ReturnResult returned = b.returnLease(lease.leaseId(), current, 0);
    assertEquals(Outcome.SUCCESS, returned.outcome(), returned.toString());
    assertFalse(returned.alreadyGone(), returned.toString());
    assertTrue(b.listLeases("b", "api").stream().noneMatch(l -> l.leaseId() == lease.leaseId()),
        "the return freed the lease");
  }
}
