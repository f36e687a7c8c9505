package dev.ration.client.quota;

import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.client.quota.internal.QuotaAccess;
import dev.ration.client.internal.WrappedCalls;
import dev.ration.client.time.LedgerTime;
import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Quotas and reservations, from {@code RationClient.quotas()}: every call goes through the
 * client (its connection, leader following, deadlines and retries: every mutation keeps
 * its request id across retries, so the coordinator's idempotency gives a retried reserve its
 * first decision). Synchronous methods join the asynchronous ones. Thread-safe, like the client.
 */
public final class QuotaClient {
  static {
    QuotaAccess.install(QuotaClient::new);
  }

  private final List<QuotaListener> listeners = new CopyOnWriteArrayList<>();
  private final WrappedCalls<QuotaRequest, QuotaResponse, QuotaOperation, QuotaListener> calls;

  /** Report frames of this client in flight before reports wait for company. */
  private static final int REPORT_FRAMES_IN_FLIGHT = 2;

  private final dev.ration.client.quota.internal.ReportBatcher reports =
      new dev.ration.client.quota.internal.ReportBatcher(this::sendReports, REPORT_FRAMES_IN_FLIGHT);

  private final Transport transport;

  private QuotaClient(Transport client, MonotonicClock clock) {
    this.transport = client;
    this.calls = new WrappedCalls<>(client, clock, Request.Quota::new,
        r -> r instanceof Response.Quota q ? q.response() : null, listeners, QuotaListener::onCall);
  }

