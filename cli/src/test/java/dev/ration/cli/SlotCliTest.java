package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import dev.ration.wire.Policy;
import dev.ration.wire.lease.SlotLease;
import dev.ration.wire.lease.SlotStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The slot commands against a scripted gateway: what they send, what they print, and the
 * usage errors that send nothing.
 */
class SlotCliTest {
  static final SlotStatus STATUS = new SlotStatus("acme", "db", 40, 3, 8, 8, 40, 12, 1, 0);
  static final SlotLease LEASE = new SlotLease(5, "acme", "db", "billing-1", 1, 4, 8, 8, 100,
      10_100, 11_100, 10_000);

  @Test
  void limitSetWithConcurrencySendsOneMutationWithTheCap() {
    CliHarness h = new CliHarness();
    h.gateway.script = r -> new Response.SlotLimitReply(Outcome.SUCCESS, "", 3, STATUS);
    CliHarness.Run run = h.run("limit", "set", "--tenant", "acme", "--resource", "db", "--rate", "0",
        "--burst", "0", "--policy", "fair-share", "--concurrency", "40", "--output", "json");
    assertEquals(0, run.exitCode(), run.toString());
    Request.SetLimitConcurrency sent =
        assertInstanceOf(Request.SetLimitConcurrency.class, h.gateway.requests.get(0));
    assertEquals(40, sent.concurrency());
    assertEquals(Policy.FAIR_SHARE, sent.limit().policy());
    assertTrue(run.out().contains("\"concurrency\":40"), run.out());
  }

  @Test
  void limitSetWithoutConcurrencyStaysASetLimit() {
    CliHarness h = new CliHarness();
    h.gateway.script = r -> new Response.SetLimitReply(Outcome.SUCCESS, "", 1,
        CliHarness.limit("acme", "db", 10, 10, 1));
    CliHarness.Run run = h.run("limit", "set", "--tenant", "acme", "--resource", "db", "--rate",
        "10", "--burst", "10");
    assertEquals(0, run.exitCode(), run.toString());
    assertInstanceOf(Request.SetLimit.class, h.gateway.requests.get(0));
  }

  @Test
  void badConcurrencyAndMixedLeaseOptionsSendNothing() {
    CliHarness h = new CliHarness();
    CliHarness.Run negative = h.run("limit", "set", "--tenant", "acme", "--resource", "db",
        "--rate", "0", "--burst", "0", "--concurrency", "-1");
    assertEquals(1, negative.exitCode(), negative.toString());
    CliHarness.Run both = h.run("lease", "acquire", "--tenant", "acme", "--resource", "db",
        "--holder", "h", "--slots", "2", "--rate", "1", "--burst", "1");
    assertEquals(1, both.exitCode(), both.toString());
    CliHarness.Run neither = h.run("lease", "acquire", "--tenant", "acme", "--resource", "db",
        "--holder", "h");
    assertEquals(1, neither.exitCode(), neither.toString());
    assertEquals(List.of(), h.gateway.requests);
  }

  @Test
  void leaseAcquireSlotsAndLimitSlots() {
    CliHarness h = new CliHarness();
    h.gateway.script = r -> r instanceof Request.AcquireSlots
        ? new Response.SlotLeaseReply(Outcome.SUCCESS, "", 0, 4, LEASE)
        : new Response.SlotsReply(true, STATUS, List.of(LEASE));
    CliHarness.Run acquired = h.run("lease", "acquire", "--tenant", "acme", "--resource", "db",
        "--holder", "billing-1", "--slots", "8", "--output", "json");
    assertEquals(0, acquired.exitCode(), acquired.toString());
    assertEquals(8, ((Request.AcquireSlots) h.gateway.requests.get(0)).demandSlots());
    assertTrue(acquired.out().contains("\"slotShare\":8"), acquired.out());
    CliHarness.Run shown = h.run("limit", "slots", "--tenant", "acme", "--resource", "db",
        "--output", "json");
    assertEquals(0, shown.exitCode(), shown.toString());
    assertTrue(shown.out().contains("\"countedSlots\":8"), shown.out());
    assertTrue(shown.out().contains("\"holder\":\"billing-1\""), shown.out());

    h.gateway.script = r -> new Response.SlotsReply(false, null, List.of());
    CliHarness.Run missing = h.run("limit", "slots", "--tenant", "acme", "--resource", "nope");
    assertEquals(2, missing.exitCode(), missing.toString());
  }
}
