package dev.ration.cli;

import dev.ration.wire.ChangeKind;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Goal: `ration ttl ...` and `ration lock ...` send the right requests (request ids on
 * mutations), print the documented JSON fields, and map outcomes to exit codes (0 ok, 2
 * rejection or miss, 1 usage).
 */
class TtlCliTest {
  private final CliHarness h = new CliHarness();

  private static TtlRequest sent(Request r) {
    return ((Request.Ttl) r).request();
  }

  @Test
  void putSendsValueAndTtlAndPrintsVersion() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 7, 7, 31_000));
    CliHarness.Run r = h.run("ttl", "put", "cfg", "on", "--ttl", "30000", "-n", "flags", "--output", "json",
        "--client-id", "0a", "--request-id", "5");
    assertEquals(0, r.exitCode(), r.toString());
    assertEquals("{\"outcome\":\"SUCCESS\",\"namespace\":\"flags\",\"key\":\"cfg\",\"version\":7,"
        + "\"expiresAtMillis\":31000,\"expiresAt\":\"2026-12-06T07:20:21.000Z\",\"currentVersion\":7}\n", r.out());
    TtlRequest.Put put = (TtlRequest.Put) sent(h.gateway.requests.get(0));
    assertEquals("flags", put.namespace());
    assertEquals("cfg", put.key());
    assertArrayEquals("on".getBytes(StandardCharsets.UTF_8), put.value());
    assertEquals(30_000, put.ttlMillis());
    assertEquals(List.of(Optional.of(5L)), h.gateway.requestIds);
  }

  @Test
  void casMismatchExitsTwoWithTheCurrentVersion() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.VERSION_MISMATCH,
        "expected version 3 but current is 9", 9, 0, 0));
    CliHarness.Run r = h.run("ttl", "cas", "k", "v", "--expect", "3", "--ttl", "1000", "--output", "json");
    assertEquals(Exit.FAILED, r.exitCode(), r.toString());
    assertTrue(r.out().contains("\"currentVersion\":9"), r.out());
    assertEquals("error: VERSION_MISMATCH: expected version 3 but current is 9\n", r.err());
    assertEquals(new TtlRequest.Refresh("default", "k", 1, 0).namespace(),
        ((TtlRequest.CompareAndSet) sent(h.gateway.requests.get(0))).namespace());
  }

  @Test
  void getHitPrintsTheEntryAndAMissExitsTwo() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.GetReply(true,
        new TtlResponse.EntryInfo("default", "k", "v".getBytes(StandardCharsets.UTF_8), 4, 9_000), 8_500));
    CliHarness.Run hit = h.run("ttl", "get", "k", "--output", "json");
    assertEquals(0, hit.exitCode(), hit.toString());
    assertEquals("{\"found\":true,\"readAtMillis\":8500,\"readAt\":\"2026-12-06T07:20:00.000Z\",\"namespace\":\"default\",\"key\":\"k\",\"value\":\"v\","
        + "\"version\":4,\"expiresAtMillis\":9000,\"expiresAt\":\"2026-12-06T07:20:00.500Z\"}\n", hit.out());
    assertEquals(new Request.Ttl(new TtlRequest.Get("default", "k", false)), h.gateway.requests.get(0));

    h.gateway.script = r -> new Response.Ttl(new TtlResponse.GetReply(false, null, 9_000));
    CliHarness.Run miss = h.run("ttl", "get", "k");
    assertEquals(Exit.FAILED, miss.exitCode(), miss.toString());
    assertEquals("error: ENTRY_UNKNOWN: no live entry default/k\n", miss.err());
  }

  @Test
  void refreshDeleteAndList() {
    h.gateway.script = r -> switch (r.kind()) {
      case TTL_REFRESH -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.ENTRY_UNKNOWN, "no entry default/k", 0, 0, 0));
      case TTL_DELETE -> new Response.Ttl(new TtlResponse.DeleteReply(Outcome.SUCCESS, "", 4, 4, true));
      default -> new Response.Ttl(new TtlResponse.ListReply(List.of(
          new TtlResponse.EntryInfo("default", "a/1", new byte[] {'x'}, 2, 100)), false, 50));
    };
    assertEquals(Exit.FAILED, h.run("ttl", "refresh", "k", "--ttl", "500").exitCode());
    CliHarness.Run del = h.run("ttl", "delete", "k", "--expect", "4", "--output", "json");
    assertEquals(0, del.exitCode(), del.toString());
    assertTrue(del.out().contains("\"existed\":true"), del.out());
    CliHarness.Run list = h.run("ttl", "list", "--prefix", "a/", "--output", "json");
    assertEquals(0, list.exitCode(), list.toString());
    assertEquals("{\"entries\":[{\"namespace\":\"default\",\"key\":\"a/1\",\"value\":\"x\",\"version\":2,"
        + "\"expiresAtMillis\":100,\"expiresAt\":\"2026-12-06T07:20:00.050Z\"}]}\n", list.out());
    assertEquals(new Request.Ttl(new TtlRequest.Delete("default", "k", 4)), h.gateway.requests.get(1));
    assertEquals(new Request.Ttl(new TtlRequest.List("default", "a/", 100, false)), h.gateway.requests.get(2));
  }

  @Test
  void lockAcquireReleaseAndHeld() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 12, 12, 5_000));
    CliHarness.Run got = h.run("lock", "acquire", "jobs", "--owner", "w1", "--ttl", "5000", "--output", "json");
    assertEquals(0, got.exitCode(), got.toString());
    assertEquals("{\"outcome\":\"SUCCESS\",\"lock\":\"jobs\",\"owner\":\"w1\",\"fencingToken\":12,"
        + "\"expiresAtMillis\":5000,\"expiresAt\":\"2026-12-06T07:19:55.000Z\",\"heldByToken\":0}\n", got.out());
    TtlRequest.CompareAndSet cas = (TtlRequest.CompareAndSet) sent(h.gateway.requests.get(0));
    assertEquals("locks", cas.namespace());
    assertEquals(0, cas.expectedVersion());

    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.VERSION_MISMATCH, "", 12, 0, 0));
    CliHarness.Run held = h.run("lock", "acquire", "jobs", "--owner", "w2", "--ttl", "5000");
    assertEquals(Exit.FAILED, held.exitCode(), held.toString());
    assertEquals("error: VERSION_MISMATCH: lock jobs is held (token 12)\n", held.err());

    h.gateway.script = r -> new Response.Ttl(new TtlResponse.DeleteReply(Outcome.SUCCESS, "", 12, 12, true));
    CliHarness.Run rel = h.run("lock", "release", "jobs", "--token", "12", "--output", "json");
    assertEquals(0, rel.exitCode(), rel.toString());
    assertTrue(rel.out().contains("\"released\":true"), rel.out());
    assertEquals(new Request.Ttl(new TtlRequest.Delete("locks", "jobs", 12)),
        h.gateway.requests.get(h.gateway.requests.size() - 1));
  }

  /** Goal: --namespace puts a lock in a tenant's own namespace, for taking and releasing it. */
  @Test
  void lockInATenantsOwnNamespace() {
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 7, 7, 5_000));
    assertEquals(0, h.run("lock", "acquire", "jobs", "--namespace", "acme/locks", "--owner", "w1",
        "--ttl", "5s").exitCode());
    assertEquals("acme/locks",
        ((TtlRequest.CompareAndSet) sent(h.gateway.requests.get(0))).namespace());
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.DeleteReply(Outcome.SUCCESS, "", 7, 7, true));
    assertEquals(0, h.run("lock", "release", "jobs", "--namespace", "acme/locks", "--token", "7")
        .exitCode());
    assertEquals(new Request.Ttl(new TtlRequest.Delete("acme/locks", "jobs", 7)),
        h.gateway.requests.get(h.gateway.requests.size() - 1));
  }

  @Test
  void usageErrorsExitOne() {
    assertEquals(Exit.USAGE, h.run("ttl", "put", "k", "v").exitCode(), "--ttl is required");
    assertEquals(Exit.USAGE, h.run("lock", "release", "jobs", "--token", "0").exitCode());
    assertEquals(Exit.USAGE, h.run("ttl", "namespace-set", "--max-entries", "1", "--max-bytes", "1",
        "--policy", "lru").exitCode());
  }

  private static TtlResponse.WatchReply watchAnswer(TtlRequest.Watch w) {
    byte[] v1 = "v1".getBytes(StandardCharsets.UTF_8);
    if (w.fromIndex() == -1) {
      return new TtlResponse.WatchReply(List.of(), 10, false, false, List.of(), 1_000, true);
    }
    if (w.fromIndex() == 10) {
      return new TtlResponse.WatchReply(List.of(
          new TtlResponse.ChangeInfo(11, ChangeKind.PUT, "k", 5, 61_000, v1),
          new TtlResponse.ChangeInfo(12, ChangeKind.DELETE, "k", 5, 61_000, new byte[0])),
          12, false, false, List.of(), 2_000, true);
    }
    if (w.fromIndex() == 12) {
      return new TtlResponse.WatchReply(List.of(), 20, true, false, List.of(), 3_000, true);
    }
    return new TtlResponse.WatchReply(List.of(
        new TtlResponse.ChangeInfo(w.fromIndex() + 1, ChangeKind.EXPIRE, "j", 9, 3_000, new byte[0]),
        new TtlResponse.ChangeInfo(w.fromIndex() + 2, ChangeKind.PUT, "j", 10, Long.MAX_VALUE, v1)),
        w.fromIndex() + 2, false, false, List.of(), 4_000, true);
  }

  @Test
  void watchPrintsEachChangeOnceResumesFromEachAnswerAndStopsAtCount() {
    h.gateway.script = r -> new Response.Ttl(watchAnswer((TtlRequest.Watch) sent(r)));
    CliHarness.Run r = h.run("ttl", "watch", "-n", "flags", "--count", "3", "--output", "json");
    assertEquals(0, r.exitCode(), r.toString());
    String[] lines = r.out().split("\n");
    assertEquals(4, lines.length, r.out());
    assertTrue(lines[0].startsWith("{\"index\":11,\"kind\":\"PUT\",\"namespace\":\"flags\","
        + "\"key\":\"k\",\"version\":5,\"expiresAtMillis\":61000,\"expiresAt\":\""), lines[0]);
    assertTrue(lines[1].contains("\"kind\":\"DELETE\""), lines[1]);
    assertTrue(lines[2].startsWith("{\"compacted\":true,\"throughIndex\":20,"), lines[2]);
    assertTrue(lines[3].startsWith("{\"index\":21,\"kind\":\"EXPIRE\""), lines[3]);
    List<Long> from = h.gateway.requests.stream()
        .map(q -> ((TtlRequest.Watch) sent(q)).fromIndex()).toList();
    assertEquals(List.of(-1L, 10L, 12L, 20L), from);
    assertEquals(0, ((TtlRequest.Watch) sent(h.gateway.requests.get(0))).waitMillis(),
        "the first poll only finds the position");
  }

  @Test
  void watchPrintsOneLinePerChangeWithInstantsAndWarnsOfMissedChanges() {
    h.gateway.script = r -> new Response.Ttl(watchAnswer((TtlRequest.Watch) sent(r)));
    CliHarness.Run r = h.run("ttl", "watch", "--count", "4");
    assertEquals(0, r.exitCode(), r.toString());
    String[] lines = r.out().split("\n");
    assertTrue(lines[0].matches("11 PUT k version 5 expires \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z value v1"),
        lines[0]);
    assertEquals("12 DELETE k version 5", lines[1]);
    assertEquals("21 EXPIRE j version 9", lines[2]);
    assertEquals("22 PUT j version 10 expires never value v1", lines[3]);
    assertTrue(r.err().contains("warning: changes after index 12 are no longer held"), r.err());
  }

  @Test
  void watchRefusesABadStartIndex() {
    CliHarness.Run r = h.run("ttl", "watch", "--from-index", "-2");
    assertEquals(Exit.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--from-index: -2 < -1"), r.err());
  }

  @Test
  void watchPrintsTheRestOfTheLastChangesLogEntrySoAResumeMissesNothing() {
    h.gateway.script = r -> {
      TtlRequest.Watch w = (TtlRequest.Watch) sent(r);
      return new Response.Ttl(w.fromIndex() == -1
          ? new TtlResponse.WatchReply(List.of(), 49, false, false, List.of(), 1_000, true)
          : new TtlResponse.WatchReply(List.of(
              new TtlResponse.ChangeInfo(50, ChangeKind.EVICT, "old", 3, 9_000, new byte[0]),
              new TtlResponse.ChangeInfo(50, ChangeKind.PUT, "new", 4, 9_500, new byte[] {'v'}),
              new TtlResponse.ChangeInfo(51, ChangeKind.DELETE, "new", 4, 9_500, new byte[0])),
              51, false, false, List.of(), 2_000, false));
    };
    CliHarness.Run r = h.run("ttl", "watch", "--count", "1");
    assertEquals(0, r.exitCode(), r.toString());
    String[] lines = r.out().split("\\n");
    assertEquals(2, lines.length, r.out());
    assertEquals("50 EVICT old version 3", lines[0]);
    assertTrue(lines[1].startsWith("50 PUT new version 4"), lines[1]);
  }
}
