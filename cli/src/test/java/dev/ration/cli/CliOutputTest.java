package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.cli.ClusterGateway.GatewayException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Goal: each command prints its answer as the documented table or JSON, and every kind of
 * failure maps to its exit code with one "error:" line (scripted gateway, no cluster).
 */
class CliOutputTest {
  private final CliHarness h = new CliHarness();

  @Test
  void limitSetPrintsTheNewLimitAsTableAndJson() {
    h.gateway.script = r -> new Response.SetLimitReply(Outcome.SUCCESS, "", 3, CliHarness.limit("acme", "api", 100, 200, 3));
    String[] args = {"limit", "set", "--tenant", "acme", "--resource", "api", "--rate", "100", "--burst", "200"};
    CliHarness.Run table = h.run(args);
    assertEquals(0, table.exitCode(), table.toString());
    assertTrue(table.out().startsWith("outcome             SUCCESS\nmessage             -\ncurrent version     3\ntenant              acme\n"), table.out());
    // Durations read as durations in a table; JSON (below) keeps the milliseconds.
    assertTrue(table.out().contains("\nlease duration      10s\ngrace               1s\n"), table.out());
    assertEquals("", table.err());

    CliHarness.Run json = h.run(concat(args, "--output", "json"));
    assertEquals(0, json.exitCode(), json.toString());
    assertEquals("{\"outcome\":\"SUCCESS\",\"message\":\"\",\"currentVersion\":3,\"limit\":{\"tenant\":\"acme\",\"resource\":\"api\","
        + "\"ratePerSecond\":100,\"burst\":200,\"mode\":\"hard\",\"leaseDurationMillis\":10000,\"graceMillis\":1000,"
        + "\"emergency\":0,\"policy\":\"free-capacity\",\"version\":3,\"countedRate\":0,\"countedBurst\":0,\"grantedRate\":0,"
        + "\"grantedBurst\":0,\"pool\":0,\"leases\":0,\"pendingShrinks\":0,\"rateCeiling\":100,\"burstCeiling\":200,"
        + "\"emergencyReported\":0,\"pendingRate\":0,\"pendingBurst\":0,\"demandRate\":0,\"demandBurst\":0}}\n",
        json.out());
  }

  @Test
  void staleConfigIsADefiniteRejection() {
    h.gateway.script = r -> new Response.SetLimitReply(Outcome.STALE_CONFIG, "expected version 2, current 5", 5, null);
    CliHarness.Run r = h.run("limit", "set", "--tenant", "acme", "--resource", "api", "--rate", "1", "--burst", "1",
        "--expected-version", "2", "--output", "json");
    assertEquals(Exit.FAILED, r.exitCode(), r.toString());
    assertEquals("{\"outcome\":\"STALE_CONFIG\",\"message\":\"expected version 2, current 5\",\"currentVersion\":5}\n", r.out());
    assertEquals("error: STALE_CONFIG: expected version 2, current 5\n", r.err());
  }

  @Test
  void limitExhaustedPrintsTheOutcomeAndExitsTwo() {
    h.gateway.script = r -> new Response.LeaseReply(Outcome.LIMIT_EXHAUSTED, "no free rate", 250, 0, null, 0);
    CliHarness.Run r = h.run("lease", "acquire", "--tenant", "acme", "--resource", "api", "--holder", "eu-1",
        "--rate", "10", "--burst", "10");
    assertEquals(Exit.FAILED, r.exitCode(), r.toString());
    assertTrue(r.out().startsWith("outcome          LIMIT_EXHAUSTED\nmessage          no free rate\nretry after      250ms\n"), r.out());
    assertEquals("error: LIMIT_EXHAUSTED: no free rate (retry after 250ms)\n", r.err());
    assertEquals(List.of(new Request.AcquireLease("acme", "api", "eu-1", 10, 10)), h.gateway.requests);
  }

  @Test
  void protocolErrorsMapToDefiniteOrIndeterminate() {
    h.gateway.script = r -> {
      throw new GatewayException(ErrorCode.NOT_LEADER, true, 0,
          "NOT_LEADER: request 3 LIST_LIMITS: no leader (after 11 attempts)", null);
    };
    CliHarness.Run notLeader = h.run("limit", "list");
    assertEquals(Exit.FAILED, notLeader.exitCode(), notLeader.toString());
    assertEquals("error: NOT_LEADER: request 3 LIST_LIMITS: no leader (after 11 attempts)\n", notLeader.err());
    assertEquals("", notLeader.out());

    h.gateway.script = r -> {
      throw new GatewayException(ErrorCode.DEADLINE_EXCEEDED, false, 0, "DEADLINE_EXCEEDED: request 4 SET_LIMIT: timed out", null);
    };
    CliHarness.Run timeout = h.run("limit", "set", "--tenant", "t", "--resource", "r", "--rate", "1", "--burst", "1");
    assertEquals(Exit.INDETERMINATE, timeout.exitCode(), timeout.toString());

    // A read that could not reach anyone is definite for the client library, but UNAVAILABLE: exit 3.
    h.gateway.script = r -> {
      throw new GatewayException(ErrorCode.UNAVAILABLE, true, 0, "cannot reach any server of a:1 (connection refused)", null);
    };
    CliHarness.Run unavailable = h.run("lease", "list");
    assertEquals(Exit.INDETERMINATE, unavailable.exitCode(), unavailable.toString());
    assertEquals("error: cannot reach any server of a:1 (connection refused)\n", unavailable.err());
  }

