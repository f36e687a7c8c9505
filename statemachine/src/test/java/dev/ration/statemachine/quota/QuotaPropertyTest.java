package dev.ration.statemachine.quota;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.quota.UsageEvent;

import dev.ration.wire.EventType;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.testkit.Gen;
import dev.ration.testkit.Property;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of reserve / complete / cancel / expire / limit changes / duplicate
 * requests over three levels ({@code o}, {@code o/a}, {@code o/a/x}, and {@code o/b} which only
 * the org level limits), against a tiny reference model. After every step: the decision equals
 * the model's, every level's held amount equals the model's and never exceeds its capacity
 * unless a later limit decrease put it there (Q1), a repeated request id gets its first decision
 * byte for byte, and the replica's full verify() passes. At the end every settled reservation has
 * exactly one usage event and every outstanding one none. A failure prints its seed, the command
 * that replays it, and the failing sequence of ops.
 */
class QuotaPropertyTest {
  static final List<String> SCOPES = List.of("o", "o/a", "o/a/x", "o/b");
  static final List<String> LEVELS = List.of("o", "o/a", "o/a/x");
  static final long TTL = 20_000;
  /** How long a request's first decision answers its retries (the harness runs the defaults). */
  static final long RETENTION = StateOptions.defaults().idempotencyRetentionMillis();

  sealed interface Op {}

  record DoReserve(int scope, long amount) implements Op {}

  record DoComplete(int pick, long actualPercent) implements Op {}

  record DoCancel(int pick) implements Op {}

  record DoAdvance(long millis) implements Op {}

  record DoSetLimit(int level, long limit, long overageMax) implements Op {}

  record DoDuplicate(int pick) implements Op {}

  /** 5–40 ops, reserves six times as often as a limit change and the rest twice as often. */
  static final Gen<List<Op>> OPS = Gen.<Op>frequency(
          Gen.weight(6, r -> new DoReserve(r.between(0, 3), r.between(1L, 4L))),
          Gen.weight(2, r -> new DoComplete(r.between(0, 50), r.between(0L, 100L))),
          Gen.weight(2, r -> new DoCancel(r.between(0, 50))),
          Gen.weight(2, r -> new DoAdvance(r.between(0L, 15_000L))),
          Gen.weight(1, r -> new DoSetLimit(r.between(0, 2), r.between(0L, 12L), r.oneOf(0L, 0L, 3L))),
          Gen.weight(2, r -> new DoDuplicate(r.between(0, 50))))
      .list(5, 40);

  /** The reference: per level limit/capacity and held; outstanding reservations. */
  static final class Model {
    final Map<String, long[]> spec = new HashMap<>(); // level -> {limit, capacity}
    final Map<String, Long> held = new HashMap<>();
    final TreeMap<Long, Object[]> outstanding = new TreeMap<>(); // id -> {scope, amount, expiresAt}
    final List<Long> settled = new ArrayList<>();

    List<String> levels(String scope) {
      return Scope.levels(scope).stream().filter(spec::containsKey).toList();
    }

    /** The level that refuses, or null if every level admits. */
    String refusing(String scope, long amount) {
      for (String level : levels(scope)) {
        if (held.getOrDefault(level, 0L) + amount > spec.get(level)[1]) {
          return level;
        }
      }
      return null;
    }

    void release(long id) {
      Object[] r = outstanding.remove(id);
      for (String level : levels((String) r[0])) {
        held.merge(level, -(Long) r[1], Long::sum);
      }
      settled.add(id);
    }
  }

  @Test
  void quotaMatchesTheReferenceAtEveryLevel() {
    Property.forAll(40, OPS, QuotaPropertyTest::run);
  }

