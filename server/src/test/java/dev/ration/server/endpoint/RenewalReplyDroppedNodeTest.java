package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.limiter.ManualScheduler;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.protocol.Kind;
import dev.ration.server.RationNode;
import dev.ration.server.config.ServerConfig;
import dev.ration.testkit.Waits;
import dev.ration.wire.Mode;
import dev.ration.wire.Outcome;
import dev.ration.client.limiter.LimitInfo;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A renewal whose reply is lost on the way back, against a real node: the node applies the
 * renewal (and counts the emergency tokens it reports), the connection closes before the reply
 * reaches the client, and the limiter resends the renewal. The resend carries the request id of
 * the first send, so the node answers it from its idempotency record and counts the emergency
 * tokens once, not once per attempt.
 *
 * <p>The client makes no retries of its own here ({@code maxRetries} 0): the resend under test
 * is the limiter's. A frame-aware TCP proxy between client and node cuts connections, refuses
 * them, or drops the reply to one request; the limiter runs on a manual clock so that its lease
 * expires locally (and it spends emergency tokens) without waiting seconds of real time.
 */
class RenewalReplyDroppedNodeTest {
  private static final long MS = 1_000_000L;

  @Test
  void aResentRenewalIsCountedOnce(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    ManualScheduler sched = new ManualScheduler(java.time.Duration.ofNanos(1_000_000_000L));
    try (FrameProxy proxy = new FrameProxy(c.clientAddress());
        RationClient admin = new RationClient(RationClientOptions.builder()
            .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build());
        RationClient client = new RationClient(RationClientOptions.builder()
            .address(proxy.address()).requestDeadline(Duration.ofSeconds(5)).maxRetries(0).build())) {
      assertEquals(Outcome.SUCCESS, Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
          .retrying("a leader accepting SetLimit", e -> e instanceof RuntimeException,
              () -> admin.setLimit(LimitSpec.builder("acme", "api").ratePerSecond(1_000).burst(1_000)
                  .mode(Mode.BEST_EFFORT).emergency(5).leaseDuration(Duration.ofSeconds(60))
                  .grace(Duration.ofSeconds(5)).build())).outcome());

      RateLimiter limiter = client.rateLimiter("acme", "api", "eu", LimiterOptions.builder()
          .manual(sched).demand(10, 10).jitterRandom(new SplittableRandom(7)).build());
      limiter.tryAcquire(1);
      await("the first lease", sched, limiter::ready);
      long firstLease = limiter.lease().orElseThrow().leaseId();

      // The coordinator becomes unreachable; the lease runs out on the holder's clock and the
      // limiter spends 3 of its 5 emergency tokens (best-effort mode).
      proxy.refuse(true);
      // At most 60 steps of 1 s on the holder's clock, 20 ms of real time apart: the refused
      // attempts fail on the client's event loop in between.
      java.util.concurrent.atomic.AtomicInteger steps = new java.util.concurrent.atomic.AtomicInteger();
      Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(20)).until("local expiry within 60 s of the holder's clock",
          () -> {
            // The 61st check only looks, 20 ms after the last step.
            if (!limiter.inEmergency() && steps.getAndIncrement() < 60) {
              sched.advance(java.time.Duration.ofNanos(1_000 * MS));
            }
            return steps.get();
          }, n -> limiter.inEmergency() || n > 60);
      assertTrue(limiter.inEmergency(), "the lease expired locally");
      assertTrue(limiter.tryAcquire(3), "admitted from the emergency budget");
      assertEquals(3, limiter.emergencySpentTotal());

      // Reachable again: the limiter gets a new lease; its first renewal reports the 3 tokens.
      proxy.refuse(false);
      await("a new lease", sched, () -> limiter.lease().map(l -> l.leaseId() != firstLease).orElse(false)
          && !limiter.inEmergency());
      assertEquals(3, limiter.emergencyUnreported(), "to be reported by the next renewal");
      // The client's renewals travel in RENEW_LEASES frames (its coalescer), this one alone.
      // Frames sent before this point (the first lease's renewal, cut when the proxy began
      // refusing) are not this renewal's.
      int earlier = proxy.sent(Kind.RENEW_LEASES.code()).size();
      proxy.dropReplyToNext(Kind.RENEW_LEASES.code());
      await("the renewal's reply dropped and the renewal resent", sched,
          () -> proxy.sent(Kind.RENEW_LEASES.code()).size() >= earlier + 2 && limiter.emergencyUnreported() == 0);

      assertEquals(List.of(), proxy.sent(Kind.RENEW_LEASE.code()), "no renewal went alone");
      List<Long> all = proxy.sent(Kind.RENEW_LEASES.code());
      List<Long> renewals = all.subList(earlier, all.size());
      assertEquals(1, proxy.dropped(), "one reply was dropped");
      assertEquals(renewals.get(0), renewals.get(1), "the resend reuses the first send's request id");
      LimitInfo status = admin.getLimit("acme", "api").orElseThrow();
      assertEquals(3, status.emergencyReported(),
          "the node counts the reported emergency tokens once: " + status);
      limiter.closeAsync();
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }

