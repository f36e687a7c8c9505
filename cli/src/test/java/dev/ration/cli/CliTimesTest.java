package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlResponse;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Goal: a person reads every time the CLI prints without arithmetic. Points in time are UTC
 * ISO-8601 instants (computed from one reading of the cluster's ledger clock, here ledger 10000
 * at 2026-12-06T07:20:00Z), with their ledger time beside them; no expiry is "never" in tables
 * and JSON; durations have one style; JSON keeps the ledger milliseconds under their old names
 * and adds the instant next to them.
 */
class CliTimesTest {
  private final CliHarness h = new CliHarness();

  /** Table output with runs of padding squeezed to two spaces: lines read "label  value". */
  private static String squeezed(String out) {
    return out.replaceAll(" {2,}", "  ");
  }

  @Test
  void leaseListShowsInstantsInTheTableAndBothTimesInJson() {
    h.gateway.script = r -> new Response.LeaseList(List.of(CliHarness.lease(7, "eu-1", 40, 80, 2)));
    CliHarness.Run table = h.run("lease", "list");
    assertEquals(0, table.exitCode(), table.toString());
    assertEquals("""
        LEASE-ID  TENANT  RESOURCE  HOLDER  EPOCH  VERSION  RATE-SHARE  COUNTED-RATE  PENDING-RATE  BURST-SHARE  COUNTED-BURST  PENDING-BURST  EXPIRES-AT                COUNTED-UNTIL
        7         acme    api       eu-1    1      2        40          40            0             80           80             0              2026-12-06T07:20:01.000Z  2026-12-06T07:20:02.000Z
        """, table.out());
    assertFalse(table.out().contains("MILLIS"), table.out());
    assertEquals(1, h.gateway.clockReads, "one reading of the cluster's clock per command");

    CliHarness.Run json = h.run("lease", "list", "--output", "json");
    assertTrue(json.out().contains("\"grantedAtMillis\":1000,\"grantedAt\":\"2026-12-06T07:19:51.000Z\","
        + "\"expiresAtMillis\":11000,\"expiresAt\":\"2026-12-06T07:20:01.000Z\","
        + "\"countedUntilMillis\":12000,\"countedUntil\":\"2026-12-06T07:20:02.000Z\","), json.out());
  }

  @Test
  void leaseAcquireShowsWhenItWasGrantedAndWhenItExpires() {
    h.gateway.script = r -> new Response.LeaseReply(Outcome.SUCCESS, "", 0, 1, CliHarness.lease(7, "eu-1", 40, 80, 1), 0);
    CliHarness.Run r = h.run("lease", "acquire", "--tenant", "acme", "--resource", "api", "--holder", "eu-1",
        "--rate", "40", "--burst", "80");
    assertEquals(0, r.exitCode(), r.toString());
    String out = squeezed(r.out());
    assertTrue(out.contains("\ngranted at  2026-12-06T07:19:51.000Z (9s ago, ledger 1000)\n"), r.out());
    assertTrue(out.contains("\nexpires at  2026-12-06T07:20:01.000Z (in 1s, ledger 11000)\n"), r.out());
    assertTrue(out.contains("\ncounted until  2026-12-06T07:20:02.000Z (in 2s, ledger 12000)\n"), r.out());
    assertTrue(out.contains("\nlease duration  10s\n"), r.out());
    assertFalse(r.out().contains("millis"), r.out());
  }

  @Test
  void noExpiryIsNeverInTablesAndJson() {
    TtlResponse.EntryInfo forever = new TtlResponse.EntryInfo("default", "k",
        "v".getBytes(StandardCharsets.UTF_8), 4, Long.MAX_VALUE);
    h.gateway.script = r -> new Response.Ttl(new TtlResponse.GetReply(true, forever, 10_000));
    CliHarness.Run table = h.run("ttl", "get", "k");
    assertEquals(0, table.exitCode(), table.toString());
    assertTrue(squeezed(table.out()).contains("\nexpires at  never\n"), table.out());
    assertFalse(table.out().contains("h27m"), table.out());

    CliHarness.Run json = h.run("ttl", "get", "k", "--output", "json");
    assertTrue(json.out().contains("\"expiresAtMillis\":\"never\",\"expiresAt\":\"never\""), json.out());
    assertFalse(json.out().contains(String.valueOf(Long.MAX_VALUE)), json.out());

    h.gateway.script = r -> new Response.Ttl(new TtlResponse.ListReply(List.of(forever), false, 10_000));
    CliHarness.Run list = h.run("ttl", "list");
    assertEquals("""
        NAMESPACE  KEY  VALUE  VERSION  EXPIRES-AT
        default    k    v      4        never
        """, list.out());

    h.gateway.script = r -> new Response.Ttl(new TtlResponse.WriteReply(Outcome.SUCCESS, "", 5, 5, Long.MAX_VALUE));
    CliHarness.Run put = h.run("ttl", "put", "k", "v", "--ttl", "-1", "--output", "json");
    assertEquals("{\"outcome\":\"SUCCESS\",\"namespace\":\"default\",\"key\":\"k\",\"version\":5,"
        + "\"expiresAtMillis\":\"never\",\"expiresAt\":\"never\",\"currentVersion\":5}\n", put.out());
    assertEquals(0, h.gateway.clockReads, "nothing but 'never' to show: the clock is not read");
  }

