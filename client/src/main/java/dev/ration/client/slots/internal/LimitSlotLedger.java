package dev.ration.client.slots.internal;

import dev.ration.client.transport.Transport;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import dev.ration.wire.lease.SlotLease;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Not API: slot leases on a limit's concurrency cap C (docs/POOL.md, "The global cap"), over the
 * client's transport. A renewal carries the holder's promise as its {@code release}, and is
 * resent under its first request id.
 */
public final class LimitSlotLedger implements SlotLedger {
  private final Transport transport;
  private final String tenant;
  private final String resource;
  private final String holder;

  /**
   * @param transport the transport carrying the lease's requests
   * @param tenant the limit's tenant
   * @param resource the limit's resource
   * @param holder the pool's holder name
   */
  public LimitSlotLedger(Transport transport, String tenant, String resource, String holder) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.tenant = Objects.requireNonNull(tenant, "tenant");
    this.resource = Objects.requireNonNull(resource, "resource");
    this.holder = Objects.requireNonNull(holder, "holder");
  }

  private record Lease(SlotLease lease) implements Held {
    @Override
    public long share() {
      return lease.slotShare();
    }

    @Override
    public long durationMillis() {
      return lease.leaseDurationMillis();
    }
  }

  /**
   * The acquire last sent that has no answer yet, resent as it was under its request id until
   * one comes: the coordinator applies it at most once and answers a resend with the first
   * result, so an attempt applied after its caller gave up (a partition, a lost reply) becomes
   * this holder's lease instead of one nobody holds, counted until it lapses. Guarded by this.
   */
  private Request.AcquireSlots unanswered;

  private long unansweredId;

  @Override
  public CompletableFuture<Answer> acquire(long demand) {
    Request.AcquireSlots request;
    long requestId;
    synchronized (this) {
      if (unanswered == null) {
        unanswered = new Request.AcquireSlots(tenant, resource, holder, demand);
        unansweredId = transport.nextRequestId();
      }
      request = unanswered;
      requestId = unansweredId;
    }
    return transport.call(requestId, request, Response.SlotLeaseReply.class)
        .thenApply(reply -> {
          answered(request);
          return reply.outcome() == Outcome.SUCCESS
              ? new Granted(new Lease(reply.lease()))
              : new Refused(reply.retryAfterMillis(), reply.outcome() + ": " + reply.message());
        });
  }

  @Override
  public synchronized void forgetUnanswered() {
    unanswered = null;
  }

  private synchronized void answered(Request.AcquireSlots request) {
    if (unanswered == request) {
      unanswered = null;
    }
  }

  @Override
  public Supplier<CompletableFuture<Answer>> renewal(Held lease, int running, int queued,
      long promise, long demand) {
    SlotLease held = ((Lease) lease).lease();
    long requestId = transport.nextRequestId();
    Request.RenewSlots request = new Request.RenewSlots(List.of(new Request.SlotRenewal(
        held.leaseId(), held.version(), running, Math.max(0, demand - running), promise)));
    return () -> transport.call(requestId, request, Response.SlotRenewalsReply.class)
        .thenApply(reply -> {
          Response.SlotLeaseReply one = reply.replies().isEmpty() ? null : reply.replies().get(0);
          if (reply.outcome() == Outcome.SUCCESS && one != null && one.outcome() == Outcome.SUCCESS) {
            return new Granted(new Lease(one.lease()));
          }
          return new Refused(0, one == null ? reply.outcome() + ": " + reply.message()
              : one.outcome() + ": " + one.message());
        });
  }

  @Override
  public void giveBack(Held lease, Duration wait) {
    SlotLease held = ((Lease) lease).lease();
    try {
      transport.call(new Request.ReturnLease(held.leaseId(), held.version(), 0),
          Response.ReturnReply.class).get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // The lease ends by itself at its expiry plus grace; nothing else is owed.
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A lease no longer used is handed back at once, without waiting for the answer. */
  @Override
  public void lost(Held lease) {
    SlotLease held = ((Lease) lease).lease();
    transport.call(new Request.ReturnLease(held.leaseId(), held.version(), 0),
        Response.ReturnReply.class);
  }

  @Override
  public String describe() {
    return tenant + "/" + resource + " " + holder;
  }
}
