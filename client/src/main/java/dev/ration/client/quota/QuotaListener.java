package dev.ration.client.quota;

import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.Optional;

/**
 * Told about every call of a {@link QuotaClient} and every refused reservation, for metrics and
 * logs ({@code QuotaMetrics} is one). Called on the thread that completes the call (often the
 * client's event loop): keep it short and never block.
 */
public interface QuotaListener {
  /**
   * A call finished.
   *
   * @param operation the call
   * @param outcome the domain outcome of its answer ({@link Outcome#SUCCESS} for reads); empty
   *     when it failed without an answer (a {@code RationException})
   * @param latency from the call to its completion, retries included
   */
  default void onCall(QuotaOperation operation, Optional<Outcome> outcome, Duration latency) {}

  /**
   * The coordinator refused a reservation.
   *
   * @param refusal the refusal: its outcome is the reason, with the refusing level and resource
   */
  default void onReserveRefused(ReserveResult refusal) {}
}
