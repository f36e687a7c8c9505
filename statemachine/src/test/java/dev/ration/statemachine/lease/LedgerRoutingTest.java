package dev.ration.statemachine.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.command.SlottedIds;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.replica.FamilyStore;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.replica.Replica;
import dev.ration.statemachine.store.RocksCoordinatorState;
import dev.ration.statemachine.ttl.TtlLedger;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The replica routes each command family to exactly one ledger, and refuses to start otherwise. */
class LedgerRoutingTest {
  private static final StateOptions OPTIONS = new StateOptions(1_000, 4, 10_000, 8, QuotaOptions.defaults());

  @Test
  void everyCommandFamilyHasExactlyOneLedgerOnANode() {
    Replica replica = new Replica(OPTIONS, new MemoryLedgerStore(), FamilyStore.EMPTY,
        RocksCoordinatorState.ledgers(OPTIONS));
    Set<Class<?>> applied = new HashSet<>();
    for (Ledger ledger : replica.ledgers()) {
      assertTrue(applied.add(ledger.commands()), "two ledgers apply " + ledger.commands());
    }
    for (Class<?> family : Command.class.getPermittedSubclasses()) {
      if (family != Tick.class && family != SlottedIds.class) {
        assertTrue(applied.contains(family), "no ledger applies " + family);
      }
    }
    assertEquals(Command.class.getPermittedSubclasses().length - 2, applied.size(),
        "every family but the replica's own two (Tick, SlottedIds)");
  }

  @Test
  void aFamilyWithoutALedgerStopsTheNodeAtStart() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> new Replica(OPTIONS, new MemoryLedgerStore(), FamilyStore.EMPTY,
            List.of(context -> new LeaseLedger(OPTIONS, context),
                context -> new TtlLedger(OPTIONS, context))));
    assertTrue(e.getMessage().contains("no ledger applies QuotaCommand"), e.getMessage());
  }

  @Test
  void twoLedgersForOneFamilyStopTheNodeAtStart() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> new Replica(OPTIONS, new MemoryLedgerStore(), FamilyStore.EMPTY,
            List.of(context -> new LeaseLedger(OPTIONS, context),
                context -> new LeaseLedger(OPTIONS, context))));
    assertTrue(e.getMessage().contains("applied by both lease and lease"), e.getMessage());
  }
}