  @Test
  void usageReadShowsEventTimesAsInstants() {
    h.gateway.script = r -> new Response.Quota(new QuotaResponse.UsageBatch(List.of(
        new UsageEvent(1, "e1", EventType.INGESTED, 5_000, 6_000, "acme", "tokens", 3, "units", 0, 0)), 1, 1));
    CliHarness.Run table = h.run("usage", "read");
    assertEquals(0, table.exitCode(), table.toString());
    assertEquals("""
        SEQUENCE  EVENT-ID  TYPE      EVENT-TIME                SCOPE  RESOURCE  QUANTITY  UNIT   RESERVATION-ID  OVERAGE
        1         e1        ingested  2026-12-06T07:19:55.000Z  acme   tokens    3         units  0               0
        """, table.out());
    CliHarness.Run json = h.run("usage", "read", "--output", "json");
    assertTrue(json.out().contains("\"eventTimeMillis\":5000,\"eventTime\":\"2026-12-06T07:19:55.000Z\","
        + "\"recordedAtMillis\":6000,\"recordedAt\":\"2026-12-06T07:19:56.000Z\""), json.out());
  }

  @Test
  void auditShowsWhenAsAnInstant() {
    h.gateway.script = r -> new Response.Quota(new QuotaResponse.AuditList(List.of(
        new AuditRecord(3, 9_250, "ops", "quota-set", "acme", "tokens", 2, "raise", ""))));
    CliHarness.Run table = h.run("audit");
    assertEquals(0, table.exitCode(), table.toString());
    assertEquals("""
        SEQUENCE  AT                        ACTOR  ACTION     SCOPE  RESOURCE  VERSION  REASON  DETAIL
        3         2026-12-06T07:19:59.250Z  ops    quota-set  acme   tokens    2        raise   -
        """, table.out());
    CliHarness.Run json = h.run("audit", "--output", "json");
    assertTrue(json.out().contains("\"atMillis\":9250,\"at\":\"2026-12-06T07:19:59.250Z\""), json.out());
  }

  @Test
  void quotaGetAndReservationListShowInstants() {
    QuotaSpec spec = new QuotaSpec("acme", "tokens", QuotaKind.CUMULATIVE, Window.MONTH, 100, "units", 0,
        Overage.REJECT, 0, 0, 2, "ops", 8_000, "raise");
    h.gateway.script = r -> new Response.Quota(new QuotaResponse.QuotaFound(
        Optional.of(new QuotaResponse.QuotaInfo(spec, 0, 5, 0, 0, false))));
    CliHarness.Run get = h.run("quota", "get", "--scope", "acme", "--resource", "tokens");
    assertEquals(0, get.exitCode(), get.toString());
    String out = squeezed(get.out());
    assertTrue(out.contains("\nperiod start  2026-12-06T07:19:50.000Z (10s ago, ledger 0)\n"), get.out());
    assertTrue(out.contains("\nchanged at  2026-12-06T07:19:58.000Z (2s ago, ledger 8000)\n"), get.out());
    assertFalse(get.out().contains("0ms") || get.out().contains("millis"), get.out());

    h.gateway.script = r -> new Response.Quota(new QuotaResponse.ReservationList(List.of(
        new QuotaResponse.ReservationInfo(9, "acme", 2, 4_000, 64_000,
            List.of(new QuotaResponse.ReservedItem("tokens", 5, 0, "units"))))));
    CliHarness.Run list = h.run("reservation", "list");
    assertEquals("""
        RESERVATION-ID  SCOPE  ITEMS     CONFIG-VERSION  CREATED-AT                EXPIRES-AT
        9               acme   tokens=5  2               2026-12-06T07:19:54.000Z  2026-12-06T07:20:54.000Z
        """, list.out());
  }

  @Test
  void retryAfterHasOneStyle() {
    h.gateway.script = r -> new Response.LeaseReply(Outcome.LIMIT_EXHAUSTED, "no free rate", 594_800, 0, null, 0);
    CliHarness.Run r = h.run("lease", "acquire", "--tenant", "acme", "--resource", "api", "--holder", "eu-1",
        "--rate", "10", "--burst", "10");
    assertEquals(Exit.FAILED, r.exitCode(), r.toString());
    assertTrue(squeezed(r.out()).contains("\nretry after  9m54s\n"), r.out());
    assertEquals("error: LIMIT_EXHAUSTED: no free rate (retry after 9m54s)\n", r.err());
    assertFalse((r.out() + r.err()).contains("ms)"), r.toString());
  }

  @Test
  void withoutTheClusterClockTimesStayLedgerTimes() {
    h.gateway.script = r -> new Response.LeaseList(List.of(CliHarness.lease(7, "eu-1", 40, 80, 2)));
    CliHarness.FakeGateway failing = new CliHarness.FakeGateway() {
      @Override
      public long ledgerNowMillis() throws ClusterGateway.GatewayException {
        throw new ClusterGateway.GatewayException(dev.ration.wire.ErrorCode.UNAVAILABLE, true, 0, "cannot reach a:1", null);
      }
    };
    failing.script = h.gateway.script;
    CliHarness other = new CliHarness(failing);
    CliHarness.Run json = other.run("lease", "list", "--output", "json");
    assertEquals(0, json.exitCode(), json.toString());
    assertTrue(json.out().contains("\"expiresAtMillis\":11000,\"expiresAt\":null,"), json.out());
    assertTrue(json.err().startsWith("warning: times are in ledger milliseconds only"), json.err());
    CliHarness.Run table = other.run("lease", "list");
    assertTrue(table.out().contains("ledger 11000"), table.out());
  }
}
