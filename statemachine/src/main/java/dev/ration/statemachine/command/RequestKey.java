package dev.ration.statemachine.command;

import dev.ration.statemachine.command.LeaseCommand.NewEpoch;

/**
 * The idempotency key of a client request: the client's 128-bit id and its request sequence.
 * A retried request carries the same key and gets the first answer back.
 * {@link #NONE} marks leader-internal commands (NewEpoch, Tick), which are never deduplicated.
 */
public record RequestKey(long clientHigh, long clientLow, long sequence) {
  public static final RequestKey NONE = new RequestKey(0, 0, 0);

  public boolean isNone() {
    return clientHigh == 0 && clientLow == 0 && sequence == 0;
  }
}
