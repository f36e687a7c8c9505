package dev.ration.client.limiter.internal;

import dev.ration.client.limiter.LeaseInfo;
import dev.ration.client.limiter.LimitInfo;
import dev.ration.client.time.LedgerTime;
import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.lease.LimitStatus;
import java.time.Duration;

/**
 * Not API: the one conversion of the wire's lease and limit views into the client's public
 * {@link LeaseInfo} and {@link LimitInfo}: ledger-time milliseconds become {@link LedgerTime},
 * lengths of time {@link Duration}.
 */
public final class LimiterViews {
  private LimiterViews() {}

  /**
   * The public form of a lease.
   *
   * @param v the lease as the wire carries it
   * @return the lease
   */
  public static LeaseInfo lease(LeaseView v) {
    return new LeaseInfo(v.leaseId(), v.tenant(), v.resource(), v.holder(), v.epoch(),
        v.version(), v.rateShare(), v.burstShare(), v.countedRate(), v.countedBurst(),
        LedgerTime.ofMillis(v.grantedAtMillis()), LedgerTime.ofMillis(v.expiresAtMillis()),
        LedgerTime.ofMillis(v.countedUntilMillis()), v.mode(), v.emergency(),
        Duration.ofMillis(v.leaseDurationMillis()));
  }

  /**
   * The public form of a limit with its ledger.
   *
   * @param s the limit as the wire carries it
   * @return the limit
   */
  public static LimitInfo limit(LimitStatus s) {
    Limit l = s.limit();
    return new LimitInfo(l.tenant(), l.resource(), l.ratePerSecond(), l.burst(), l.mode(),
        Duration.ofMillis(l.leaseDurationMillis()), Duration.ofMillis(l.graceMillis()),
        l.emergency(), l.policy(), l.version(), s.countedRate(), s.countedBurst(),
        s.grantedRate(), s.grantedBurst(), s.pool(), s.leases(), s.pendingShrinks(),
        s.rateCeiling(), s.burstCeiling(), s.emergencyReported(), s.demandRate(),
        s.demandBurst());
  }
}
