package dev.ration.client.slots.internal;

import dev.ration.client.quota.BudgetReport;
import dev.ration.client.quota.BudgetReportResult;
import dev.ration.client.quota.QuotaClient;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Not API: slot budgets on the CONCURRENT quotas of a scope path (docs/QUOTAS.md, "Concurrent
 * quotas: slot budgets"), one grant counted at every level of the path. A renewal is a budget
 * report: its want is the holder's demand (the ledger shrinks the grant to it at once, or grows
 * it from what every level has free), its spend the attempts started so far (billed), and a
 * resend repeats its sequence so the ledger counts it once. A return reports the final count.
 * An unanswered grant is resent under its request id (see {@code unansweredId}).
 */
public final class QuotaSlotLedger implements SlotLedger {
  private final QuotaClient quotas;
  private final String holder;
  private final String scope;
  private final String resource;
  private final Duration lease;
  private final AtomicLong started = new AtomicLong();
  /** The last report sequence used; a report or return takes the next. */
  private final AtomicLong sequence = new AtomicLong();

  /**
   * @param quotas the client's quota calls
   * @param holder the pool's holder name
   * @param scope the scope path
   * @param resource the resource, with a CONCURRENT quota at one level of the path or more
   * @param lease how long each grant and renewal holds (1 s to 10 min)
   */
  public QuotaSlotLedger(QuotaClient quotas, String holder, String scope, String resource,
      Duration lease) {
    this.quotas = Objects.requireNonNull(quotas, "quotas");
    this.holder = Objects.requireNonNull(holder, "holder");
    this.scope = Objects.requireNonNull(scope, "scope");
    this.resource = Objects.requireNonNull(resource, "resource");
    this.lease = Objects.requireNonNull(lease, "lease");
    // A pool stops starting jobs its cancel lead (500 ms by default) before the lease's end and
    // renews every quarter of it: a lease under a second would leave it ending most of the time.
    if (lease.toMillis() < 1_000 || lease.toMillis() > 600_000) {
      throw new IllegalArgumentException("lease " + lease + " outside 1 s .. 10 min");
    }
  }

  /** A budget held; {@code base} is the start count when it was granted (its starts are above). */
  private record Budget(long id, long share, long durationMillis, long base) implements Held {}

  /**
   * The grant last sent that has no answer yet (its request id, 0 when none, and amount), resent
   * as it was under that id until one comes: the coordinator applies it at most once and answers
   * a resend with the first grant, so a grant applied after its caller gave up (a partition, a
   * lost reply) becomes this holder's budget instead of slots nobody holds until its lease ends.
   * Guarded by this.
   */
  private long unansweredId;

  private long unansweredAmount;

  @Override
  public CompletableFuture<Answer> acquire(long demand) {
    long requestId;
    long amount;
    synchronized (this) {
      if (unansweredId == 0) {
        unansweredId = quotas.nextRequestId();
        unansweredAmount = Math.max(1, demand);
      }
      requestId = unansweredId;
      amount = unansweredAmount;
    }
    return quotas.grantBudgetAsync(holder, scope, resource, amount, lease, requestId)
        .thenApply(g -> {
          answered(requestId);
          if (!g.succeeded()) {
            return new Refused(g.retryAfter().toMillis(), g.outcome() + ": " + g.message());
          }
          if (!g.windowEnd().isNever()) {
            // A windowed budget: the path's quotas of this resource are RATE or CUMULATIVE,
            // which a QuotaLimiter spends, not a pool. Hand it back unspent.
            quotas.returnBudgetAsync(g.budgetId(), 0, 1);
            return new Refused(0, "INVALID_ARGUMENT: " + resource + " at " + scope + " has RATE"
                + " or CUMULATIVE quotas: a QuotaLimiter spends them (RationClient.quotaLimiter),"
                + " not a worker pool");
          }
          return new Granted(new Budget(g.budgetId(), g.granted(), lease.toMillis(), started.get()));
        });
  }

  @Override
  public synchronized void forgetUnanswered() {
    unansweredId = 0;
  }

  private synchronized void answered(long requestId) {
    if (unansweredId == requestId) {
      unansweredId = 0;
    }
  }

  @Override
  public Supplier<CompletableFuture<Answer>> renewal(Held held, int running, int queued,
      long promise, long demand) {
    Budget b = (Budget) held;
    // The want is the promise too: the pool runs at most min(share, demand) until the answer.
    BudgetReport report;
    synchronized (this) {
      // Sequence and spend together: a later sequence never carries a smaller spend.
      report = new BudgetReport(b.id(), started.get() - b.base(), sequence.incrementAndGet(),
          Math.max(running, demand), lease);
    }
    return () -> quotas.reportBudgetsAsync(List.of(report)).thenApply(results -> {
      BudgetReportResult r = results.get(0);
      if (r.succeeded() && !r.ended()) {
        return new Granted(new Budget(b.id(), r.granted(), lease.toMillis(), b.base()));
      }
      return new Refused(0, r.succeeded() ? "the budget's lease ended" : r.outcome() + ": " + r.message());
    });
  }

  @Override
  public void giveBack(Held held, Duration wait) {
    try {
      giveBack((Budget) held).get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // The budget's slots are freed at its lease's end; its last starts are then not billed.
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A lost budget is kept lapsed a while by the ledger: returning it bills its last starts. */
  @Override
  public void lost(Held held) {
    giveBack((Budget) held);
  }

  private CompletableFuture<?> giveBack(Budget b) {
    long spent;
    long seq;
    synchronized (this) {
      spent = started.get() - b.base();
      seq = sequence.incrementAndGet();
    }
    return quotas.returnBudgetAsync(b.id(), spent, seq);
  }

  @Override
  public void attemptStarted() {
    started.incrementAndGet();
  }

  @Override
  public String describe() {
    return scope + " " + resource + " " + holder;
  }
}
