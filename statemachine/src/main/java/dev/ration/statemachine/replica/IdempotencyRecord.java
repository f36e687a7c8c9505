package dev.ration.statemachine.replica;

/**
 * The first answer to a request key (encoded by ResultCodec, so a retry gets it back byte for
 * byte), answered while ledger time is before {@code expiresAtMillis}; stored in the
 * {@link IdempotencyGeneration} starting at {@code generation}. The array is never mutated.
 */
public record IdempotencyRecord(long generation, long expiresAtMillis, byte[] encodedResult) {
  /** Whether a retry at {@code nowMillis} still gets this answer. */
  public boolean answersAt(long nowMillis) {
    return nowMillis < expiresAtMillis;
  }
}
