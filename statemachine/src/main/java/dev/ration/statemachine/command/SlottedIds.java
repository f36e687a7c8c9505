package dev.ration.statemachine.command;

import dev.ration.wire.shape.Shape;

/**
 * From this entry on, the ledgers mint ids that carry their tenant's slot
 * ({@link dev.ration.wire.placement.SlotIds}); before it they minted plain counters. Proposed by
 * every new leader right after its NewEpoch (applying it again changes nothing), so a cluster's
 * ids carry slots from its first leadership on, while entries an earlier release wrote replay
 * exactly as they were applied: the switch is a log entry, not a property of the build, and a
 * node of an earlier release stops at it instead of minting other ids than its peers.
 */
public record SlottedIds() implements Command {
  public static final int CODE = 12;

  /** Its fields in the log, in this order after the command code: none. */
  public static final Shape<SlottedIds> SHAPE = Shape.of(SlottedIds.class);

  @Override
  public Touches touches() {
    return Touches.cluster();
  }

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public boolean fromClient() {
    return false;
  }

  /** The replica's own family, like {@link Tick}: it tells every ledger. */
  @Override
  public Class<SlottedIds> family() {
    return SlottedIds.class;
  }
}
