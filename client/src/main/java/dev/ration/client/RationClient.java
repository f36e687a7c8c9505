package dev.ration.client;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.LimitStatus;

import dev.ration.client.protocol.ErrorCode;
import dev.ration.client.protocol.Kind;
import dev.ration.client.protocol.Request;
import dev.ration.client.protocol.Response;
import dev.ration.client.transport.Transport;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java client of a Ration cluster, and the single owner of retries.
 *
 * <p>One connection at a time, to the node believed to lead: a NOT_LEADER reply naming the
 * leader moves the client there; with no leader known (NOT_LEADER without address, UNAVAILABLE,
 * a lost or refused connection) it rotates through the configured addresses with backoff. A
 * call is retried at most {@code maxRetries} times within its deadline, always under the SAME
 * request id, so the server's idempotency (client id, request id) answers a resent mutation with
 * its first result. Request ids come from one per-client counter starting at 1 (HELLO frames
 * take ids from it too), so they are unique across connections.
 *
 * <p>Failures are {@link RationException}s; a failure is indeterminate when any attempt of a
 * mutation may have reached a server. Reads fail definitely: they have no effect.
 *
 * <p>It is the {@link Transport} of the limiter, quota and TTL clients it hands out, which know
 * it only through that interface.
 *
 * <p>Thread-safe. Uses one daemon event-loop thread, released by {@link #close()}.
 */
public final class RationClient implements Transport, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RationClient.class);
  /** Connection changes are logged at most this often; the next line counts those left out. */
  private static final long RECONNECT_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  private final RationClientOptions options;
  private final EventLoopGroup group;
  private final Backoff backoff;
  private final RequestIds requestIds;
  private final List<String> addresses;

  // Guarded by this.
  private int addressIndex;
  private String currentAddress;
  private CompletableFuture<Connection> current;
  private boolean closed;
  private long reconnectLoggedAtNanos;
  private boolean reconnectLogged;
  private long reconnectsNotLogged;

  public RationClient(RationClientOptions options) {
    this.options = options.withMintedClientId();
    // The caller's options, not the minted ones: whether the id was fixed decides the scheme.
    this.requestIds = RequestIds.forOptions(options, RequestIds::wallClockMicros);
    this.addresses = options.addresses();
    this.currentAddress = addresses.get(0);
    this.group =
        new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("ration-client", true), NioIoHandler.newFactory());
    this.backoff =
        new Backoff(
            options.backoffBase().toMillis(),
            options.backoffMax().toMillis(),
            bound -> ThreadLocalRandom.current().nextLong(bound + 1));
  }

  public static RationClient connect(String... addresses) {
    return new RationClient(RationClientOptions.builder().addresses(List.of(addresses)).build());
  }

  public RationClientOptions options() {
    return options;
  }

  /**
   * The next request id of this client, never reused for a different request: 1, 2, 3, ... under
   * a random client id; under a fixed one, ids that follow the wall clock so a restarted
   * process does not reuse its predecessor's (docs/PROTOCOL.md, "Request ids").
   */
  @Override
  public long nextRequestId() {
    return requestIds.next();
  }

  /** The address the client currently talks to (the leader, as far as it knows). */
  public synchronized String currentAddress() {
    return currentAddress;
  }

  // ------------------------------------------------------------------ typed API

  public CompletableFuture<Response.SetLimitReply> setLimitAsync(LimitSpec spec) {
    return typed(call(spec.toRequest()), Response.SetLimitReply.class);
  }

  public Response.SetLimitReply setLimit(LimitSpec spec) {
    return join(setLimitAsync(spec));
  }

  public CompletableFuture<Optional<LimitStatus>> getLimitAsync(String tenant, String resource) {
    return typed(call(new Request.GetLimit(tenant, resource, false)), Response.GetLimitReply.class)
        .thenApply(r -> r.found() ? Optional.ofNullable(r.limit()) : Optional.empty());
  }

  public Optional<LimitStatus> getLimit(String tenant, String resource) {
    return join(getLimitAsync(tenant, resource));
  }

  public CompletableFuture<List<LimitStatus>> listLimitsAsync() {
    return typed(call(new Request.ListLimits(false)), Response.LimitList.class).thenApply(Response.LimitList::limits);
  }

  public List<LimitStatus> listLimits() {
    return join(listLimitsAsync());
  }

  public CompletableFuture<Response.LeaseReply> acquireLeaseAsync(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
    return typed(
        call(new Request.AcquireLease(tenant, resource, holder, demandRatePerSecond, demandBurst)),
        Response.LeaseReply.class);
  }

  public Response.LeaseReply acquireLease(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
    return join(acquireLeaseAsync(tenant, resource, holder, demandRatePerSecond, demandBurst));
  }

  public CompletableFuture<Response.LeaseReply> renewLeaseAsync(
      long leaseId,
      long presentedVersion,
      long demandRatePerSecond,
      long demandBurst,
      long admittedPerSecond,
      long rejectedPerSecond,
      long emergencyUsed) {
    return typed(
        call(
            new Request.RenewLease(
                leaseId, presentedVersion, demandRatePerSecond, demandBurst, admittedPerSecond,
                rejectedPerSecond, emergencyUsed)),
        Response.LeaseReply.class);
  }

  public Response.LeaseReply renewLease(
      long leaseId,
      long presentedVersion,
      long demandRatePerSecond,
      long demandBurst,
      long admittedPerSecond,
      long rejectedPerSecond,
      long emergencyUsed) {
    return join(
        renewLeaseAsync(
            leaseId, presentedVersion, demandRatePerSecond, demandBurst, admittedPerSecond,
            rejectedPerSecond, emergencyUsed));
  }

  /**
   * Renews several leases in one frame (at most {@link Request.RenewLeases#MAX_RENEWALS}), each
   * judged and answered on its own: the reply's {@code replies} answer {@code renewals} in
   * order, each as {@link #renewLeaseAsync} would. One request id covers the batch, so a retry
   * after a lost reply is answered from the first attempt.
   */
  public CompletableFuture<Response.RenewalsReply> renewLeasesAsync(
      List<Request.RenewLease> renewals) {
    return typed(call(new Request.RenewLeases(renewals)), Response.RenewalsReply.class);
  }

  /** As {@link #renewLeasesAsync}, waiting for the answer. */
  public Response.RenewalsReply renewLeases(List<Request.RenewLease> renewals) {
    return join(renewLeasesAsync(renewals));
  }

  public CompletableFuture<Response.ReturnReply> returnLeaseAsync(long leaseId, long presentedVersion, long unusedBalance) {
    return typed(call(new Request.ReturnLease(leaseId, presentedVersion, unusedBalance)), Response.ReturnReply.class);
  }

  public Response.ReturnReply returnLease(long leaseId, long presentedVersion, long unusedBalance) {
    return join(returnLeaseAsync(leaseId, presentedVersion, unusedBalance));
  }

  /** Empty tenant and resource list every lease. */
  public CompletableFuture<List<LeaseView>> listLeasesAsync(String tenant, String resource) {
    return typed(call(new Request.ListLeases(tenant, resource, false)), Response.LeaseList.class)
        .thenApply(Response.LeaseList::leases);
  }

  public List<LeaseView> listLeases(String tenant, String resource) {
    return join(listLeasesAsync(tenant, resource));
  }

  /** Status of the node this client is connected to (whatever its role). */
  public CompletableFuture<Response.ClusterStatusReply> clusterStatusAsync() {
    return typed(call(new Request.ClusterStatus()), Response.ClusterStatusReply.class);
  }

  public Response.ClusterStatusReply clusterStatus() {
    return join(clusterStatusAsync());
  }

  /**
   * Status of the node at {@code address}, over a dedicated connection closed afterwards. Not
   * retried elsewhere: the caller asked for that node.
   */
  public CompletableFuture<Response.ClusterStatusReply> clusterStatusAsync(String address) {
    long helloId = nextRequestId();
    long id = nextRequestId();
    int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, options.requestDeadline().toMillis());
    CompletableFuture<Response> reply =
        Connection.open(group, address, options, helloId)
            .thenCompose(c -> c.send(id, new Request.ClusterStatus(), timeoutMillis).whenComplete((r, e) -> c.close()));
    CompletableFuture<Response> mapped =
        reply.handle(
            (r, err) -> {
              if (err != null) {
                AttemptFailure f = attemptFailure(err);
                throw RationException.of(f.code, f.getMessage(), true, 0, f);
              }
              if (r instanceof Response.Error e) {
                throw RationException.of(e.code(), e.message(), true, e.retryAfterMillis(), null);
              }
              return r;
            });
    return typed(mapped, Response.ClusterStatusReply.class);
  }

  public Response.ClusterStatusReply clusterStatus(String address) {
    return join(clusterStatusAsync(address));
  }

  // ------------------------------------------------------------------ regional limiter

  /**
   * A limiter admitting locally under a lease on (tenant, resource) held by {@code holder},
   * with default options; its lifecycle runs on this client's event loop. Nothing is sent until
   * its first use. See docs/LIMITER.md.
   */
  public dev.ration.client.limiter.RateLimiter rateLimiter(String tenant, String resource, String holder) {
    return rateLimiter(tenant, resource, holder, dev.ration.client.limiter.LimiterOptions.defaults());
  }

  /** As {@link #rateLimiter(String, String, String)} with explicit options (clock, scheduler, demand...). */
  public dev.ration.client.limiter.RateLimiter rateLimiter(
      String tenant, String resource, String holder, dev.ration.client.limiter.LimiterOptions limiterOptions) {
    dev.ration.client.limiter.LimiterScheduler scheduler =
        limiterOptions.scheduler().orElseGet(() -> dev.ration.client.limiter.LimiterScheduler.of(group));
    return dev.ration.client.limiter.RateLimiter.create(
        dev.ration.client.limiter.LeaseTransport.of(this), scheduler, tenant, resource, holder, limiterOptions);
  }

  /** TTL entries and locks (docs/TTL.md), through this client's connection and retries. */
  public dev.ration.client.ttl.TtlEntries ttl() {
    return new dev.ration.client.ttl.TtlEntries(this);
  }

  /** Quotas, reservations (try-with-resources) and usage over this client. */
  public dev.ration.client.quota.QuotaClient quotas() {
    return new dev.ration.client.quota.QuotaClient(this);
  }

  // ------------------------------------------------------------------ low-level API

  /** Sends {@code request} under a fresh request id with the default deadline. */
  @Override
  public CompletableFuture<Response> call(Request request) {
    return call(request, options.requestDeadline());
  }

  /** As {@link #call(Request)}; a reply of another type fails the call INTERNAL (indeterminate). */
  @Override
  public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
    return typed(call(request), replyType);
  }

  /** As {@link #call(Request, Class)} under an id from {@link #nextRequestId()}, the default deadline. */
  @Override
  public <T extends Response> CompletableFuture<T> call(long requestId, Request request, Class<T> replyType) {
    return typed(call(requestId, request, options.requestDeadline()), replyType);
  }

  /** Sends {@code request} under a fresh request id; retries keep that id. */
  public CompletableFuture<Response> call(Request request, Duration deadline) {
    return call(nextRequestId(), request, deadline);
  }

  /**
   * Sends {@code request} under an explicit request id (testers resend an id on purpose).
   * Completes with the reply (never a {@link Response.Error}) or fails with a {@link
   * RationException}.
   */
  public CompletableFuture<Response> call(long requestId, Request request, Duration deadline) {
    Call c = new Call(requestId, request, System.nanoTime() + deadline.toNanos());
    c.attempt();
    return c.result;
  }

  // ------------------------------------------------------------------ retry loop

  /** One logical call: its attempts share the request id and the deadline. */
  private final class Call {
    final long requestId;
    final Request request;
    final long deadlineNanos;
    final boolean mutation;
    final CompletableFuture<Response> result = new CompletableFuture<>();
    int retries;
    boolean mayHaveApplied;

    Call(long requestId, Request request, long deadlineNanos) {
      this.requestId = requestId;
      this.request = request;
      this.deadlineNanos = deadlineNanos;
      this.mutation = request.kind().mutation();
    }

    void attempt() {
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
      if (remainingMillis <= 0) {
        fail(ErrorCode.DEADLINE_EXCEEDED, "deadline passed before attempt " + (retries + 1), 0, null);
        return;
      }
      CompletableFuture<Connection> conn = connection();
      conn.whenComplete(
          (c, connectError) -> {
            if (connectError != null) {
              AttemptFailure f = attemptFailure(connectError);
              connectionFailed(conn);
              if (f.code == ErrorCode.UNAUTHENTICATED) {
                fail(f.code, f.getMessage(), 0, f); // definite: nothing was sent
                return;
              }
              retryOrFail(f.code, f.getMessage(), 0, f);
              return;
            }
            int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, remainingMillis));
            c.send(requestId, request, timeoutMillis).whenComplete((r, err) -> onReply(conn, r, err));
          });
    }

    private void onReply(CompletableFuture<Connection> conn, Response r, Throwable err) {
      if (err != null) {
        AttemptFailure f = attemptFailure(err);
        mayHaveApplied |= f.written;
        switch (f.code) {
          case UNAVAILABLE -> {
            connectionFailed(conn);
            retryOrFail(f.code, f.getMessage(), 0, f);
          }
          case OVERLOADED -> retryOrFail(f.code, f.getMessage(), 0, f);
          default -> fail(f.code, f.getMessage(), 0, f);
        }
        return;
      }
      if (!(r instanceof Response.Error e)) {
        result.complete(r);
        return;
      }
      mayHaveApplied |= !e.code().definite();
      switch (e.code()) {
        case NOT_LEADER -> {
          if (e.leaderAddress() != null && !e.leaderAddress().isEmpty()) {
            follow(conn, e.leaderAddress());
          } else {
            connectionFailed(conn);
          }
          retryOrFail(e.code(), e.message(), e.retryAfterMillis(), null);
        }
        case UNAVAILABLE -> {
          // A node that lost leadership after proposing names the new leader, if it knows it.
          if (e.leaderAddress() != null && !e.leaderAddress().isEmpty()) {
            follow(conn, e.leaderAddress());
          } else {
            connectionFailed(conn);
          }
          retryOrFail(e.code(), e.message(), e.retryAfterMillis(), null);
        }
        case OVERLOADED -> retryOrFail(e.code(), e.message(), e.retryAfterMillis(), null);
        default -> fail(e.code(), e.message(), e.retryAfterMillis(), null);
      }
    }

    private void retryOrFail(ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
      if (retries >= options.maxRetries()) {
        fail(code, message + " (after " + (retries + 1) + " attempts)", retryAfterMillis, cause);
        return;
      }
      long delayMillis = backoff.delayMillis(retries, retryAfterMillis);
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
      if (delayMillis >= remainingMillis) {
        fail(ErrorCode.DEADLINE_EXCEEDED, "deadline leaves no time to retry after " + code + ": " + message, retryAfterMillis, cause);
        return;
      }
      retries++;
      synchronized (RationClient.this) {
        if (closed) {
          fail(ErrorCode.UNAVAILABLE, "client closed", 0, cause);
          return;
        }
        group.schedule(this::attempt, delayMillis, TimeUnit.MILLISECONDS);
      }
    }

    private void fail(ErrorCode code, String message, long retryAfterMillis, Throwable cause) {
      // Reads have no effect; a mutation is in doubt once any attempt may have reached a server
      // (written and unanswered, or answered with an indeterminate error).
      boolean definite = !mutation || !mayHaveApplied;
      result.completeExceptionally(
          RationException.of(code, "request " + requestId + " " + request.kind() + ": " + message, definite, retryAfterMillis, cause));
    }
  }

  private static AttemptFailure attemptFailure(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof AttemptFailure f) {
      return f;
    }
    return new AttemptFailure(ErrorCode.UNAVAILABLE, String.valueOf(c), false, c);
  }

  // ------------------------------------------------------------------ connection management

  private synchronized CompletableFuture<Connection> connection() {
    if (closed) {
      return CompletableFuture.failedFuture(new AttemptFailure(ErrorCode.UNAVAILABLE, "client closed", false, null));
    }
    if (current != null) {
      Connection c = current.getNow(null);
      if (!current.isDone() || (c != null && c.isActive())) {
        return current;
      }
    }
    current = Connection.open(group, currentAddress, options, nextRequestId());
    return current;
  }

  /** The connection behind {@code failed} is unusable and no leader is known: try the next address. */
  private synchronized void connectionFailed(CompletableFuture<Connection> failed) {
    if (current != failed) {
      return; // Someone already moved on; do not rotate twice for one failure.
    }
    closeCurrent();
    String lost = currentAddress;
    addressIndex = (addressIndex + 1) % addresses.size();
    currentAddress = addresses.get(addressIndex);
    logReconnect(true, "connection to {} lost or refused, no leader known; reconnecting to {}", lost);
  }

  private synchronized void follow(CompletableFuture<Connection> from, String leaderAddress) {
    if (current != from || leaderAddress.equals(currentAddress)) {
      return;
    }
    closeCurrent();
    String previous = currentAddress;
    currentAddress = leaderAddress;
    // Routine after an election and on most first requests (a CLI command, a new client): a
    // debug line, or every command line tool run would print it.
    logReconnect(false, "{} does not lead; reconnecting to the leader it names, {}", previous);
  }

  /** Logs a move to {@link #currentAddress}, at most once per interval. Caller holds this. */
  private void logReconnect(boolean warn, String format, String from) {
    long now = System.nanoTime();
    if (reconnectLogged && now - reconnectLoggedAtNanos < RECONNECT_LOG_INTERVAL_NANOS) {
      reconnectsNotLogged++;
      return;
    }
    String suffix = reconnectsNotLogged == 0 ? "" : " (" + reconnectsNotLogged + " earlier moves not logged)";
    if (warn) {
      LOG.warn(format + suffix, from, currentAddress);
    } else {
      LOG.debug(format + suffix, from, currentAddress);
    }
    reconnectLogged = true;
    reconnectLoggedAtNanos = now;
    reconnectsNotLogged = 0;
  }

  private void closeCurrent() {
    if (current != null) {
      current.thenAccept(Connection::close);
      current = null;
    }
  }

  /** Closes the connection and releases the event loop; in-flight calls fail UNAVAILABLE. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      closeCurrent();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  // ------------------------------------------------------------------ helpers

  private static <T extends Response> CompletableFuture<T> typed(CompletableFuture<Response> f, Class<T> type) {
    return f.thenApply(
        r -> {
          if (!type.isInstance(r)) {
            throw RationException.of(ErrorCode.INTERNAL, "expected " + type.getSimpleName() + " but got " + r, false, 0, null);
          }
          return type.cast(r);
        });
  }

  private static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable c = e.getCause();
      if (c instanceof RationException re) {
        throw re;
      }
      throw RationException.of(ErrorCode.INTERNAL, String.valueOf(c), false, 0, c);
    }
  }
}
