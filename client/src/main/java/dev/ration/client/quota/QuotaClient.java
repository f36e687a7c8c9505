package dev.ration.client.quota;

import dev.ration.client.protocol.QuotaRequest;
import dev.ration.client.protocol.QuotaResponse;
import dev.ration.client.protocol.Request;
import dev.ration.client.protocol.Response;
import dev.ration.client.transport.Transport;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.AuditRecord;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Quotas, reservations and usage through a {@link Transport}, in production a {@code
 * RationClient} (its connection, leader following, deadlines and retries: every mutation keeps
 * its request id across retries, so the coordinator's idempotency gives a retried reserve its
 * first decision). Synchronous methods join the asynchronous ones. Thread-safe, like the client.
 */
public final class QuotaClient {
  private final Transport client;

  public QuotaClient(Transport client) {
    this.client = client;
  }

  // ---------------------------------------------------------------- reservations

  /**
   * checkAndReserve, value form: the reply says SUCCESS (with the reservation) or the refusal
   * (refusing level, retry-after, current version).
   */
  public CompletableFuture<QuotaResponse.ReserveReply> tryReserveAsync(
      String scope, List<QuotaRequest.Item> items, long configVersion, Duration ttl) {
    return call(new QuotaRequest.Reserve(scope, items, configVersion, ttl.toMillis()),
        QuotaResponse.ReserveReply.class);
  }

  public QuotaResponse.ReserveReply tryReserve(
      String scope, List<QuotaRequest.Item> items, long configVersion, Duration ttl) {
    return join(tryReserveAsync(scope, items, configVersion, ttl));
  }

  /**
   * checkAndReserve under the application's {@code idempotencyKey} (non-empty, scoped to
   * {@code scope}), value form. The coordinator keeps the decision under the key for the
   * reservation's lifetime plus the settled retention (1 h by default): a retry with the same
   * key and arguments at any time in that window, from this client or a restarted process,
   * returns the first decision, reservation id included. The same key with other arguments is
   * refused INVALID_ARGUMENT. A refused reserve is not kept under the key (it changed nothing),
   * and after the window a retry is a new reservation (docs/QUOTAS.md, "Idempotency keys").
   */
  public CompletableFuture<QuotaResponse.ReserveReply> tryReserveAsync(String scope,
      List<QuotaRequest.Item> items, long configVersion, Duration ttl, String idempotencyKey) {
    if (idempotencyKey == null || idempotencyKey.isEmpty()) {
      throw new IllegalArgumentException("idempotencyKey is empty; use the overload without one");
    }
    return call(new QuotaRequest.ReserveKeyed(idempotencyKey, scope, items, configVersion,
        ttl.toMillis()), QuotaResponse.ReserveReply.class);
  }

  public QuotaResponse.ReserveReply tryReserve(String scope, List<QuotaRequest.Item> items,
      long configVersion, Duration ttl, String idempotencyKey) {
    return join(tryReserveAsync(scope, items, configVersion, ttl, idempotencyKey));
  }

  /** Keyed checkAndReserve for try-with-resources (see the keyed {@code tryReserveAsync}). */
  public CompletableFuture<Reservation> reserveAsync(String scope, List<QuotaRequest.Item> items,
      long configVersion, Duration ttl, String idempotencyKey) {
    return tryReserveAsync(scope, items, configVersion, ttl, idempotencyKey).thenApply(r -> {
      if (r.outcome() != Outcome.SUCCESS) {
        throw new QuotaRefusedException(r);
      }
      return new Reservation(this, r);
    });
  }

  public Reservation reserve(String scope, List<QuotaRequest.Item> items, long configVersion,
      Duration ttl, String idempotencyKey) {
    return join(reserveAsync(scope, items, configVersion, ttl, idempotencyKey));
  }

  /** One resource, any config version, under the application's idempotency key. */
  public Reservation reserve(String scope, String resource, long amount, Duration ttl,
      String idempotencyKey) {
    return reserve(scope, List.of(new QuotaRequest.Item(resource, amount)), 0, ttl,
        idempotencyKey);
  }

  /** checkAndReserve for try-with-resources; a refusal fails with {@link QuotaRefusedException}. */
  public CompletableFuture<Reservation> reserveAsync(
      String scope, List<QuotaRequest.Item> items, long configVersion, Duration ttl) {
    return tryReserveAsync(scope, items, configVersion, ttl).thenApply(r -> {
      if (r.outcome() != Outcome.SUCCESS) {
        throw new QuotaRefusedException(r);
      }
      return new Reservation(this, r);
    });
  }