  /**
   * Three renewals coalesced into one frame (sent while a first renewal's frame is outstanding)
   * whose reply is lost: two live leases reporting
   * emergency tokens and one returned lease. The node applies the frame; the first holder's
   * resend resends the frame under its request id and is answered from the node's record; the
   * second holder's resend is answered from the coalescer, with nothing sent. Each lease is
   * answered on its own (the returned one alone fails), and the emergency tokens are counted
   * once.
   */
  @Test
  void aResentCoalescedFrameIsCountedOnceAndFailsOnlyItsStaleLease(@TempDir Path dir) throws Exception {
    ServerConfig c = NameBoundNodeTest.config(dir, 128);
    RationNode node = RationNode.start(c);
    try (FrameProxy proxy = new FrameProxy(c.clientAddress());
        RationClient admin = new RationClient(RationClientOptions.builder()
            .address(c.clientAddress()).requestDeadline(Duration.ofSeconds(20)).build());
        RationClient client = new RationClient(RationClientOptions.builder()
            .address(proxy.address()).requestDeadline(Duration.ofSeconds(5)).maxRetries(0).build())) {
      assertEquals(Outcome.SUCCESS, Waits.upTo(Duration.ofSeconds(40)).every(Duration.ofMillis(100))
          .retrying("a leader accepting SetLimit", e -> e instanceof RuntimeException,
              () -> admin.setLimit(LimitSpec.builder("acme", "api").ratePerSecond(1_000).burst(1_000)
                  .mode(Mode.BEST_EFFORT).emergency(50).leaseDuration(Duration.ofSeconds(60))
                  .grace(Duration.ofSeconds(5)).build())).outcome());
      dev.ration.client.limiter.LeaseInfo a = client.acquireLease("acme", "api", "a", 10, 10).lease().orElseThrow();
      dev.ration.client.limiter.LeaseInfo b = client.acquireLease("acme", "api", "b", 10, 10).lease().orElseThrow();
      dev.ration.client.limiter.LeaseInfo gone = client.acquireLease("acme", "api", "c", 10, 10).lease().orElseThrow();
      assertEquals(Outcome.SUCCESS, client.returnLease(gone.leaseId(), gone.version(), 0).outcome());

      dev.ration.client.limiter.LeaseInfo occupying = client.acquireLease("acme", "api", "d", 10, 10).lease().orElseThrow();
      dev.ration.client.transport.RawClient raw = dev.ration.client.transport.RawClient.of(client);
      // The coalescer sends a renewal at once when none of its frames is outstanding: a first
      // renewal whose answer the test holds back makes the next three share a frame.
      HeldAnswers held = new HeldAnswers(raw);
      dev.ration.client.transport.RenewalCoalescer coalescer = new dev.ration.client.transport.RenewalCoalescer(
          held, 1, Duration.ofSeconds(60), System::nanoTime);
      var occupier = coalescer.call(raw.nextRequestId(), new dev.ration.protocol.Request.RenewLease(
          occupying.leaseId(), occupying.version(), 10, 10, 0, 0, 0), dev.ration.protocol.Response.LeaseReply.class);
      held.awaitAnswered();
      long idA = raw.nextRequestId();
      long idB = raw.nextRequestId();
      long idGone = raw.nextRequestId();
      dev.ration.protocol.Request.RenewLease renewA =
          new dev.ration.protocol.Request.RenewLease(a.leaseId(), a.version(), 10, 10, 5, 0, 3);
      dev.ration.protocol.Request.RenewLease renewB =
          new dev.ration.protocol.Request.RenewLease(b.leaseId(), b.version(), 10, 10, 5, 0, 4);
      dev.ration.protocol.Request.RenewLease renewGone =
          new dev.ration.protocol.Request.RenewLease(gone.leaseId(), gone.version(), 10, 10, 0, 0, 0);
      Class<dev.ration.protocol.Response.LeaseReply> reply =
          dev.ration.protocol.Response.LeaseReply.class;

      var firstA = coalescer.call(idA, renewA, reply);
      var firstB = coalescer.call(idB, renewB, reply);
      var firstGone = coalescer.call(idGone, renewGone, reply);
      proxy.dropReplyToNext(Kind.RENEW_LEASES.code());
      held.release();
      assertEquals(Outcome.SUCCESS, occupier.get(30, java.util.concurrent.TimeUnit.SECONDS).outcome());
      for (var f : List.of(firstA, firstB, firstGone)) {
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> f.get(30, java.util.concurrent.TimeUnit.SECONDS));
        assertTrue(e.getCause() != null, "the frame's reply was lost: " + e);
      }
      assertEquals(1, proxy.dropped(), "the frame's reply was dropped");
      assertEquals(2, proxy.sent(Kind.RENEW_LEASES.code()).size(), "the occupier's frame, then three renewals in one");

      var answerA = coalescer.call(idA, renewA, reply).get(30, java.util.concurrent.TimeUnit.SECONDS);
      List<Long> frames = proxy.sent(Kind.RENEW_LEASES.code());
      assertEquals(3, frames.size(), "the frame was resent once");
      assertEquals(frames.get(1), frames.get(2), "under its first request id");
      var answerB = coalescer.call(idB, renewB, reply).get(30, java.util.concurrent.TimeUnit.SECONDS);
      var answerGone = coalescer.call(idGone, renewGone, reply).get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(3, proxy.sent(Kind.RENEW_LEASES.code()).size(), "the other resends sent nothing");

      assertEquals(Outcome.SUCCESS, answerA.outcome(), answerA.message());
      assertEquals(Outcome.SUCCESS, answerB.outcome(), answerB.message());
      assertEquals(Outcome.LEASE_EXPIRED, answerGone.outcome(), "only the returned lease fails: " + answerGone);
      LimitInfo status = admin.getLimit("acme", "api").orElseThrow();
      assertEquals(7, status.emergencyReported(),
          "3 + 4 emergency tokens counted once, not once per send: " + status);
    } finally {
      node.shutdown();
      node.awaitTermination(Duration.ofSeconds(30));
    }
  }

  /** Advances the manual clock in small steps, letting replies arrive, until {@code done}. */
  private static void await(String what, ManualScheduler sched, java.util.function.BooleanSupplier done) {
    Waits.upTo(Duration.ofSeconds(60)).every(Duration.ofMillis(20)).until(what, () -> {
      sched.advance(java.time.Duration.ofNanos(20 * MS));
      return done.getAsBoolean();
    }, ok -> ok);
  }

  /**
   * A transport that sends every call at once through {@code inner} and holds back the answer
   * to the first until {@link #release}: the coalescer sees that frame outstanding meanwhile.
   */
  static final class HeldAnswers implements dev.ration.client.transport.RawClient {
    private final dev.ration.client.transport.RawClient inner;
    private final java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
    private final java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);

    HeldAnswers(dev.ration.client.transport.RawClient inner) {
      this.inner = inner;
    }

    void awaitAnswered() throws InterruptedException {
      assertTrue(answered.await(30, java.util.concurrent.TimeUnit.SECONDS), "the held call was answered");
    }

    void release() {
      gate.complete(null);
    }

    @Override
    public long nextRequestId() {
      return inner.nextRequestId();
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.ration.protocol.Response> call(dev.ration.protocol.Request request) {
      return inner.call(request);
    }

    @Override
    public <T extends dev.ration.protocol.Response> java.util.concurrent.CompletableFuture<T> call(
        dev.ration.protocol.Request request, Class<T> replyType) {
      return inner.call(request, replyType);
    }

    @Override
    public <T extends dev.ration.protocol.Response> java.util.concurrent.CompletableFuture<T> call(
        long requestId, dev.ration.protocol.Request request, Class<T> replyType) {
      java.util.concurrent.CompletableFuture<T> f = inner.call(requestId, request, replyType);
      if (!first.getAndSet(false)) {
        return f;
      }
      f.whenComplete((r, e) -> answered.countDown());
      return f.thenCombine(gate, (r, ignored) -> r);
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.ration.protocol.Response> call(
        dev.ration.protocol.Request request, Duration deadline) {
      return inner.call(request, deadline);
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.ration.protocol.Response> call(
        long requestId, dev.ration.protocol.Request request, Duration deadline) {
      return inner.call(requestId, request, deadline);
    }

    @Override
    public java.util.concurrent.CompletableFuture<dev.ration.protocol.Response.ClusterStatusReply> clusterStatus(String address) {
      return inner.clusterStatus(address);
    }
  }

  /**
   * A TCP proxy that reads frames ({@code u32 length | u8 version | u8 kind | u64 requestId |
   * payload}) in both directions. It records the request ids of the requests it forwards, can
   * refuse connections, and can drop the reply to the next request of a kind, closing that
   * connection instead of forwarding it: the request reached the node, its answer never reached
   * the client.
   */
  static final class FrameProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<long[]> forwarded = new ConcurrentLinkedQueue<>();
    private volatile boolean refusing;
    private volatile int dropKind = -1;
    private volatile long dropId = -1;
    private volatile int dropped;
    private final Thread acceptor;

    FrameProxy(String targetAddress) throws IOException {
      int colon = targetAddress.lastIndexOf(':');
      target = new InetSocketAddress(targetAddress.substring(0, colon),
          Integer.parseInt(targetAddress.substring(colon + 1)));
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor = new Thread(this::acceptLoop, "frame-proxy-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String address() {
      return "127.0.0.1:" + listener.getLocalPort();
    }

    /** Refuse (accept and close at once) new connections and cut the open ones; or stop. */
    void refuse(boolean on) {
      refusing = on;
      if (on) {
        open.forEach(FrameProxy::closeQuietly);
      }
    }

    /** Drops the reply to the next forwarded request of {@code kind}. */
    void dropReplyToNext(int kind) {
      dropKind = kind;
    }

    int dropped() {
      return dropped;
    }

    /** Request ids of the forwarded requests of {@code kind}, in order. */
    List<Long> sent(int kind) {
      List<Long> ids = new ArrayList<>();
      for (long[] f : forwarded) {
        if (f[0] == kind) {
          ids.add(f[1]);
        }
      }
      return ids;
    }

    private void acceptLoop() {
      while (!listener.isClosed()) {
        try {
          Socket client = listener.accept();
          if (refusing) {
            closeQuietly(client);
            continue;
          }
          Socket server = new Socket(target.getAddress(), target.getPort());
          open.add(client);
          open.add(server);
          pump(client, server, true);
          pump(server, client, false);
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    private void pump(Socket from, Socket to, boolean requests) {
      Thread t = new Thread(() -> {
        try (DataInputStream in = new DataInputStream(from.getInputStream())) {
          DataOutputStream out = new DataOutputStream(to.getOutputStream());
          while (true) {
            int length = in.readInt();
            byte[] body = new byte[length];
            in.readFully(body);
            int kind = body[1] & 0xff;
            long requestId = java.nio.ByteBuffer.wrap(body, 2, 8).getLong();
            if (requests) {
              forwarded.add(new long[] {kind, requestId});
              if (kind == dropKind && dropId < 0) {
                dropId = requestId;
                dropKind = -1;
              }
            } else if (requestId == dropId) {
              dropId = -2; // once
              dropped++;
              closeQuietly(from);
              closeQuietly(to);
              return;
            }
            out.writeInt(length);
            out.write(body);
            out.flush();
          }
        } catch (IOException e) {
          closeQuietly(from);
          closeQuietly(to);
        }
      }, requests ? "frame-proxy-requests" : "frame-proxy-replies");
      t.setDaemon(true);
      t.start();
    }

    private static void closeQuietly(Socket s) {
      try {
        s.close();
      } catch (IOException ignored) {
        // already closed
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      open.forEach(FrameProxy::closeQuietly);
    }
  }
}