  @Test
  void limitGetAndList() {
    h.gateway.script = r -> new Response.GetLimitReply(false, null);
    CliHarness.Run missing = h.run("limit", "get", "--tenant", "acme", "--resource", "api", "--output", "json");
    assertEquals(Exit.FAILED, missing.exitCode(), missing.toString());
    assertEquals("{\"found\":false}\n", missing.out());
    assertEquals("error: LIMIT_UNKNOWN: no limit for tenant 'acme' resource 'api'\n", missing.err());

    h.gateway.script = r -> new Response.GetLimitReply(true, CliHarness.limit("acme", "api", 5, 6, 1));
    CliHarness.Run found = h.run("limit", "get", "--tenant", "acme", "--resource", "api", "--stale");
    assertEquals(0, found.exitCode(), found.toString());
    assertTrue(found.out().startsWith("found               true\ntenant              acme\n"), found.out());
    assertEquals(new Request.GetLimit("acme", "api", true), h.gateway.requests.get(1));

    h.gateway.script = r -> new Response.LimitList(List.of(CliHarness.limit("acme", "api", 100, 200, 3),
        CliHarness.limit("globex", "search", 5000, 10000, 12)));
    CliHarness.Run list = h.run("limit", "list");
    assertEquals(0, list.exitCode(), list.toString());
    assertEquals("""
        TENANT  RESOURCE  RATE-PER-SECOND  BURST  MODE  POLICY         LEASE-DURATION  VERSION  LEASES  COUNTED-RATE  GRANTED-RATE  COUNTED-BURST  GRANTED-BURST  PENDING-SHRINKS  DEMAND-RATE  POOL
        acme    api       100              200    hard  free-capacity  10s             3        0       0             0             0              0              0                0            0
        globex  search    5000             10000  hard  free-capacity  10s             12       0       0             0             0              0              0                0            0
        """, list.out());
    CliHarness.Run empty = h.run("limit", "list", "--output", "json");
    assertTrue(empty.out().startsWith("{\"limits\":[{\"tenant\":\"acme\""), empty.out());
  }

  @Test
  void leaseRenewWithoutDemandKeepsTheCurrentShares() {
    h.gateway.script = r -> {
      if (r instanceof Request.ListLeases) {
        return new Response.LeaseList(List.of(CliHarness.lease(7, "eu-1", 40, 80, 2), CliHarness.lease(9, "us-1", 1, 1, 1)));
      }
      return new Response.LeaseReply(Outcome.SUCCESS, "", 0, 3, CliHarness.lease(7, "eu-1", 40, 80, 3), 0);
    };
    CliHarness.Run r = h.run("lease", "renew", "--lease-id", "7", "--version", "2", "--client-id", "ab", "--request-id", "5");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals(List.of(new Request.ListLeases("", "", false), new Request.RenewLease(7, 2, 40, 80, 0, 0, 0)), h.gateway.requests);
    assertEquals(List.of(Optional.empty(), Optional.of(5L)), h.gateway.requestIds, "only the mutation carries the chosen id");

    CliHarness.Run explicit = h.run("lease", "renew", "--lease-id", "7", "--version", "3", "--rate", "10", "--burst", "20",
        "--admitted", "8", "--rejected", "2", "--emergency-used", "1");
    assertEquals(0, explicit.exitCode(), explicit.toString());
    assertEquals(new Request.RenewLease(7, 3, 10, 20, 8, 2, 1), h.gateway.requests.get(2));

    CliHarness.Run unknown = h.run("lease", "renew", "--lease-id", "99", "--version", "1");
    assertEquals(Exit.FAILED, unknown.exitCode(), unknown.toString());
    assertEquals("error: LEASE_UNKNOWN: no live lease 99 (give --rate and --burst to send the renewal anyway)\n", unknown.err());
  }