  public Reservation reserve(
      String scope, List<QuotaRequest.Item> items, long configVersion, Duration ttl) {
    return join(reserveAsync(scope, items, configVersion, ttl));
  }

  /** One resource, any config version. */
  public Reservation reserve(String scope, String resource, long amount, Duration ttl) {
    return reserve(scope, List.of(new QuotaRequest.Item(resource, amount)), 0, ttl);
  }

  public CompletableFuture<QuotaResponse.SettleReply> completeAsync(long reservationId, List<Long> actuals) {
    return call(new QuotaRequest.CompleteReservation(reservationId, actuals),
        QuotaResponse.SettleReply.class);
  }

  public QuotaResponse.SettleReply complete(long reservationId, List<Long> actuals) {
    return join(completeAsync(reservationId, actuals));
  }

  public CompletableFuture<QuotaResponse.SettleReply> cancelAsync(long reservationId) {
    return call(new QuotaRequest.CancelReservation(reservationId), QuotaResponse.SettleReply.class);
  }

  public QuotaResponse.SettleReply cancel(long reservationId) {
    return join(cancelAsync(reservationId));
  }

  public List<QuotaResponse.ReservationInfo> listReservations(String scopePrefix) {
    return join(call(new QuotaRequest.ListReservations(scopePrefix),
        QuotaResponse.ReservationList.class)).reservations();
  }

  // ---------------------------------------------------------------- catalog

  public CompletableFuture<QuotaResponse.QuotaSetReply> setQuotaAsync(QuotaRequest.SetQuota request) {
    return call(request, QuotaResponse.QuotaSetReply.class);
  }

  public QuotaResponse.QuotaSetReply setQuota(QuotaRequest.SetQuota request) {
    return join(setQuotaAsync(request));
  }

  public Optional<QuotaResponse.QuotaInfo> getQuota(String scope, String resource) {
    return join(call(new QuotaRequest.GetQuota(scope, resource, false),
        QuotaResponse.QuotaFound.class)).quota();
  }

  public List<QuotaResponse.QuotaInfo> listQuotas(String scopePrefix) {
    return join(call(new QuotaRequest.ListQuotas(scopePrefix, false),
        QuotaResponse.QuotaList.class)).quotas();
  }

  public List<QuotaResponse.QuotaInfo> history(String scope, String resource) {
    return join(call(new QuotaRequest.QuotaHistory(scope, resource),
        QuotaResponse.QuotaList.class)).quotas();
  }

  public List<AuditRecord> audit(long fromSequence, int max) {
    return join(call(new QuotaRequest.ReadAudit(fromSequence, max),
        QuotaResponse.AuditList.class)).records();
  }

  // ---------------------------------------------------------------- usage

  public CompletableFuture<QuotaResponse.IngestReply> ingestAsync(QuotaRequest.IngestUsage event) {
    return call(event, QuotaResponse.IngestReply.class);
  }

  public QuotaResponse.IngestReply ingest(QuotaRequest.IngestUsage event) {
    return join(ingestAsync(event));
  }

  /** Records after {@code consumer}'s cursor ({@code fromSequence} 0) or from a sequence. */
  public QuotaResponse.UsageBatch readUsage(String consumer, long fromSequence, int max) {
    return join(call(new QuotaRequest.ReadUsage(consumer, fromSequence, max),
        QuotaResponse.UsageBatch.class));
  }

  public QuotaResponse.AckReply ack(String consumer, long sequence) {
    return join(call(new QuotaRequest.AckUsage(consumer, sequence), QuotaResponse.AckReply.class));
  }

  public QuotaResponse.AggregateReply aggregate(String scope, String resource, long fromMillis, long toMillis) {
    return join(call(new QuotaRequest.AggregateUsage(scope, resource, fromMillis, toMillis),
        QuotaResponse.AggregateReply.class));
  }

  public QuotaResponse.ReconcileReply reconcile(String scope, String resource, long fromMillis,
      long toMillis, boolean repair, String actor, String reason) {
    return join(call(new QuotaRequest.Reconcile(scope, resource, fromMillis, toMillis, repair,
        actor, reason), QuotaResponse.ReconcileReply.class));
  }

  // ---------------------------------------------------------------- plumbing

  private <T extends QuotaResponse> CompletableFuture<T> call(QuotaRequest request, Class<T> type) {
    return client.call(new Request.Quota(request)).thenApply(r -> {
      if (r instanceof Response.Quota q && type.isInstance(q.response())) {
        return type.cast(q.response());
      }
      throw new IllegalStateException("expected " + type.getSimpleName() + " but got " + r);
    });
  }

  static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw e;
    }
  }
}
