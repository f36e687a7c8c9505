package dev.ration.statemachine.command;

import dev.ration.wire.shape.Shape;

/**
 * From this entry on, the ledgers mint ids that carry their tenant's slot
 * ({@link dev.ration.wire.placement.SlotIds}); before it they minted plain counters (applying it
 * again changes nothing). Entries an earlier release wrote replay exactly as they were applied:
 * the switch is a log entry, not a property of the build, and a node of an earlier release
 * stops at it instead of minting other ids than its peers. Nothing proposes it yet: it is to be
 * proposed once, before a cluster's first move, when every node runs a release with groups
 * (a leader proposing it with every epoch would stop the old nodes of a rolling upgrade).
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
