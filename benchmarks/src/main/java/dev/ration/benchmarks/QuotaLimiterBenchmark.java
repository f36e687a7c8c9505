package dev.ration.benchmarks;

import dev.ration.client.limiter.LimiterScheduler;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaLimiter;
import dev.ration.client.quota.QuotaLimiterOptions;
import dev.ration.client.quota.internal.QuotaAccess;
import dev.ration.client.transport.Transport;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.QuotaResponse;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.wire.Outcome;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * {@code QuotaLimiter.tryAcquire}: a quota check at a three-level scope path
 * ({@code org/tenant/project}) decided from the process's budget, which counts every level at
 * once. The limiter runs over an in-process coordinator that grants every budget in full at once
 * (the check never waits on the network and never runs dry), with its real scheduler, clock and
 * renewals. Variants: one thread; two threads on one scope (one contended counter); two threads
 * each on its own project of one tenant; and a refusal (a budget of zero: the exhausted path).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class QuotaLimiterBenchmark {
  static final String SCOPE = "acme/shop/web";
  static final String RESOURCE = "api-calls";

  private ScheduledExecutorService executor;
  private QuotaLimiter limiter;

  /** Each benchmark thread's own project, for the variant without a shared counter. */
  @State(Scope.Thread)
  public static class OwnScope {
    private static final AtomicInteger NEXT = new AtomicInteger();
    String scope;

    @Setup
    public void setup(QuotaLimiterBenchmark b) {
      scope = "acme/shop/p" + NEXT.getAndIncrement();
      b.ready(scope);
    }
  }

  /** Grants every budget whole (10^15), renews it whole, takes returns; no network. */
  static final class InProcessCoordinator implements Transport {
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong requestIds = new AtomicLong();
    private final long now = 1_000;

    @Override
    public CompletableFuture<Response> call(Request request) {
      return CompletableFuture.completedFuture(answer(request));
    }

    @Override
    public long nextRequestId() {
      return requestIds.incrementAndGet();
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(long requestId, Request request,
        Class<T> replyType) {
      return CompletableFuture.completedFuture(replyType.cast(answer(request)));
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(Request request, Class<T> replyType) {
      return call(nextRequestId(), request, replyType);
    }

    private Response answer(Request request) {
      QuotaRequest q = ((Request.Quota) request).request();
      long lease = Duration.ofMinutes(10).toMillis();
      if (q instanceof QuotaRequest.GrantBudget g) {
        long granted = g.scope().endsWith("/empty") ? 0 : 1_000_000_000_000_000L;
        return new Response.Quota(granted == 0
            ? new QuotaResponse.BudgetGrantReply(Outcome.LIMIT_EXHAUSTED, "none", g.scope(),
                g.resource(), 600_000, 0, 0, 0, 0, 0, 0, 0)
            : new QuotaResponse.BudgetGrantReply(Outcome.SUCCESS, "", "", "", 0,
                ids.incrementAndGet(), granted, now + lease, now + 3_600_000, 1, now, 0));
      }
      if (q instanceof QuotaRequest.ReportBudgets r) {
        return new Response.Quota(new QuotaResponse.BudgetReportsReply(Outcome.SUCCESS, "",
            r.reports().stream().map(b -> new QuotaResponse.BudgetReportInfo(Outcome.SUCCESS, "",
                b.budgetId(), b.wantAmount(), b.spent(), now + lease, now + 3_600_000, false,
                false, now)).toList()));
      }
      if (q instanceof QuotaRequest.ReturnBudget r) {
        return new Response.Quota(new QuotaResponse.BudgetReturnReply(Outcome.SUCCESS, "",
            r.budgetId(), r.spent(), 0));
      }
      throw new IllegalArgumentException("not a budget call: " + q);
    }
  }

  @Setup
  public void setup() {
    executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "quota-limiter-bench");
      t.setDaemon(true);
      return t;
    });
    QuotaClient client = QuotaAccess.client(new InProcessCoordinator());
    limiter = QuotaAccess.limiter(client, LimiterScheduler.of(executor), System::nanoTime, "bench",
        QuotaLimiterOptions.defaults().withLease(Duration.ofMinutes(10)));
    ready(SCOPE);
    limiter.tryAcquire("acme/shop/empty", RESOURCE, 1);
  }

  void ready(String scope) {
    if (!limiter.awaitReady(scope, RESOURCE, Duration.ofSeconds(10))) {
      throw new IllegalStateException("no budget for " + scope);
    }
  }

  @TearDown
  public void tearDown() {
    limiter.close();
    executor.shutdownNow();
  }

  @Benchmark
  public boolean oneThread() {
    return limiter.tryAcquire(SCOPE, RESOURCE, 1);
  }

  @Benchmark
  @Threads(2)
  public boolean twoThreadsOneScope() {
    return limiter.tryAcquire(SCOPE, RESOURCE, 1);
  }

  @Benchmark
  @Threads(2)
  public boolean twoThreadsOwnScopes(OwnScope own) {
    return limiter.tryAcquire(own.scope, RESOURCE, 1);
  }

  /** The exhausted path: no budget could be granted here. */
  @Benchmark
  public boolean refused() {
    return limiter.tryAcquire("acme/shop/empty", RESOURCE, 1);
  }

  /** The clock read alone: part of every check. */
  @Benchmark
  public long clockOnly() {
    return System.nanoTime();
  }
}
