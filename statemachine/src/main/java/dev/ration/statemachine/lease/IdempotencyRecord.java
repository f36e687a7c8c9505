package dev.ration.statemachine.lease;

/**
 * The first answer to a request key, kept (encoded by ResultCodec, so a retry gets it back byte
 * for byte) until {@code expiresAtMillis} in ledger time. The array is never mutated.
 */
public record IdempotencyRecord(long expiresAtMillis, byte[] encodedResult) {}
