package dev.ration.client.quota;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A granted reservation, for try-with-resources:
 *
 * <pre>{@code
 * try (Reservation r = quotas.reserve("acme/shop/web", "jobs", 5, Duration.ofMinutes(1))) {
 *   int used = runJobs();
 *   r.actual(used);          // set last: close() completes with it
 * }                          // an exception before actual(...) makes close() cancel
 * }</pre>
 *
 * <p>{@link #close()} completes with the recorded actual amounts, or cancels if none were
 * recorded (the body did not reach {@link #actual}), unless {@link #complete} or
 * {@link #cancel} already settled it. Settlement is idempotent on the coordinator (a repeated
 * complete or cancel answers with the first settlement), and travels under a request id that
 * the client's retries keep. If the process dies instead, the reservation expires at
 * {@link #expiresAt()} (ledger time) and the coordinator emits its usage event.
 *
 * <p>Thread: not thread-safe; one owner, like the try block that holds it.
 */
public final class Reservation implements AutoCloseable {
  private final QuotaClient client;
  private final ReserveResult reply;
  private List<Long> actuals = List.of();
  private Settlement settlement;

  Reservation(QuotaClient client, ReserveResult reply) {
    this.client = client;
    this.reply = reply;
  }

  /**
   * The reservation's id, for completing or cancelling it elsewhere.
   *
   * @return the id
   */
  public long reservationId() {
    return reply.reservationId();
  }

  /**
   * When the reservation expires unless settled (ledger time).
   *
   * @return the expiry
   */
  public LedgerTime expiresAt() {
    return reply.expiresAt();
  }

  /**
   * The catalog version the reservation was judged against.
   *
   * @return the version
   */
  public long configVersion() {
    return reply.configVersion();
  }

  /**
   * What was reserved, in the request's item order.
   *
   * @return the items
   */
  public List<ReservedItem> items() {
    return reply.items();
  }

  /**
   * Records the actual usage of a single-resource reservation; close() completes with it.
   *
   * @param amount the amount actually used
   * @return this reservation
   */
  public Reservation actual(long amount) {
    return actuals(List.of(amount));
  }

  /**
   * Records the actual usage per item, in the reservation's item order.
   *
   * @param amounts the amounts actually used, one per item
   * @return this reservation
   * @throws IllegalArgumentException if there is not one amount per item
   */
  public Reservation actuals(List<Long> amounts) {
    if (amounts.size() != reply.items().size()) {
      throw new IllegalArgumentException("reservation " + reservationId() + " has "
          + reply.items().size() + " items, got " + amounts.size() + " actuals");
    }
    this.actuals = List.copyOf(amounts);
    return this;
  }

  /**
   * Completes now with {@code amount} (single resource).
   *
   * @param amount the amount actually used
   * @return the settlement
   * @throws IllegalStateException if the coordinator refused the settlement
   */
  public Settlement complete(long amount) {
    actual(amount);
    return settle(client.completeAsync(reservationId(), actuals));
  }

  /**
   * Cancels now: what the reservation held is released and nothing is counted.
   *
   * @return the settlement
   * @throws IllegalStateException if the coordinator refused the settlement
   */
  public Settlement cancel() {
    return settle(client.cancelAsync(reservationId()));
  }

  /**
   * The settlement, once this object settled the reservation.
   *
   * @return the settlement, or empty while unsettled
   */
  public java.util.Optional<Settlement> settlement() {
    return java.util.Optional.ofNullable(settlement);
  }

  /**
   * Whether this object has settled the reservation.
   *
   * @return true once completed or cancelled through it
   */
  public boolean settled() {
    return settlement != null;
  }

  @Override
  public void close() {
    if (settlement != null) {
      return;
    }
    if (actuals.isEmpty()) {
      cancel();
    } else {
      settle(client.completeAsync(reservationId(), actuals));
    }
  }

  private Settlement settle(CompletableFuture<Settlement> f) {
    Settlement r = QuotaClient.join(f);
    if (r.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("settling reservation " + reservationId() + ": "
          + r.outcome() + " " + r.message());
    }
    settlement = r;
    return r;
  }
}
