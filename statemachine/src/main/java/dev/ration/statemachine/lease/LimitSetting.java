package dev.ration.statemachine.lease;

import static dev.ration.statemachine.lease.Arguments.firstInvalid;
import static dev.ration.statemachine.lease.Arguments.invalid;
import static dev.ration.statemachine.lease.Arguments.negative;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.LeaseCommand.SetLimitConcurrency;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Outcome;
import dev.ration.wire.lease.Limit;
import java.util.Optional;

/**
 * Setting limits: SetLimit (a limit's rate, burst, lease duration, grace, emergency, mode and
 * policy) and SetLimitConcurrency (the same with its concurrency cap C), with optimistic
 * concurrency on the config version.
 *
 * <p>Thread: the single applying thread. Holds no state: it works on the {@link LeaseBook}.
 *
 * <p>Invariants: a limit's config version is minted from the replica's counter on every change
 * (I7); a limit lowered below what is counted is absorbed through its ceilings, never by
 * taking shares away (I1, I12, in {@link LimitLedger}); at most {@code maxLimits} limits exist.
 */
final class LimitSetting {
  private final StateOptions options;
  private final ApplyContext context;
  private final LeaseBook book;
  private final Arguments arguments;

  LimitSetting(StateOptions options, ApplyContext context, LeaseBook book, Arguments arguments) {
    this.options = options;
    this.context = context;
    this.book = book;
    this.arguments = arguments;
  }

  /** SetLimitConcurrency: the limit and its cap C (≥ 0; 0 is no cap). */
  Result setConcurrency(SetLimitConcurrency command) {
    if (command.concurrency() < 0) {
      return invalid("concurrency " + command.concurrency() + " < 0");
    }
    return set(command.limit(), command.concurrency());
  }

  /** SetLimit, and with {@code concurrency} ≥ 0 also the limit's concurrency cap (−1: kept). */
  Result set(Limit c, long concurrency) {
    Optional<Result> bad = firstInvalid(
        arguments.badName("tenant", c.tenant()),
        arguments.badName("resource", c.resource()),
        negative("ratePerSecond", c.ratePerSecond()),
        negative("burst", c.burst()),
        c.leaseDurationMillis() < LeaseLedger.MIN_LEASE_DURATION_MILLIS
                || c.leaseDurationMillis() > LeaseLedger.MAX_LEASE_DURATION_MILLIS
            ? "leaseDurationMillis " + c.leaseDurationMillis() + " outside ["
                + LeaseLedger.MIN_LEASE_DURATION_MILLIS + ", "
                + LeaseLedger.MAX_LEASE_DURATION_MILLIS + "]"
            : null,
        c.graceMillis() < 0 || c.graceMillis() > c.leaseDurationMillis()
            ? "graceMillis " + c.graceMillis() + " outside [0, leaseDurationMillis "
                + c.leaseDurationMillis() + "]"
            : null,
        negative("emergency", c.emergency()),
        negative("expectedVersion", c.version()),
        c.mode() == null ? "mode is missing" : null,
        c.policy() == null ? "policy is missing" : null);
    if (bad.isPresent()) {
      return bad.get();
    }
    LimitKey key = new LimitKey(c.tenant(), c.resource());
    LimitLedger ledger = book.limit(key);
    long current = ledger == null ? 0 : ledger.limit().version();
    if (c.version() != 0 && c.version() != current) {
      return new Result.Rejected(Outcome.STALE_CONFIG,
          "expected config version " + c.version() + " but current is " + current
              + " for " + c.tenant() + "/" + c.resource(), 0, current);
    }
    int count = book.limits().size();
    if (ledger == null && count >= options.maxLimits()) {
      return new Result.Rejected(Outcome.LIMIT_EXHAUSTED,
          "ledger holds " + count + " limits, maxLimits " + options.maxLimits(), 0, 0);
    }
    Limit limit = c.withVersion(context.mintVersion());
    if (ledger == null) {
      ledger = LimitLedger.fresh(limit);
      book.addLimit(key, ledger);
    } else {
      ledger.reconfigure(limit);
      book.touch(ledger);
    }
    if (concurrency >= 0) {
      ledger.setConcurrency(concurrency);
      return new Result.LimitConcurrencySet(limit, concurrency);
    }
    return new Result.LimitSet(limit);
  }
}
