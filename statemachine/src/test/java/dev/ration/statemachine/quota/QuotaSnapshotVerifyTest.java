package dev.ration.statemachine.quota;

import static dev.ration.statemachine.quota.QuotaHarness.concurrent;
import static dev.ration.statemachine.quota.QuotaHarness.reserve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.lease.MemoryLedgerStore;
import dev.ration.statemachine.replica.Changes;
import dev.ration.statemachine.replica.FamilyStore;
import dev.ration.statemachine.replica.Replica;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a snapshot checks of the quota ledger: {@code verifyAtSnapshot()} reads no stored record
 * (every quota record is stored, and a snapshot holds the apply lock), so a broken stored record
 * is found by {@code verify()} at open, not at the snapshot; what the ledger holds in memory is
 * checked at both. The replica runs on stores in plain collections that count every read.
 */
class QuotaSnapshotVerifyTest {
  private static final StateOptions OPTIONS = StateOptions.defaults();

  private final CountingFamilies families = new CountingFamilies();
  private final MemoryLedgerStore kernel = new MemoryLedgerStore();
  private Replica replica;
  private long index = 1;
  private long sequence = 1;
  private long now = 1_000;

  @BeforeEach
  void open() {
    replica = new Replica(OPTIONS, kernel, families, RocksCoordinatorState.ledgers(OPTIONS));
    apply(concurrent("acme", "jobs", 1_000));
    for (int i = 0; i < 20; i++) {
      apply(reserve("acme/t" + (i % 3), "jobs", 1));
      apply(new IngestUsage("ev-" + i, now, "acme/t" + (i % 3), "jobs", 2, "jobs", 0));
      now += 100;
    }
    apply(new Tick(1_000));
  }

  @Test
  void theSnapshotCheckReadsNoStoredRecordWhileTheFullCheckReadsThemAll() {
    QuotaLedger quota = replica.ledger(QuotaLedger.class);
    families.reads = 0;
    quota.verifyAtSnapshot();
    assertEquals(0, families.reads, "quota verifyAtSnapshot read stored records");
    replica.verifyAtSnapshot();
    assertEquals(0, families.reads, "the replica's verifyAtSnapshot read stored records");
    quota.verify();
    assertTrue(families.reads >= 20 + 20, "verify() scans 20 reservations and 20 usage records, read "
        + families.reads);
  }

  @Test
  void aBrokenStoredRecordIsFoundByTheFullCheckNotByTheSnapshotCheck() {
    QuotaLedger quota = replica.ledger(QuotaLedger.class);
    quota.verify();
    // One outstanding reservation's record vanishes from the store (a damaged file, say).
    TreeMap<byte[], byte[]> q = families.family(QuotaRecords.Q);
    byte[] reservationKey = q.keySet().stream()
        .filter(k -> k[0] == QuotaKeys.RESERVATION).findFirst().orElseThrow();
    q.remove(reservationKey);
    quota.verifyAtSnapshot();
    InvariantViolation v = assertThrows(InvariantViolation.class, quota::verify);
    assertTrue(v.getMessage().startsWith("Q2 counter says 20 reservations, store holds 19"),
        v.getMessage());
  }

  @Test
  void theSnapshotCheckStillCatchesBrokenCountersInMemory() {
    QuotaLedger quota = replica.ledger(QuotaLedger.class);
    // Counters whose outstanding reservations exceed every id ever minted, loaded as at open.
    families.family(QuotaRecords.Q).put(QuotaKeys.META, QuotaFormat.stored(out -> out
        .i64(1).i64(3).i64(0).i64(0).i64(0).i64(5)));
    quota.load();
    InvariantViolation v = assertThrows(InvariantViolation.class, quota::verifyAtSnapshot);
    assertTrue(v.getMessage().startsWith("Q2 counters: 5 outstanding reservations, next reservation id 3"),
        v.getMessage());
    assertThrows(InvariantViolation.class, quota::verify);
  }

  private void apply(Command command) {
    RequestKey key = command instanceof Tick ? RequestKey.NONE : new RequestKey(7, 7, sequence++);
    replica.apply(1, index++, Batch.of(now, List.of(new Proposal(key, command))));
    Changes changes = replica.takeChanges();
    families.commit(changes);
    kernel.commit(changes);
    replica.verify();
  }

  /** The ledgers' column families in sorted maps; every get and every scan is one read. */
  static final class CountingFamilies implements FamilyStore {
    private final Map<String, TreeMap<byte[], byte[]>> families = new HashMap<>();
    long reads;

    TreeMap<byte[], byte[]> family(String name) {
      return families.computeIfAbsent(name, f -> new TreeMap<>(Arrays::compareUnsigned));
    }

    void commit(Changes changes) {
      changes.records.forEach((name, writes) -> writes.forEach((k, v) -> {
        if (v == Changes.DELETED) {
          family(name).remove(k);
        } else {
          family(name).put(k, v);
        }
      }));
    }

    @Override
    public Optional<byte[]> get(String family, byte[] key) {
      reads++;
      return Optional.ofNullable(family(family).get(key)).map(byte[]::clone);
    }

    @Override
    public void scan(String family, byte[] fromKey, Visitor visitor) {
      reads++;
      for (Map.Entry<byte[], byte[]> e : family(family).tailMap(fromKey, true).entrySet()) {
        reads++;
        if (!visitor.visit(e.getKey().clone(), e.getValue().clone())) {
          return;
        }
      }
    }
  }
}
