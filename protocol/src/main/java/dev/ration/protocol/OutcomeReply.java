package dev.ration.protocol;

import dev.ration.wire.Outcome;

/**
 * A reply that carries a domain outcome (a write's SUCCESS or refusal). Reads and lists have
 * none. Every such reply of every family implements this one interface, so the server's metrics
 * and the client's error handling see the outcome without knowing the reply's type.
 */
public interface OutcomeReply {
  Outcome outcome();
}