  private static void run(List<Op> ops) throws IOException {
    Path dir = Files.createTempDirectory("quota-prop");
    try (QuotaHarness h = new QuotaHarness(dir)) {
      Model m = new Model();
      for (String level : LEVELS) {
        setLimit(h, m, level, 6, 0);
      }
      List<Object[]> sent = new ArrayList<>(); // {key, command, first result, sent at}
      for (Op op : ops) {
        if (op instanceof DoReserve r) {
          String scope = SCOPES.get(r.scope());
          RequestKey key = h.freshKey();
          Reserve cmd = new Reserve(scope, List.of(new Reserve.Item("r", r.amount())), 0, TTL);
          String refusing = m.refusing(scope, r.amount());
          QuotaResult result = h.apply(key, cmd);
          sent.add(new Object[] {key, cmd, result, h.nowMillis});
          if (refusing == null) {
            QuotaResult.Reserved ok = QuotaHarness.reserved(result);
            m.outstanding.put(ok.reservationId(),
                new Object[] {scope, r.amount(), ok.expiresAtMillis()});
            for (String level : m.levels(scope)) {
              m.held.merge(level, r.amount(), Long::sum);
              assertTrue(m.held.get(level) <= m.spec.get(level)[1],
                  "Q1 admission took " + level + " past its capacity");
            }
          } else {
            QuotaResult.QuotaRejected no = QuotaHarness.rejected(result);
            assertEquals(Outcome.LIMIT_EXHAUSTED, no.outcome());
            assertEquals(refusing, no.levelScope());
          }
        } else if (op instanceof DoComplete c && !m.outstanding.isEmpty()) {
          long id = pick(m.outstanding.keySet().stream().toList(), c.pick());
          long amount = (Long) m.outstanding.get(id)[1];
          long actual = amount * c.actualPercent() / 100;
          RequestKey key = h.freshKey();
          Command cmd = new CompleteReservation(id, List.of(actual));
          QuotaResult result = h.apply(key, cmd);
          sent.add(new Object[] {key, cmd, result, h.nowMillis});
          assertEquals(EventType.COMPLETED, ((QuotaResult.ReservationSettled) result).how());
          m.release(id);
        } else if (op instanceof DoCancel c && !m.settled.isEmpty() && c.pick() % 3 == 0) {
          long id = pick(m.settled, c.pick()); // cancelling a settled one changes nothing
          QuotaResult result = h.apply(new CancelReservation(id));
          assertTrue(((QuotaResult.ReservationSettled) result).alreadySettled());
        } else if (op instanceof DoCancel c && !m.outstanding.isEmpty()) {
          long id = pick(m.outstanding.keySet().stream().toList(), c.pick());
          QuotaResult result = h.apply(new CancelReservation(id));
          assertEquals(EventType.CANCELLED, ((QuotaResult.ReservationSettled) result).how());
          m.release(id);
        } else if (op instanceof DoAdvance a) {
          h.nowMillis += a.millis();
          h.tick();
          for (Long id : new ArrayList<>(m.outstanding.keySet())) {
            if ((Long) m.outstanding.get(id)[2] <= h.nowMillis) {
              m.release(id);
            }
          }
        } else if (op instanceof DoSetLimit s) {
          setLimit(h, m, LEVELS.get(s.level()), s.limit(), s.overageMax());
        } else if (op instanceof DoDuplicate d && !sent.isEmpty()) {
          // A retry gets the first decision while the request's idempotency record answers
          // (I9: until its time plus the retention); after that the key runs anew, which this
          // model does not follow, so only requests still answered are retried.
          List<Object[]> answered =
              sent.stream().filter(s -> h.nowMillis < (Long) s[3] + RETENTION).toList();
          if (!answered.isEmpty()) {
            Object[] first = answered.get(d.pick() % answered.size());
            assertEquals(first[2], h.apply((RequestKey) first[0], (Command) first[1]),
                "a request id has exactly one decision");
          }
        }
        for (String level : LEVELS) {
          assertEquals((long) m.held.getOrDefault(level, 0L), h.usage(level, "r").held(),
              "held at " + level + " after " + op);
        }
      }
      // Each settled reservation emitted exactly one event; outstanding ones none.
      Map<Long, Long> eventsPer = new HashMap<>();
      for (UsageEvent e : h.log()) {
        if (e.eventId().startsWith("res:")) {
          eventsPer.merge(e.reservationId(), 1L, Long::sum);
        }
      }
      for (long id : m.settled) {
        assertEquals(1L, eventsPer.getOrDefault(id, 0L), "events of settled reservation " + id);
      }
      for (long id : m.outstanding.keySet()) {
        assertEquals(0L, eventsPer.getOrDefault(id, 0L), "events of outstanding reservation " + id);
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void setLimit(QuotaHarness h, Model m, String level, long limit, long overageMax) {
    var overage = overageMax > 0 ? Overage.ALLOW : Overage.REJECT;
    h.apply(new SetQuota(new QuotaSpec(level, "r", QuotaKind.CONCURRENT, Window.NONE, limit, "u", 0, overage,
        overageMax, 0, 0, "prop", 0, "random change")));
    m.spec.put(level, new long[] {limit, limit + overageMax});
  }

  private static long pick(List<Long> ids, int pick) {
    return ids.get(pick % ids.size());
  }
}