  @Test
  void leaseReturnAndList() {
    h.gateway.script = r -> new Response.ReturnReply(Outcome.SUCCESS, "", 7, 15, false);
    CliHarness.Run ret = h.run("lease", "return", "--lease-id", "7", "--version", "3", "--unused", "15", "--output", "json");
    assertEquals(0, ret.exitCode(), ret.toString());
    assertEquals("{\"outcome\":\"SUCCESS\",\"message\":\"\",\"leaseId\":7,\"credited\":15,\"alreadyGone\":false}\n", ret.out());
    assertEquals(new Request.ReturnLease(7, 3, 15), h.gateway.requests.get(0));

    h.gateway.script = r -> new Response.LeaseList(List.of(CliHarness.lease(7, "eu-1", 40, 80, 2)));
    CliHarness.Run list = h.run("lease", "list", "--tenant", "acme", "--resource", "api");
    assertEquals(0, list.exitCode(), list.toString());
    assertEquals("""
        LEASE-ID  TENANT  RESOURCE  HOLDER  EPOCH  VERSION  RATE-SHARE  COUNTED-RATE  PENDING-RATE  BURST-SHARE  COUNTED-BURST  PENDING-BURST  EXPIRES-AT                COUNTED-UNTIL
        7         acme    api       eu-1    1      2        40          40            0             80           80             0              2026-12-06T07:20:01.000Z  2026-12-06T07:20:02.000Z
        """, list.out());
    assertEquals(new Request.ListLeases("acme", "api", false), h.gateway.requests.get(1));
  }

  @Test
  void clusterStatusShowsEveryServerAndWhichOnesAreUnreachable() {
    h.gateway.statusScript = address -> {
      if (address.endsWith(":7103")) {
        throw new GatewayException(ErrorCode.UNAVAILABLE, true, 0, "cannot reach 127.0.0.1:7103 (connection refused)", null);
      }
      boolean leader = address.endsWith(":7101");
      return new Response.ClusterStatusReply(leader ? "n1" : "n2", leader ? "LEADER" : "FOLLOWER", 4, 120, leader ? 120 : 118,
          "n1", "127.0.0.1:7101", 5_000, 4, List.of(
              new Response.PeerInfo("n1", "127.0.0.1:7201", "127.0.0.1:7101", "LEADER"),
              new Response.PeerInfo("n2", "127.0.0.1:7202", "127.0.0.1:7102", "FOLLOWER"),
              new Response.PeerInfo("n3", "127.0.0.1:7203", "127.0.0.1:7103", "UNKNOWN"),
              new Response.PeerInfo("n4", "127.0.0.1:7204", "127.0.0.1:7104", "LISTENER")));
    };
    CliHarness.Run r = h.run("cluster", "status");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals("""
        ID  ADDRESS         ROLE         TERM  COMMIT-INDEX  APPLIED-INDEX  LEADER-ID  MEMBERS                ERROR
        n1  127.0.0.1:7101  LEADER       4     120           120            n1         n1,n2,n3,n4(listener)  -
        n2  127.0.0.1:7102  FOLLOWER     4     120           118            n1         n1,n2,n3,n4(listener)  -
        -   127.0.0.1:7103  UNREACHABLE  -     -             -              -          -                      cannot reach 127.0.0.1:7103 (connection refused)
        """, r.out());
    CliHarness.Run json = h.run("cluster", "status", "--output", "json", "--servers", "127.0.0.1:7103");
    assertEquals(Exit.INDETERMINATE, json.exitCode(), json.toString());
    assertEquals("{\"servers\":[{\"address\":\"127.0.0.1:7103\",\"reachable\":false,\"id\":\"\",\"role\":\"UNREACHABLE\","
        + "\"term\":null,\"commitIndex\":null,\"appliedIndex\":null,\"leaderId\":\"\",\"leaderAddress\":\"\","
        + "\"ledgerNowMillis\":null,\"epoch\":null,\"members\":\"\",\"error\":\"cannot reach 127.0.0.1:7103 (connection refused)\"}]}\n", json.out());
    assertEquals("error: no server answered: cannot reach 127.0.0.1:7103 (connection refused)\n", json.err());
  }

  @Test
  void jsonWriterEscapesAndNests() {
    Fields f = new Fields().put("s", "a\"b\\c\nd\u0001").put("n", -5L).put("b", true).put("none", Fields.NONE)
        .put("nested", new Fields().put("x", 1)).put("list", List.of(new Fields().put("y", "z"), new Fields()));
    assertEquals("{\"s\":\"a\\\"b\\\\c\\nd\\u0001\",\"n\":-5,\"b\":true,\"none\":null,\"nested\":{\"x\":1},"
        + "\"list\":[{\"y\":\"z\"},{}]}", f.toJson());
    JsonWriter w = new JsonWriter().beginArray();
    assertTrue(assertThrowsIllegalState(() -> w.name("x")));
    assertTrue(assertThrowsIllegalState(w::finish));
  }

  private static boolean assertThrowsIllegalState(Runnable r) {
    try {
      r.run();
      return false;
    } catch (IllegalStateException expected) {
      return true;
    }
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