  /**
   * Tells {@code listener} about every later call and refused reservation of this client.
   *
   * @param listener the listener
   */
  public void addListener(QuotaListener listener) {
    listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Stops telling {@code listener}.
   *
   * @param listener a listener added before
   * @return whether it was registered
   */
  public boolean removeListener(QuotaListener listener) {
    return listeners.remove(listener);
  }

  // ---------------------------------------------------------------- reservations

  /**
   * checkAndReserve, value form: SUCCESS with the reservation, or the refusal (refusing level,
   * retry-after, current version).
   *
   * @param scope the scope reserved in; every level up to the root is checked
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @return the reservation or the refusal
   */
  public CompletableFuture<ReserveResult> tryReserveAsync(
      String scope, List<Item> items, long configVersion, Duration ttl) {
    return call(QuotaOperation.RESERVE, new QuotaRequest.Reserve(scope, wire(items), configVersion,
        ttl.toMillis()), QuotaResponse.ReserveReply.class).thenApply(this::result);
  }

  /**
   * Up to 1,000 reservations in one request and one Raft entry (the batched path for many small
   * reservations, such as storage allocations): each is judged as if sent alone, in order — a
   * refusal or a bad argument fails only its own — and answered in the same order. The request
   * is one mutation under one request id (a resend gets the first answers); a reservation's
   * idempotency key works as on a keyed {@code tryReserve}.
   *
   * @param reserves the reservations, 1..1,000
   * @return one result per reservation, in order
   */
  public CompletableFuture<List<ReserveResult>> tryReserveAllAsync(List<ReserveRequest> reserves) {
    if (reserves.isEmpty() || reserves.size() > 1_000) {
      throw new IllegalArgumentException(reserves.size() + " reservations; a batch carries 1..1000");
    }
    List<QuotaRequest.ReserveKeyed> wire = reserves.stream()
        .map(r -> new QuotaRequest.ReserveKeyed(r.idempotencyKey(), r.scope(), wire(r.items()),
            r.configVersion(), r.ttl().toMillis()))
        .toList();
    return call(QuotaOperation.RESERVE_BATCH, new QuotaRequest.ReserveBatch(wire),
        QuotaResponse.ReserveBatchReply.class)
        .thenApply(reply -> {
          if (reply.outcome() != dev.ration.wire.Outcome.SUCCESS) {
            // The frame was refused whole (overloaded, bad count): every reservation with it.
            return reserves.stream().map(r -> result(new QuotaResponse.ReserveReply(
                reply.outcome(), reply.message(), "", "", 0, 0, 0, 0, 0, List.of()))).toList();
          }
          return reply.replies().stream().map(this::result).toList();
        });
  }

  /**
   * As {@link #tryReserveAllAsync}, waiting for the answers.
   *
   * @param reserves the reservations, 1..1,000
   * @return one result per reservation, in order
   */
  public List<ReserveResult> tryReserveAll(List<ReserveRequest> reserves) {
    return join(tryReserveAllAsync(reserves));
  }

  /**
   * As {@link #tryReserveAsync(String, List, long, Duration)}, waiting for the answer.
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @return the reservation or the refusal
   */
  public ReserveResult tryReserve(String scope, List<Item> items, long configVersion, Duration ttl) {
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
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @param idempotencyKey the application's key for this reservation, not empty
   * @return the reservation or the refusal
   */
  public CompletableFuture<ReserveResult> tryReserveAsync(String scope, List<Item> items,
      long configVersion, Duration ttl, String idempotencyKey) {
    if (idempotencyKey == null || idempotencyKey.isEmpty()) {
      throw new IllegalArgumentException("idempotencyKey is empty; use the overload without one");
    }
    return call(QuotaOperation.RESERVE, new QuotaRequest.ReserveKeyed(idempotencyKey, scope,
        wire(items), configVersion, ttl.toMillis()), QuotaResponse.ReserveReply.class)
        .thenApply(this::result);
  }

  /**
   * As {@link #tryReserveAsync(String, List, long, Duration, String)}, waiting for the answer.
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @param idempotencyKey the application's key for this reservation, not empty
   * @return the reservation or the refusal
   */
  public ReserveResult tryReserve(String scope, List<Item> items, long configVersion,
      Duration ttl, String idempotencyKey) {
    return join(tryReserveAsync(scope, items, configVersion, ttl, idempotencyKey));
  }

  /**
   * Keyed checkAndReserve for try-with-resources (see the keyed {@code tryReserveAsync}).
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @param idempotencyKey the application's key for this reservation, not empty
   * @return the reservation; a refusal fails with {@link QuotaRefusedException}
   */
  public CompletableFuture<Reservation> reserveAsync(String scope, List<Item> items,
      long configVersion, Duration ttl, String idempotencyKey) {
    return tryReserveAsync(scope, items, configVersion, ttl, idempotencyKey).thenApply(this::granted);
  }

  /**
   * As {@link #reserveAsync(String, List, long, Duration, String)}, waiting for the answer.
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @param idempotencyKey the application's key for this reservation, not empty
   * @return the reservation
   * @throws QuotaRefusedException if the coordinator refused it
   */
  public Reservation reserve(String scope, List<Item> items, long configVersion,
      Duration ttl, String idempotencyKey) {
    return join(reserveAsync(scope, items, configVersion, ttl, idempotencyKey));
  }

  /**
   * One resource, any config version, under the application's idempotency key.
   *
   * @param scope the scope reserved in
   * @param resource the resource
   * @param amount how much
   * @param ttl how long the reservation lasts unless settled
   * @param idempotencyKey the application's key for this reservation, not empty
   * @return the reservation
   * @throws QuotaRefusedException if the coordinator refused it
   */
  public Reservation reserve(String scope, String resource, long amount, Duration ttl,
      String idempotencyKey) {
    return reserve(scope, List.of(new Item(resource, amount)), 0, ttl, idempotencyKey);
  }

  /**
   * checkAndReserve for try-with-resources; a refusal fails with {@link QuotaRefusedException}.
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @return the reservation
   */
  public CompletableFuture<Reservation> reserveAsync(
      String scope, List<Item> items, long configVersion, Duration ttl) {
    return tryReserveAsync(scope, items, configVersion, ttl).thenApply(this::granted);
  }

  /**
   * As {@link #reserveAsync(String, List, long, Duration)}, waiting for the answer.
   *
   * @param scope the scope reserved in
   * @param items the resources and amounts
   * @param configVersion the catalog version the caller last read (0 = do not check)
   * @param ttl how long the reservation lasts unless settled
   * @return the reservation
   * @throws QuotaRefusedException if the coordinator refused it
   */
  public Reservation reserve(String scope, List<Item> items, long configVersion, Duration ttl) {
    return join(reserveAsync(scope, items, configVersion, ttl));
  }

  /**
   * One resource, any config version.
   *
   * @param scope the scope reserved in
   * @param resource the resource
   * @param amount how much
   * @param ttl how long the reservation lasts unless settled
   * @return the reservation
   * @throws QuotaRefusedException if the coordinator refused it
   */
  public Reservation reserve(String scope, String resource, long amount, Duration ttl) {
    return reserve(scope, List.of(new Item(resource, amount)), 0, ttl);
  }

  /**
   * As {@link #complete}, without waiting.
   *
   * @param reservationId the reservation
   * @param actuals the amounts actually used, one per item
   * @return the settlement
   */
  public CompletableFuture<Settlement> completeAsync(long reservationId, List<Long> actuals) {
    return call(QuotaOperation.COMPLETE, new QuotaRequest.CompleteReservation(reservationId, actuals),
        QuotaResponse.SettleReply.class).thenApply(QuotaClient::settlement);
  }

  /**
   * Completes a reservation with the amounts actually used, emitting its usage events.
   *
   * @param reservationId the reservation
   * @param actuals the amounts actually used, one per item
   * @return the settlement (the first one, if it was settled before)
   */
  public Settlement complete(long reservationId, List<Long> actuals) {
    return join(completeAsync(reservationId, actuals));
  }

  /**
   * As {@link #cancel}, without waiting.
   *
   * @param reservationId the reservation
   * @return the settlement
   */
  public CompletableFuture<Settlement> cancelAsync(long reservationId) {
    return call(QuotaOperation.CANCEL, new QuotaRequest.CancelReservation(reservationId), QuotaResponse.SettleReply.class)
        .thenApply(QuotaClient::settlement);
  }

  /**
   * Cancels a reservation: what it held is released and nothing is counted.
   *
   * @param reservationId the reservation
   * @return the settlement (the first one, if it was settled before)
   */
  public Settlement cancel(long reservationId) {
    return join(cancelAsync(reservationId));
  }

  // ---------------------------------------------------------------- catalog

  /**
   * As {@link #setQuota}, without waiting.
   *
   * @param definition the entry
   * @return the answer
   */
  public CompletableFuture<SetQuotaResult> setQuotaAsync(QuotaDefinition definition) {
    return call(QuotaOperation.SET_QUOTA, new QuotaRequest.SetQuota(definition.toSpec()), QuotaResponse.QuotaSetReply.class)
        .thenApply(r -> new SetQuotaResult(r.outcome(), r.message(), r.currentVersion(),
            r.quota().map(QuotaClient::status)));
  }

  /**
   * Creates or replaces a catalog entry (a new version; the old stays in the history).
   *
   * @param definition the entry
   * @return the entry as now configured, or why it was refused
   */
  public SetQuotaResult setQuota(QuotaDefinition definition) {
    return join(setQuotaAsync(definition));
  }

  /**
   * The entry on (scope, resource) with its usage (a linearizable read).
   *
   * @param scope the scope
   * @param resource the resource
   * @return the entry, or empty
   */
  public Optional<QuotaStatus> getQuota(String scope, String resource) {
    return join(getQuotaAsync(scope, resource));
  }

  /**
   * As {@link #getQuota(String, String)}, without waiting: a quota check on every request of a
   * service reads this way.
   *
   * @param scope the scope
   * @param resource the resource
   * @return the entry, or empty
   */
  public CompletableFuture<Optional<QuotaStatus>> getQuotaAsync(String scope, String resource) {
    return call(QuotaOperation.GET_QUOTA, new QuotaRequest.GetQuota(scope, resource, false),
        QuotaResponse.QuotaFound.class).thenApply(f -> f.quota().map(QuotaClient::status));
  }

  /**
   * The entries whose scope starts with {@code scopePrefix}.
   *
   * @param scopePrefix the scope prefix ("" for all)
   * @return the entries with their usage
   */
  public List<QuotaStatus> listQuotas(String scopePrefix) {
    return join(call(QuotaOperation.LIST_QUOTAS, new QuotaRequest.ListQuotas(scopePrefix, false),
        QuotaResponse.QuotaList.class)).quotas().stream().map(QuotaClient::status).toList();
  }

  /**
   * Every version of a catalog entry, oldest first, as each was set (usage figures are those of
   * the current window only for the newest).
   *
   * @param scope the scope path
   * @param resource the resource
   * @return the entry's versions; empty when it was never set
   * @throws IllegalArgumentException on an empty scope or resource
   */
  public List<QuotaStatus> quotaHistory(String scope, String resource) {
    requireName("scope", scope);
    requireName("resource", resource);
    return join(call(QuotaOperation.QUOTA_HISTORY, new QuotaRequest.QuotaHistory(scope, resource),
        QuotaResponse.QuotaList.class)).quotas().stream().map(QuotaClient::status).toList();
  }

  // ---------------------------------------------------------------- usage log

  /**
   * Appends a usage event the service measured itself; idempotent by its event id (a retry,
   * by this client or after a restart of the service, is answered as a duplicate and counted
   * once within the dedup retention).
   *
   * @param report the event
   * @return the ledger's answer: the record's sequence, or a refusal that recorded nothing
   */
  public IngestResult ingestUsage(UsageReport report) {
    return join(ingestUsageAsync(report));
  }

  /**
   * {@link #ingestUsage}, asynchronously.
   *
   * @param report the event
   * @return the ledger's answer
   */
  public CompletableFuture<IngestResult> ingestUsageAsync(UsageReport report) {
    QuotaRequest.IngestUsage request = new QuotaRequest.IngestUsage(report.eventId(),
        report.eventTime().millis(), report.scope(), report.resource(), report.quantity(),
        report.unit(), report.reservation().orElse(0));
    return call(QuotaOperation.INGEST_USAGE, request, QuotaResponse.IngestReply.class)
        .thenApply(r -> new IngestResult(r.outcome(), r.message(), r.sequence(), r.duplicate()));
  }

  /**
   * Reads the usage log after {@code consumer}'s acknowledged cursor: the records a consumer
   * has not acknowledged yet, at least once (a consumer that crashes before
   * {@link #ackUsage} reads them again).
   *
   * @param consumer the consumer's name (its cursor is replicated)
   * @param max the most records to return, at least 1 (the server also caps it)
   * @return the records and the consumer's cursor
   * @throws IllegalArgumentException on an empty consumer name or {@code max < 1}
   */
  public UsageBatch readUsage(String consumer, int max) {
    requireName("consumer", consumer);
    return readUsage(consumer, 0, max);
  }

  /**
   * Replays the usage log from {@code fromSequence}, whatever any cursor says; moves no cursor.
   *
   * @param fromSequence the first sequence to return, at least 1
   * @param max the most records to return, at least 1 (the server also caps it)
   * @return the records
   * @throws IllegalArgumentException on {@code fromSequence < 1} or {@code max < 1}
   */
  public UsageBatch replayUsage(long fromSequence, int max) {
    if (fromSequence < 1) {
      throw new IllegalArgumentException("fromSequence " + fromSequence + " < 1: the log starts at 1");
    }
    return readUsage("", fromSequence, max);
  }

  private UsageBatch readUsage(String consumer, long fromSequence, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max " + max + " < 1");
    }
    QuotaResponse.UsageBatch b = join(call(QuotaOperation.READ_USAGE,
        new QuotaRequest.ReadUsage(consumer, fromSequence, max), QuotaResponse.UsageBatch.class));
    return new UsageBatch(b.events().stream().map(QuotaClient::record).toList(), b.cursor(),
        b.lastSequence());
  }

  /**
   * Moves {@code consumer}'s replicated cursor forward to {@code sequence} (never back): the
   * records up to it are processed and will not be read again by {@link #readUsage}.
   *
   * @param consumer the consumer's name
   * @param sequence the last sequence processed ({@link UsageBatch#readUpTo()})
   * @return the ledger's answer, with the cursor after it; a sequence outside the log is
   *     refused ({@code INVALID_ARGUMENT}) and moves nothing
   * @throws IllegalArgumentException on an empty consumer name
   */
  public AckResult ackUsage(String consumer, long sequence) {
    requireName("consumer", consumer);
    QuotaResponse.AckReply r = join(call(QuotaOperation.ACK_USAGE,
        new QuotaRequest.AckUsage(consumer, sequence), QuotaResponse.AckReply.class));
    return new AckResult(r.outcome(), r.message(), r.cursor());
  }

  /**
   * The usage at {@code scope} (its own and its descendants') per hour of event time, in
   * {@code [from, to)}.
   *
   * @param scope the scope level
   * @param resource the resource, or empty for every resource
   * @param from the first instant of the period (ledger time), inclusive
   * @param to the end of the period (ledger time), exclusive; {@link LedgerTime#NEVER} for no end
   * @return the hour buckets with usage and their total
   * @throws IllegalArgumentException on an empty scope, a null resource or an empty period
   */
  public UsageAggregates aggregateUsage(String scope, String resource, LedgerTime from, LedgerTime to) {
    requireName("scope", scope);
    requirePeriod(resource, from, to);
    QuotaResponse.AggregateReply r = join(call(QuotaOperation.AGGREGATE_USAGE,
        new QuotaRequest.AggregateUsage(scope, resource, from.millis(), to.millis()),
        QuotaResponse.AggregateReply.class));
    return new UsageAggregates(r.buckets().stream().map(a -> new UsageAggregate(a.scope(),
        a.resource(), LedgerTime.ofMillis(Math.max(0, a.bucketStartMillis())), a.quantity(),
        a.events())).toList(), r.total());
  }

  /**
   * Compares, for the period {@code [from, to)} of event time, the settled reservations with
   * the usage records they produced and the hour aggregates with the records they sum. Reads
   * only: nothing changes (see {@link #repair}).
   *
   * @param scope the scope level
   * @param resource the resource, or empty for every resource
   * @param from the start of the period (ledger time), inclusive
   * @param to the end of the period (ledger time), exclusive
   * @return the differences found
   * @throws dev.ration.client.RationException with {@code INVALID_ARGUMENT} (definite) for an
   *     invalid scope or an empty period, as for any invalid request
   */
  public ReconcileResult reconcile(String scope, String resource, LedgerTime from, LedgerTime to) {
    return reconcile(scope, resource, from, to, false, "", "");
  }

  /**
   * As {@link #reconcile}, then appends a compensating usage record for each difference, so
   * the log and the aggregates agree again; replicated and audited with {@code actor} and
   * {@code reason} (in secure mode the caller's identity is recorded as the actor).
   *
   * @param scope the scope level
   * @param resource the resource, or empty for every resource
   * @param from the start of the period (ledger time), inclusive
   * @param to the end of the period (ledger time), exclusive
   * @param actor who repairs
   * @param reason why
   * @return the differences found, each with its compensation
   */
  public ReconcileResult repair(String scope, String resource, LedgerTime from, LedgerTime to,
      String actor, String reason) {
    return reconcile(scope, resource, from, to, true, actor, reason);
  }

  private ReconcileResult reconcile(String scope, String resource, LedgerTime from, LedgerTime to,
      boolean repair, String actor, String reason) {
    if (scope == null || resource == null || from == null || to == null || actor == null || reason == null) {
      throw new IllegalArgumentException("scope, resource, period, actor and reason are required");
    }
    QuotaResponse.ReconcileReply r = join(call(QuotaOperation.RECONCILE, new QuotaRequest.Reconcile(
        scope, resource, from.millis(), to.millis(), repair, actor, reason),
        QuotaResponse.ReconcileReply.class));
    return new ReconcileResult(r.outcome(), r.message(), r.drifts().stream().map(d ->
        new UsageDrift(dev.ration.wire.quota.Drift.AGGREGATE.equals(d.kind())
            ? UsageDrift.Kind.AGGREGATE : UsageDrift.Kind.RESERVATION, d.scope(), d.resource(),
            positive(d.reservationId()),
            dev.ration.wire.quota.Drift.AGGREGATE.equals(d.kind())
                ? Optional.of(LedgerTime.ofMillis(Math.max(0, d.bucketStartMillis()))) : Optional.empty(),
            d.expected(), d.recorded(), positive(d.compensationSequence()))).toList());
  }

  /**
   * Reads the audit log: catalog changes and repairs, with who, when and why.
   *
   * @param fromSequence the first record to return, at least 1
   * @param max the most records to return, at least 1 (the server also caps it)
   * @return the records in sequence order; empty past the end
   * @throws IllegalArgumentException on {@code fromSequence < 1} or {@code max < 1}
   */
  public List<AuditEntry> readAudit(long fromSequence, int max) {
    if (fromSequence < 1 || max < 1) {
      throw new IllegalArgumentException("fromSequence " + fromSequence + " and max " + max
          + " must be at least 1");
    }
    return join(call(QuotaOperation.READ_AUDIT, new QuotaRequest.ReadAudit(fromSequence, max),
        QuotaResponse.AuditList.class)).records().stream().map(a -> new AuditEntry(a.sequence(),
        LedgerTime.ofMillis(Math.max(0, a.atMillis())), a.actor(), a.action(), a.scope(),
        a.resource(), a.version(), a.reason(), a.detail())).toList();
  }

  // ---------------------------------------------------------------- budgets

  /**
   * Leases {@code holder} a budget of up to {@code amount} of {@code resource}'s windowed quotas
   * (RATE, CUMULATIVE) at every level of {@code scope} at once: what every level still admits
   * in its current window, at most {@code amount} (docs/QUOTAS.md, "Budgets and the quota limiter"). Most services
   * use a {@link QuotaLimiter}, which takes, renews and returns budgets itself.
   *
   * @param holder who holds it (a service instance or region)
   * @param scope the scope path; every level up to the root with an entry counts it
   * @param resource the resource
   * @param amount the most wanted, positive
   * @param lease how long it is held unless renewed (100 ms to 10 min)
   * @return the budget or the refusal
   */
  public CompletableFuture<BudgetGrant> grantBudgetAsync(String holder, String scope,
      String resource, long amount, Duration lease) {
    return call(QuotaOperation.GRANT_BUDGET, new QuotaRequest.GrantBudget(holder, scope, resource,
        amount, lease.toMillis()), QuotaResponse.BudgetGrantReply.class)
        .thenApply(QuotaClient::grant);
  }

  /**
   * As {@link #grantBudgetAsync(String, String, String, long, Duration)} under a request id the
   * caller keeps ({@link #nextRequestId()}): a caller that got no answer (a lost reply, a
   * deadline) resends the same grant under the same id, and the coordinator applies it at most
   * once and answers every resend with the first grant, so a grant applied after its caller gave
   * up becomes the caller's instead of a budget nobody holds until its lease ends. A different
   * request under a used id is refused (INVALID_ARGUMENT); resend within the idempotency
   * retention (docs/CONFIGURATION.md), after which an id's first answer is forgotten.
   *
   * @param holder who holds it
   * @param scope the scope path
   * @param resource the resource
   * @param amount the most wanted, positive
   * @param lease how long it is held unless renewed (100 ms to 10 min)
   * @param requestId an id from {@link #nextRequestId()}, the same for every resend
   * @return the budget or the refusal
   */
  public CompletableFuture<BudgetGrant> grantBudgetAsync(String holder, String scope,
      String resource, long amount, Duration lease, long requestId) {
    return calls.call(QuotaOperation.GRANT_BUDGET, requestId, new QuotaRequest.GrantBudget(holder,
        scope, resource, amount, lease.toMillis()), QuotaResponse.BudgetGrantReply.class)
        .thenApply(QuotaClient::grant);
  }

  /**
   * A request id of this client never handed out before, for a call its caller may resend
   * ({@link #grantBudgetAsync(String, String, String, long, Duration, long)}).
   *
   * @return the id
   */
  public long nextRequestId() {
    return transport.nextRequestId();
  }

  /**
   * As {@link #grantBudgetAsync}, waiting for the answer.
   *
   * @param holder who holds it
   * @param scope the scope path
   * @param resource the resource
   * @param amount the most wanted, positive
   * @param lease how long it is held unless renewed
   * @return the budget or the refusal
   */
  public BudgetGrant grantBudget(String holder, String scope, String resource, long amount,
      Duration lease) {
    return join(grantBudgetAsync(holder, scope, resource, amount, lease));
  }

  /**
   * Reports on (and renews) up to 1,000 budgets in one request; each is judged and answered
   * alone, in order. The reports of every caller of this client go together: at once when
   * fewer than two report frames wait for their answer, else in the next frame with every
   * report submitted meanwhile (no fixed wait).
   *
   * @param reports the reports
   * @return one answer per report, in order
   */
  public CompletableFuture<List<BudgetReportResult>> reportBudgetsAsync(List<BudgetReport> reports) {
    return this.reports.submit(reports);
  }

  private CompletableFuture<List<BudgetReportResult>> sendReports(List<BudgetReport> reports) {
    List<QuotaRequest.BudgetReport> wire = reports.stream().map(r -> new QuotaRequest.BudgetReport(
        r.budgetId(), r.spent(), r.sequence(), r.wantAmount(), r.lease().toMillis())).toList();
    return call(QuotaOperation.REPORT_BUDGETS, new QuotaRequest.ReportBudgets(wire),
        QuotaResponse.BudgetReportsReply.class).thenApply(reply -> {
          if (reply.outcome() != dev.ration.wire.Outcome.SUCCESS) {
            return reports.stream().map(r -> new BudgetReportResult(reply.outcome(),
                reply.message(), r.budgetId(), 0, 0, LedgerTime.ofMillis(0),
                LedgerTime.ofMillis(0), false, false, LedgerTime.ofMillis(0))).toList();
          }
          return reply.reports().stream().map(QuotaClient::report).toList();
        });
  }

  /**
   * As {@link #reportBudgetsAsync}, waiting for the answer.
   *
   * @param reports the reports
   * @return one answer per report, in order
   */
  public List<BudgetReportResult> reportBudgets(List<BudgetReport> reports) {
    return join(reportBudgetsAsync(reports));
  }

  /**
   * Returns a budget: the holder has stopped spending from it; the unspent part goes back to
   * the windows still running.
   *
   * @param budgetId the budget
   * @param spent the final cumulative spend
   * @param sequence a report sequence above every earlier one (an older one: the last report
   *     counted stands as the final spend)
   * @return the final spend and what was given back, or the refusal
   */
  public CompletableFuture<BudgetReturn> returnBudgetAsync(long budgetId, long spent, long sequence) {
    return call(QuotaOperation.RETURN_BUDGET, new QuotaRequest.ReturnBudget(budgetId, spent,
        sequence), QuotaResponse.BudgetReturnReply.class)
        .thenApply(r -> new BudgetReturn(r.outcome(), r.message(), r.budgetId(), r.spent(),
            r.released()));
  }

  /**
   * As {@link #returnBudgetAsync}, waiting for the answer.
   *
   * @param budgetId the budget
   * @param spent the final cumulative spend
   * @param sequence a report sequence above every earlier one
   * @return the final spend and what was given back, or the refusal
   */
  public BudgetReturn returnBudget(long budgetId, long spent, long sequence) {
    return join(returnBudgetAsync(budgetId, spent, sequence));
  }

  /**
   * The budgets at {@code scopePrefix} and below, held and lapsed, at most 1,000.
   *
   * @param scopePrefix a scope path prefix ("" = all the caller may read)
   * @return the budgets in id order
   */
  public List<BudgetInfo> listBudgets(String scopePrefix) {
    return join(call(QuotaOperation.LIST_BUDGETS, new QuotaRequest.ListBudgets(scopePrefix),
        QuotaResponse.BudgetList.class)).budgets().stream().map(b -> new BudgetInfo(b.budgetId(),
            b.holder(), b.scope(), b.resource(), b.granted(), b.spent(), b.reportSequence(),
            ledger(b.grantedAtMillis()), ledger(b.expiresAtMillis()), ledger(b.windowEndMillis()),
            ledger(b.keepUntilMillis()), b.lapsed())).toList();
  }

  private static BudgetGrant grant(QuotaResponse.BudgetGrantReply r) {
    return new BudgetGrant(r.outcome(), r.message(), r.levelScope(), r.resource(),
        Duration.ofMillis(Math.max(0, r.retryAfterMillis())), r.budgetId(), r.granted(),
        ledger(r.expiresAtMillis()), ledger(r.windowEndMillis()), r.configVersion(),
        ledger(r.atMillis()), r.overdraft());
  }

  private static BudgetReportResult report(QuotaResponse.BudgetReportInfo r) {
    return new BudgetReportResult(r.outcome(), r.message(), r.budgetId(), r.granted(), r.spent(),
        ledger(r.expiresAtMillis()), ledger(r.windowEndMillis()), r.ended(), r.resent(),
        ledger(r.atMillis()));
  }

  private static LedgerTime ledger(long millis) {
    return LedgerTime.ofMillis(Math.max(0, millis));
  }

  private static UsageRecord record(dev.ration.wire.quota.UsageEvent e) {
    return new UsageRecord(e.sequence(), e.eventId(), e.type(),
        LedgerTime.ofMillis(Math.max(0, e.eventTimeMillis())),
        LedgerTime.ofMillis(Math.max(0, e.recordedAtMillis())), e.scope(), e.resource(),
        e.quantity(), e.unit(), positive(e.reservationId()), e.overage());
  }

  private static java.util.OptionalLong positive(long id) {
    return id > 0 ? java.util.OptionalLong.of(id) : java.util.OptionalLong.empty();
  }

  private static void requireName(String what, String v) {
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }

  private static void requirePeriod(String resource, LedgerTime from, LedgerTime to) {
    if (resource == null || from == null || to == null) {
      throw new IllegalArgumentException("resource (empty for all), from and to are required");
    }
    if (from.compareTo(to) >= 0) {
      throw new IllegalArgumentException("period [" + from + ", " + to + ") is empty");
    }
  }

  // ---------------------------------------------------------------- plumbing

  private Reservation granted(ReserveResult r) {
    if (!r.succeeded()) {
      throw new QuotaRefusedException(r);
    }
    return new Reservation(this, r);
  }

  private static List<QuotaRequest.Item> wire(List<Item> items) {
    return items.stream().map(i -> new QuotaRequest.Item(i.resource(), i.amount())).toList();
  }

  private ReserveResult result(QuotaResponse.ReserveReply reply) {
    ReserveResult r = convert(reply);
    if (!r.succeeded()) {
      for (QuotaListener l : listeners) {
        l.onReserveRefused(r);
      }
    }
    return r;
  }

  private static ReserveResult convert(QuotaResponse.ReserveReply r) {
    return new ReserveResult(r.outcome(), r.message(), r.levelScope(), r.resource(),
        Duration.ofMillis(Math.max(0, r.retryAfterMillis())), r.currentVersion(), r.reservationId(),
        LedgerTime.ofMillis(Math.max(0, r.expiresAtMillis())), r.configVersion(),
        r.items().stream().map(i -> new ReservedItem(i.resource(), i.amount(), i.overage(), i.unit())).toList());
  }

  private static Settlement settlement(QuotaResponse.SettleReply r) {
    return new Settlement(r.outcome(), r.message(), r.reservationId(), Optional.ofNullable(r.how()),
        r.quantities(), r.eventSequences(), r.alreadySettled());
  }

  private static QuotaStatus status(QuotaResponse.QuotaInfo q) {
    return new QuotaStatus(dev.ration.client.quota.internal.QuotaViews.entry(q.spec()), LedgerTime.ofMillis(Math.max(0, q.windowStartMillis())),
        q.windowUsed(), q.held(), q.allocated(), q.alerted());
  }

  private <T extends QuotaResponse> CompletableFuture<T> call(QuotaOperation operation,
      QuotaRequest request, Class<T> type) {
    return calls.call(operation, request, type);
  }

  static <T> T join(CompletableFuture<T> f) {
    return WrappedCalls.join(f);
  }
}
