package dev.ration.client;

import dev.ration.wire.Outcome;

/**
 * The ledger's answer to a lease return.
 *
 * @param outcome {@link Outcome#SUCCESS} or why the return was refused
 * @param message the server's explanation of a refusal; empty on success
 * @param leaseId the lease returned
 * @param credited unused tokens credited to the returned-token pool
 * @param alreadyGone whether the lease had already expired or been returned
 */
public record ReturnResult(Outcome outcome, String message, long leaseId, long credited,
    boolean alreadyGone) {}
