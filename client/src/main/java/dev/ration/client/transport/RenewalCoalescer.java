package dev.ration.client.transport;

import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A {@link RawClient} that sends the renewals of one client's holders together, without a fixed
 * wait (as Nagle's algorithm does for TCP): a single lease renewal (RENEW_LEASE) or a one-entry
 * slot renewal (RENEW_SLOTS) goes out at once, in a frame of its own, when fewer than
 * {@code maxFramesInFlight} frames of its family are waiting for their answer; otherwise it
 * waits, and every renewal of the same family that arrives meanwhile goes in the next
 * RENEW_LEASES or RENEW_SLOTS frame, sent when an answer frees the window (or at once when it
 * is full: the frame's bound). So a lone caller never waits for company, and many callers share
 * a frame per round trip. The ledger judges and answers each entry on its own, so each caller
 * gets the answer to its own renewal, exactly as if it had been sent alone. Every other call
 * passes through unchanged.
 *
 * <p><b>Idempotency per renewal.</b> A holder resends a renewal whose answer it did not get
 * under the same request id and with the same fields, and relies on the ledger applying it at
 * most once (its demand and emergency report counted once). A frame has one request id, so the
 * coalescer keeps that promise by keeping a renewal in the frame it first went out in: the
 * resend of any renewal of a frame that failed without an answer resends <i>that frame</i>,
 * byte for byte, under the frame's request id (the ledger answers it from its idempotency
 * record if the first send was applied), and an answer that arrives for a renewal whose caller
 * already gave up is kept until that caller resends. A renewal is never moved into another
 * frame, which would be a second, independent application. A resend whose fields differ from
 * the first send is refused: it is a different renewal under a reused request id.
 *
 * <p><b>Bounds.</b> Frames and answers are forgotten once every renewal in them was answered to
 * its caller, or {@code retention} after the frame was made (a holder that gave up a renewal
 * never resends it; holders resend within their lease duration).
 *
 * <p>Thread-safe; callers' futures are completed outside its lock.
 */
public final class RenewalCoalescer implements RawClient {
  private final RawClient inner;
  private final int maxFramesInFlight;
  private final long retentionNanos;
  private final LongSupplier nanoClock;
  private final Lane<Request.RenewLease, Response.LeaseReply> leases;
  private final Lane<Request.SlotRenewal, Response.SlotLeaseReply> slots;
  private long framesSent;
  private long renewalsSent;

  /**
   * A coalescer over {@code inner}.
   *
   * @param inner the transport the frames go through (with its own retries and routing)
   * @param maxFramesInFlight frames of one family sent and not yet answered before renewals
   *     wait for an answer to go out together, at least 1
   * @param retention how long a frame's renewals stay resendable and its answers kept
   * @param nanoClock a monotonic clock, for retention
   */
  public RenewalCoalescer(RawClient inner, int maxFramesInFlight, Duration retention,
      LongSupplier nanoClock) {
    if (inner == null || nanoClock == null) {
      throw new IllegalArgumentException("inner and nanoClock are required");
    }
    if (maxFramesInFlight < 1 || retention == null || retention.isNegative() || retention.isZero()) {
      throw new IllegalArgumentException("maxFramesInFlight " + maxFramesInFlight
          + " must be >= 1 and retention " + retention + " > 0");
    }
    this.inner = inner;
    this.maxFramesInFlight = maxFramesInFlight;
    this.retentionNanos = retention.toNanos();
    this.nanoClock = nanoClock;
    this.leases = new Lane<>(Request.RenewLeases.MAX_RENEWALS, Request.RenewLeases::new,
        Response.RenewalsReply.class,
        r -> {
          Response.RenewalsReply rr = (Response.RenewalsReply) r;
          return rr.outcome() == Outcome.SUCCESS ? rr.replies() : null;
        },
        r -> {
          Response.RenewalsReply rr = (Response.RenewalsReply) r;
          return new Response.LeaseReply(rr.outcome(), rr.message(), 0, 0, null, 0);
        });
    this.slots = new Lane<>(Request.RenewSlots.MAX_RENEWALS, Request.RenewSlots::new,
        Response.SlotRenewalsReply.class,
        r -> {
          Response.SlotRenewalsReply sr = (Response.SlotRenewalsReply) r;
          return sr.outcome() == Outcome.SUCCESS ? sr.replies() : null;
        },
        r -> {
          Response.SlotRenewalsReply sr = (Response.SlotRenewalsReply) r;
          return new Response.SlotLeaseReply(sr.outcome(), sr.message(), 0, 0, null);
        });
  }

  /**
   * Frames sent so far (first sends and resends).
   *
   * @return the frame count
   */
  public synchronized long framesSent() {
    return framesSent;
  }

  /**
   * Renewals sent so far in those frames (a resent frame counts its renewals again).
   *
   * @return the renewal count
   */
  public synchronized long renewalsSent() {
    return renewalsSent;
  }

  // ------------------------------------------------------------------ RawClient

  @Override
  public long nextRequestId() {
    return inner.nextRequestId();
  }

  @Override
  public CompletableFuture<Response> call(Request request) {
    return call(inner.nextRequestId(), request, Response.class);
  }

  @Override
  public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
    return call(inner.nextRequestId(), request, replyType);
  }

  @Override
  public <T extends Response> CompletableFuture<T> call(long requestId, Request request, Class<T> replyType) {
    if (request instanceof Request.RenewLease r && replyType.isAssignableFrom(Response.LeaseReply.class)) {
      return leases.renew(requestId, r).thenApply(replyType::cast);
    }
    if (request instanceof Request.RenewSlots s && s.renewals().size() == 1
        && replyType.isAssignableFrom(Response.SlotRenewalsReply.class)) {
      return slots.renew(requestId, s.renewals().get(0)).thenApply(one ->
          replyType.cast(new Response.SlotRenewalsReply(Outcome.SUCCESS, "", List.of(one))));
    }
    return inner.call(requestId, request, replyType);
  }

  @Override
  public CompletableFuture<Response> call(Request request, Duration deadline) {
    return inner.call(request, deadline);
  }

  @Override
  public CompletableFuture<Response> call(long requestId, Request request, Duration deadline) {
    return inner.call(requestId, request, deadline);
  }

  @Override
  public CompletableFuture<Response.ClusterStatusReply> clusterStatus(String address) {
    return inner.clusterStatus(address);
  }

  // ------------------------------------------------------------------ one family of renewals

  /** A frame: its request id and bytes are fixed when it is made, for every resend. */
  private static final class Frame<E, R> {
    final long requestId;
    final Request request;
    final List<Member<E, R>> members;
    final long madeAtNanos;
    boolean inFlight;

    Frame(long requestId, Request request, List<Member<E, R>> members, long madeAtNanos) {
      this.requestId = requestId;
      this.request = request;
      this.members = members;
      this.madeAtNanos = madeAtNanos;
    }
  }

  /** One renewal: the caller's request id, its fields, its frame once made, its answer once in. */
  private static final class Member<E, R> {
    final long requestId;
    final E entry;
    final long arrivedAtNanos;
    final List<CompletableFuture<R>> waiting = new ArrayList<>(1);
    Frame<E, R> frame;
    R answer;

    Member(long requestId, E entry, long arrivedAtNanos) {
      this.requestId = requestId;
      this.entry = entry;
      this.arrivedAtNanos = arrivedAtNanos;
    }
  }

  private final class Lane<E, R> {
    final int maxPerFrame;
    final Function<List<E>, Request> frameOf;
    final Class<? extends Response> replyType;
    /** The per-entry answers of a reply, or null when the whole frame was refused. */
    final Function<Response, List<R>> answersOf;
    final Function<Response, R> refusalOf;
    /** Every renewal not yet answered to its caller, by the caller's request id, oldest first. */
    final LinkedHashMap<Long, Member<E, R>> members = new LinkedHashMap<>();
    /** Renewals not yet in a frame: they go out when an answer frees the window. */
    List<Member<E, R>> pending = new ArrayList<>();
    /** Frames of this family sent (first sends and resends) and not yet answered. */
    int framesInFlight;

    Lane(int maxPerFrame, Function<List<E>, Request> frameOf, Class<? extends Response> replyType,
        Function<Response, List<R>> answersOf, Function<Response, R> refusalOf) {
      this.maxPerFrame = maxPerFrame;
      this.frameOf = frameOf;
      this.replyType = replyType;
      this.answersOf = answersOf;
      this.refusalOf = refusalOf;
    }

    CompletableFuture<R> renew(long requestId, E entry) {
      CompletableFuture<R> f = new CompletableFuture<>();
      Frame<E, R> resend = null;
      List<Frame<E, R>> frames = List.of();
      synchronized (RenewalCoalescer.this) {
        long now = nanoClock.getAsLong();
        forgetOld(now);
        Member<E, R> m = members.get(requestId);
        if (m != null) {
          if (!m.entry.equals(entry)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("request id "
                + requestId + " was first sent as " + m.entry + ", now as " + entry));
          }
          if (m.answer != null) {
            members.remove(requestId);
            return CompletableFuture.completedFuture(m.answer);
          }
          m.waiting.add(f);
          if (m.frame != null && !m.frame.inFlight) {
            m.frame.inFlight = true;
            framesInFlight++;
            resend = m.frame;
          }
        } else {
          m = new Member<>(requestId, entry, now);
          m.waiting.add(f);
          members.put(requestId, m);
          pending.add(m);
          if (framesInFlight < maxFramesInFlight || pending.size() >= maxPerFrame) {
            frames = takePending(now);
          }
        }
      }
      if (resend != null) {
        send(resend);
      }
      frames.forEach(this::send);
      return f;
    }

    /** Makes frames of the pending renewals, counted in flight. Caller holds the lock. */
    private List<Frame<E, R>> takePending(long now) {
      if (pending.isEmpty()) {
        return List.of();
      }
      List<Member<E, R>> batch = pending;
      pending = new ArrayList<>();
      List<Frame<E, R>> frames = new ArrayList<>();
      for (int from = 0; from < batch.size(); from += maxPerFrame) {
        List<Member<E, R>> chunk = List.copyOf(batch.subList(from, Math.min(batch.size(), from + maxPerFrame)));
        List<E> entries = new ArrayList<>(chunk.size());
        for (Member<E, R> m : chunk) {
          entries.add(m.entry);
        }
        Frame<E, R> frame = new Frame<>(inner.nextRequestId(), frameOf.apply(entries), chunk, now);
        frame.inFlight = true;
        for (Member<E, R> m : chunk) {
          m.frame = frame;
        }
        frames.add(frame);
      }
      framesInFlight += frames.size();
      return frames;
    }

    @SuppressWarnings("unchecked")
    private void send(Frame<E, R> frame) {
      synchronized (RenewalCoalescer.this) {
        framesSent++;
        renewalsSent += frame.members.size();
      }
      CompletableFuture<? extends Response> reply;
      try {
        reply = inner.call(frame.requestId, frame.request, replyType);
      } catch (RuntimeException e) {
        reply = CompletableFuture.failedFuture(e);
      }
      reply.whenComplete((r, err) -> answered(frame, r, err));
    }

    private void answered(Frame<E, R> frame, Response reply, Throwable err) {
      List<Runnable> completions = new ArrayList<>();
      List<Frame<E, R>> next = List.of();
      synchronized (RenewalCoalescer.this) {
        frame.inFlight = false;
        framesInFlight--;
        if (framesInFlight < maxFramesInFlight) {
          next = takePending(nanoClock.getAsLong());
        }
        List<R> answers = null;
        Throwable failure = err;
        if (failure == null) {
          answers = answersOf.apply(reply);
          if (answers == null) {
            R refused = refusalOf.apply(reply);
            answers = new ArrayList<>();
            for (int i = 0; i < frame.members.size(); i++) {
              answers.add(refused);
            }
          } else if (answers.size() != frame.members.size()) {
            failure = new IllegalStateException("a frame of " + frame.members.size()
                + " renewals was answered with " + answers.size() + " answers: " + reply);
            answers = null;
          }
        }
        for (int i = 0; i < frame.members.size(); i++) {
          Member<E, R> m = frame.members.get(i);
          List<CompletableFuture<R>> waiting = List.copyOf(m.waiting);
          m.waiting.clear();
          if (answers != null) {
            R a = answers.get(i);
            if (waiting.isEmpty()) {
              m.answer = a; // its caller gave up on this send; it gets the answer when it resends
            } else {
              members.remove(m.requestId);
            }
            waiting.forEach(w -> completions.add(() -> w.complete(a)));
          } else {
            Throwable t = failure;
            waiting.forEach(w -> completions.add(() -> w.completeExceptionally(t)));
          }
        }
      }
      completions.forEach(Runnable::run);
      next.forEach(this::send);
    }

    /** Drops renewals older than the retention that nobody waits for. Caller holds the lock. */
    private void forgetOld(long now) {
      Iterator<Map.Entry<Long, Member<E, R>>> it = members.entrySet().iterator();
      while (it.hasNext()) {
        Member<E, R> m = it.next().getValue();
        if (now - m.arrivedAtNanos < retentionNanos) {
          return; // oldest first: the rest are younger
        }
        if (m.waiting.isEmpty() && (m.frame == null || !m.frame.inFlight)) {
          it.remove();
        }
      }
    }
  }

  /** Renewals waiting for an answer or a resend, per family, for tests and metrics. */
  synchronized Map<String, Integer> held() {
    Map<String, Integer> m = new HashMap<>();
    m.put("leases", leases.members.size());
    m.put("slots", slots.members.size());
    return m;
  }
}
