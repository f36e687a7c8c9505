package dev.ration.statemachine.replica;

import dev.ration.statemachine.command.Fingerprint;
import java.util.Optional;

/**
 * The first answer to a request key (encoded by ResultCodec, so a retry gets it back byte for
 * byte), answered while ledger time is before {@code expiresAtMillis}; stored in the
 * {@link IdempotencyGeneration} starting at {@code generation}. The array is never mutated.
 *
 * <p>{@code fingerprint} is the request that answer belongs to (docs/INVARIANTS.md I9): a retry
 * is answered only if it fingerprints the same. It is empty only for records written before
 * fingerprints were stored (idempotency value format 2), which are answered as before and are
 * all gone one retention after the upgrade.
 *
 * <p>{@code slot} is the slot its request acted in ({@link #NO_SLOT} if none or several), so the
 * records of a slot can leave with it when it moves to another group: a retry must get the
 * first answer from whichever group serves the slot.
 */
public record IdempotencyRecord(long generation, long expiresAtMillis,
    Optional<Fingerprint> fingerprint, int slot, byte[] encodedResult) {
  /** The slot of a record whose request acted in no slot, in several, or was written before
   *  records carried one. */
  public static final int NO_SLOT = -1;

  /** Whether a retry at {@code nowMillis} still gets this answer. */
  public boolean answersAt(long nowMillis) {
    return nowMillis < expiresAtMillis;
  }

  /**
   * Whether this record answers a request fingerprinted {@code request}: it does unless both
   * fingerprints are known and differ.
   */
  public boolean answers(Fingerprint request) {
    return fingerprint.isEmpty() || fingerprint.get().matches(request);
  }
}
