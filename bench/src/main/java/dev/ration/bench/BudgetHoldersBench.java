package dev.ration.bench;

import dev.ration.client.RationClient;
import dev.ration.client.quota.QuotaClient;
import dev.ration.client.quota.QuotaDefinition;
import dev.ration.client.quota.QuotaLimiter;
import dev.ration.client.quota.QuotaLimiterOptions;
import dev.ration.client.quota.SetQuotaResult;
import dev.ration.wire.Outcome;
import dev.ration.wire.Window;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * `ration bench --op budget-holders`: the budgets of many (scope, resource) pairs over many
 * holders, renewed by the limiters themselves. {@code holders} limiters (spread over the
 * connections) each hold the budgets of {@code pairs} projects {@code bench/t<holder>/p<k>} on
 * {@code calls} (RATE by the hour at {@code bench} and at each tenant {@code bench/t<holder>},
 * high enough that nothing is refused): holders × pairs budgets, every one reported and renewed
 * every lease/3 in one request per holder. One thread checks every pair of every holder in turn,
 * paced to {@code checksPerSecond} in all, so each report carries new spend (a usage event).
 * Reported: how long until every budget was held, the checks admitted and refused in the window
 * (a refusal means a budget was not renewed in time), and the renewal rounds sent.
 */
public final class BudgetHoldersBench {
  public record Result(int holders, int pairs, double grantSeconds, double windowSeconds,
      long ok, long refused, long warmupCompletions, long renewalRounds, long budgetsHeld) {
    double perSecond() {
      return ok / windowSeconds;
    }
  }

  private static final long LIMIT = 1_000_000_000_000L;

  private final List<RationClient> clients;
  private final int holders;
  private final int pairs;
  private final long checksPerSecond;
  private final LongSupplier clock;

  public BudgetHoldersBench(List<RationClient> clients, int holders, int pairs,
      long checksPerSecond, LongSupplier clock) {
    this.clients = List.copyOf(clients);
    this.holders = holders;
    this.pairs = pairs;
    this.checksPerSecond = checksPerSecond;
    this.clock = clock;
  }

  static String scope(int holder, int pair) {
    return "bench/t" + holder + "/p" + pair;
  }

  public Result run(long warmupNanos, long windowNanos, Duration grantTimeout, PrintWriter progress)
      throws InterruptedException {
    QuotaClient q = clients.get(0).quotas();
    set(q, "bench");
    for (int h = 0; h < holders; h++) {
      set(q, "bench/t" + h);
    }
    progress.printf(Locale.ROOT, "bench: RATE quotas on 'calls' at bench and bench/t0..t%d; "
        + "%d budgets to take%n", holders - 1, (long) holders * pairs);
    progress.flush();
    List<QuotaLimiter> limiters = new ArrayList<>();
    long grantStart = clock.getAsLong();
    try {
      for (int h = 0; h < holders; h++) {
        QuotaLimiter l = clients.get(h % clients.size()).quotaLimiter("holder-" + h,
            QuotaLimiterOptions.defaults().withAmounts(1_000, 1_000));
        limiters.add(l);
        for (int k = 0; k < pairs; k++) {
          l.tryAcquire(scope(h, k), "calls", 1); // asks for the budget
        }
      }
      long grantDeadline = grantStart + grantTimeout.toNanos();
      long held = 0;
      while (clock.getAsLong() - grantDeadline < 0) {
        held = limiters.stream().mapToLong(QuotaLimiter::budgetsHeld).sum();
        if (held == (long) holders * pairs) {
          break;
        }
        Thread.sleep(100); // polls the limiters, bounded by the grant timeout
      }
      if (held < (long) holders * pairs) {
        throw new IllegalStateException("bench: " + held + " of " + (long) holders * pairs
            + " budgets held after " + grantTimeout);
      }
      double grantSeconds = (clock.getAsLong() - grantStart) / 1e9;
      progress.printf(Locale.ROOT, "bench: %d budgets held after %.1f s%n", held, grantSeconds);
      progress.flush();
      long roundsBefore = limiters.stream().mapToLong(QuotaLimiter::renewalRounds).sum();
      long start = clock.getAsLong();
      long measureStart = start + warmupNanos;
      long measureEnd = measureStart + windowNanos;
      long gapNanos = Math.max(1, 1_000_000_000L / Math.max(1, checksPerSecond));
      long ok = 0;
      long refused = 0;
      long warmup = 0;
      long next = start;
      int h = 0;
      int k = 0;
      while (true) {
        long now = clock.getAsLong();
        if (now - measureEnd >= 0) {
          break;
        }
        if (next - now > 0) {
          Thread.sleep(Math.max(0, (next - now) / 1_000_000), (int) ((next - now) % 1_000_000));
          continue;
        }
        next += gapNanos;
        boolean admitted = limiters.get(h).tryAcquire(scope(h, k), "calls", 1);
        if (now - measureStart < 0) {
          warmup++;
        } else if (admitted) {
          ok++;
        } else {
          refused++;
        }
        if (++h == holders) {
          h = 0;
          k = (k + 1) % pairs;
        }
      }
      long rounds = limiters.stream().mapToLong(QuotaLimiter::renewalRounds).sum() - roundsBefore;
      long heldAtEnd = limiters.stream().mapToLong(QuotaLimiter::budgetsHeld).sum();
      return new Result(holders, pairs, grantSeconds, windowNanos / 1e9, ok, refused, warmup,
          rounds, heldAtEnd);
    } finally {
      for (QuotaLimiter l : limiters) {
        l.closeAsync();
      }
      for (QuotaLimiter l : limiters) {
        l.close();
      }
    }
  }

  private static void set(QuotaClient q, String scope) {
    SetQuotaResult r = q.setQuota(QuotaDefinition.rate(scope, "calls", LIMIT, Window.HOUR)
        .unit("calls").actor("bench").reason("benchmark").build());
    if (r.outcome() != Outcome.SUCCESS) {
      throw new IllegalStateException("bench: quota " + scope + ": " + r.outcome() + " " + r.message());
    }
  }

  public static String table(Result r) {
    return String.format(Locale.ROOT,
        "op            budget-holders (%d holders × %d pairs = %d budgets, renewed by the limiters)%n"
            + "all held      after %.1f s%nwindow        %.1f s%nchecks        %d admitted (%.1f/s), %d refused%n"
            + "renewals      %d rounds in the window (one request per holder per round)%n"
            + "held at end   %d%n",
        r.holders(), r.pairs(), (long) r.holders() * r.pairs(), r.grantSeconds(), r.windowSeconds(),
        r.ok(), r.perSecond(), r.refused(), r.renewalRounds(), r.budgetsHeld());
  }

  public static String json(Result r) {
    return String.format(Locale.ROOT,
        "{\"op\":\"budget-holders\",\"holders\":%d,\"pairs\":%d,\"grantSeconds\":%.3f,"
            + "\"windowSeconds\":%.3f,\"ok\":%d,\"okPerSecond\":%.1f,\"rejected\":%d,\"errors\":0,"
            + "\"warmupCompletions\":%d,\"renewalRounds\":%d,\"budgetsHeld\":%d,"
            + "\"latencyMicros\":{\"p50\":0}}",
        r.holders(), r.pairs(), r.grantSeconds(), r.windowSeconds(), r.ok(), r.perSecond(),
        r.refused(), r.warmupCompletions(), r.renewalRounds(), r.budgetsHeld());
  }
}
