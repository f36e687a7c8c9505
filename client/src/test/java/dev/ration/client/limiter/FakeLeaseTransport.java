package dev.ration.client.limiter;

import dev.ration.client.limiter.internal.LeaseTransport;

import dev.ration.wire.Mode;

import dev.ration.wire.lease.LeaseView;

import dev.ration.wire.Outcome;
import dev.ration.protocol.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A scripted transport: records every call with the future the test completes by hand. Not a
 * ledger: the test decides every answer. Thread-safe enough for single-threaded tests.
 */
final class FakeLeaseTransport implements LeaseTransport {
  record Call(String kind, long requestId, long leaseId, long version, long demandRate, long demandBurst,
      long admittedPerSecond, long rejectedPerSecond, long emergencyUsed, long unused,
      CompletableFuture<Response.LeaseReply> reply, CompletableFuture<Response.ReturnReply> returnReply) {}

  final List<Call> calls = new ArrayList<>();
  private long lastRequestId;

  @Override
  public synchronized long nextRequestId() {
    return ++lastRequestId;
  }
  /** Runs inside returnLease (e.g. to check the bucket is already invalid). */
  Consumer<Call> onReturn = c -> { };

  @Override
  public synchronized CompletableFuture<Response.LeaseReply> acquire(long requestId,
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst) {
    CompletableFuture<Response.LeaseReply> f = new CompletableFuture<>();
    calls.add(new Call("acquire", requestId, 0, 0, demandRatePerSecond, demandBurst, 0, 0, 0, 0, f, null));
    return f;
  }

  @Override
  public synchronized CompletableFuture<Response.LeaseReply> renew(long requestId, long leaseId, long presentedVersion,
      long demandRatePerSecond, long demandBurst, long admittedPerSecond, long rejectedPerSecond, long emergencyUsed) {
    CompletableFuture<Response.LeaseReply> f = new CompletableFuture<>();
    calls.add(new Call("renew", requestId, leaseId, presentedVersion, demandRatePerSecond, demandBurst,
        admittedPerSecond, rejectedPerSecond, emergencyUsed, 0, f, null));
    return f;
  }

  @Override
  public synchronized CompletableFuture<Response.ReturnReply> returnLease(long requestId, long leaseId, long presentedVersion, long unusedBalance) {
    CompletableFuture<Response.ReturnReply> f = new CompletableFuture<>();
    Call c = new Call("return", requestId, leaseId, presentedVersion, 0, 0, 0, 0, 0, unusedBalance, null, f);
    calls.add(c);
    onReturn.accept(c);
    return f;
  }

  synchronized List<Call> of(String kind) {
    return calls.stream().filter(c -> c.kind().equals(kind)).toList();
  }

  synchronized Call last(String kind) {
    List<Call> l = of(kind);
    if (l.isEmpty()) {
      throw new AssertionError("no " + kind + " call among " + calls);
    }
    return l.get(l.size() - 1);
  }

  static LeaseView lease(long leaseId, long epoch, long version, long rate, long burst,
      long durationMillis, Mode mode, long emergency) {
    return new LeaseView(leaseId, "t", "r", "h", epoch, version, rate, burst, rate, burst,
        0, durationMillis, durationMillis + 100, mode, emergency, durationMillis);
  }

  static Response.LeaseReply granted(LeaseView lease, long startBalance) {
    return new Response.LeaseReply(Outcome.SUCCESS, "", 0, lease.version(), lease, startBalance);
  }

  static Response.LeaseReply rejected(Outcome outcome, long retryAfterMillis) {
    return new Response.LeaseReply(outcome, "scripted", retryAfterMillis, 0, null, 0);
  }
}
