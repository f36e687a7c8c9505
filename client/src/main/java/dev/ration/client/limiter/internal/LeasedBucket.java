package dev.ration.client.limiter.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The local token bucket of one holder: refills at the leased rate share, caps at the leased
 * burst share, admits nothing without a valid lease. Time is always passed in ({@code
 * nowNanos}, any monotonic nanosecond clock), so tests and the simulation drive it by hand.
 *
 * <p><b>Representation.</b> Tokens are counted in <i>microtokens</i> (10^6 per token) and refill
 * is credited per whole microsecond since the terms' origin, so a rate of r tokens/s is exactly r
 * microtokens per microsecond: integer arithmetic, no float, no accumulated rounding (the only
 * truncation is the sub-microsecond remainder since the origin, which under-admits by less than
 * r·1µs and is never carried). Within one set of {@link Terms} (one install or renewal) the
 * cumulative refill is {@code u(now) = burst + floor((clamp(now, origin, refillEnd) - origin) /
 * 1000) * rate}; the mutable state
 * is one long {@code v}, the point of {@code u} at which the bucket was last empty, so
 * {@code balance = min(burst, u - v)}. Admitting n tokens moves {@code v} to
 * {@code max(v, u - burst) + n}: the burst cap is applied lazily, which is also what truncates
 * the balance when a renewal shrinks the burst share.
 *
 * <p><b>Threads.</b> The hot path ({@link #tryAcquire}, {@link #acquireOrWaitNanos}) is
 * lock-free and allocation-free: it reads the state, then the terms, and CASes the state. The
 * top 8 bits of the state carry the generation of the terms it belongs to; every control
 * operation ({@link #install}, {@link #renew}, {@link #invalidate}, serialized by a monitor that
 * the hot path never touches) publishes new terms with the next generation (keeping the previous
 * terms reachable for one step) and then CASes the state to the new generation. A reader that
 * sees state of generation g uses the terms of generation g, current or previous; its CAS fails
 * if any control operation completed in between, so no admission ever mixes two sets of terms.
 * A control operation is therefore linearized at its state CAS: every admission happened
 * entirely before it or entirely after it.
 *
 * <p><b>Invariants</b> (checked always): {@code 0 <= v <= u < 2^56}; {@code burst <= MAX_BURST};
 * nothing is admitted at or after {@code validUntilNanos}; nothing is admitted after {@link
 * #invalidate} until the next {@link #install}; a renewal never adds tokens.
 *
 * <p><b>Bounds.</b> A burst share above {@link #MAX_BURST} tokens is capped to it; refill within
 * one term stops once {@code u} would reach 2^56 microtokens (7.2·10^10 tokens: at 10^9
 * tokens/s after 72 s; terms are renewed long before): both only ever under-admit. The generation wraps after
 * 256 control operations; a thread stalled inside one CAS for 256 renewals would be needed to
 * confuse it.
 */
public final class LeasedBucket {
  /** Microtokens per token. */
  public static final long UNITS_PER_TOKEN = 1_000_000L;

  private static final long NANOS_PER_MICRO = 1_000L;

  /**
   * Nanoseconds of the holder's clock per microsecond of refill credit: 1,000 credits exactly the
   * leased rate; more derates it. A holder whose clock runs fast by δ would otherwise refill
   * (1 + δ)·r per real second and break R·T + B; derating by the drift allowance ε ≥ δ keeps the
   * bound (see {@link dev.ration.client.limiter.RateLimiter}, which derates by its {@code driftFraction}).
   */
  private final long nanosPerCredit;

  /** A bucket that refills at exactly the leased rate on its clock. */
  public LeasedBucket() {
    this(NANOS_PER_MICRO);
  }

  /**
   * A bucket whose refill is derated: one microsecond of credit per {@code nanosPerCredit}
   * nanoseconds ({@code >= 1000}); e.g. 1021 refills at r·(1000/1021) ≈ 0.979·r.
   *
   * @param nanosPerCredit nanoseconds of the holder's clock per unit of refill credit (see {@link #nanosPerCreditFor})
   */
  public LeasedBucket(long nanosPerCredit) {
    if (nanosPerCredit < NANOS_PER_MICRO || nanosPerCredit > 2 * NANOS_PER_MICRO) {
      throw new IllegalArgumentException("nanosPerCredit " + nanosPerCredit + " not in [1000, 2000]");
    }
    this.nanosPerCredit = nanosPerCredit;
  }

  /**
   * The refill derating of {@code driftFraction} ε: ceil(1000 / (1 − ε)) nanoseconds per credit.
   *
   * @param driftFraction ε, the clock-rate drift the refill allows for
   * @return the refill step that derates the rate by ε
   */
  public static long nanosPerCreditFor(double driftFraction) {
    if (!(driftFraction >= 0 && driftFraction < 0.5)) {
      throw new IllegalArgumentException("driftFraction " + driftFraction + " not in [0, 0.5)");
    }
    return (long) Math.ceil(NANOS_PER_MICRO / (1 - driftFraction));
  }

  private static final int GEN_SHIFT = 56;
  private static final long VALUE_MASK = (1L << GEN_SHIFT) - 1;
  private static final long MAX_U = VALUE_MASK;

  /** Largest burst share (and largest single request) in tokens: 2^55 microtokens. */
  public static final long MAX_BURST = (1L << 55) / UNITS_PER_TOKEN;

  /** {@link #acquireOrWaitNanos}: the permits were taken. */
  public static final long ADMITTED = 0;
  /** No lease installed (never, or invalidated since). */
  public static final long NO_LEASE = -1;
  /** The installed terms have expired locally (hard expiry). */
  public static final long EXPIRED = -2;
  /** Not enough tokens, and the current terms will not refill enough before they end. */
  public static final long NOT_IN_TERM = -3;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(LeasedBucket.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Generation (top 8 bits) | v (low 56 bits). Accessed through {@link #STATE}. */
  @SuppressWarnings("unused")
  private volatile long state;

  private volatile Terms terms = Terms.NONE;

  private final Object control = new Object();

  /**
   * Immutable terms of one generation. {@code installed} false admits nothing. {@code prev} is
   * the previous generation with its own {@code prev} cut, so the chain never grows.
   */
  static final class Terms {
    static final Terms NONE = new Terms(0, false, 0, 0, 0, 0, 0, NANOS_PER_MICRO, null);

    final int gen;
    final boolean installed;
    final long originNanos;
    final long refillEndNanos;
    final long validUntilNanos;
    final long ratePerSecond; // = microtokens per microsecond
    final long burstUnits;
    final long nanosPerCredit;
    final Terms prev;

    Terms(int gen, boolean installed, long originNanos, long refillEndNanos, long validUntilNanos,
        long ratePerSecond, long burstUnits, long nanosPerCredit, Terms prev) {
      this.gen = gen;
      this.installed = installed;
      this.originNanos = originNanos;
      this.refillEndNanos = refillEndNanos;
      this.validUntilNanos = validUntilNanos;
      this.ratePerSecond = ratePerSecond;
      this.burstUnits = burstUnits;
      this.nanosPerCredit = nanosPerCredit;
      this.prev = prev;
    }

    Terms withoutPrev() {
      return prev == null ? this
          : new Terms(gen, installed, originNanos, refillEndNanos, validUntilNanos, ratePerSecond,
              burstUnits, nanosPerCredit, null);
    }

    /** Cumulative refill at {@code nowNanos}, in microtokens; never above MAX_U. */
    long u(long nowNanos) {
      long t = nowNanos < originNanos ? originNanos : nowNanos;
      if (t > refillEndNanos) {
        t = refillEndNanos;
      }
      return burstUnits + ((t - originNanos) / nanosPerCredit) * ratePerSecond;
    }

    long balance(long v, long nowNanos) {
      long u = u(nowNanos);
      long floor = u - burstUnits;
      return u - (v > floor ? v : floor);
    }
  }

  // ------------------------------------------------------------------ hot path

  /**
   * Takes {@code permits} tokens if the lease is valid at {@code nowNanos} and holds them.
   *
   * @param permits the permits to take
   * @param nowNanos the holder clock's time
   * @return whether they were taken
   */
  public boolean tryAcquire(long permits, long nowNanos) {
    return acquireOrWaitNanos(permits, nowNanos) == ADMITTED;
  }

  /**
   * Takes {@code permits} tokens, or says why not: {@link #ADMITTED} (0); a positive number of
   * nanoseconds after which the current terms will have refilled enough; or {@link #NO_LEASE},
   * {@link #EXPIRED}, {@link #NOT_IN_TERM}. Lock-free, allocation-free.
   *
   * @param permits the permits to take
   * @param nowNanos the holder clock's time
   * @return {@link #ADMITTED}, a negative status, or the nanoseconds until the refill covers them
   */
  public long acquireOrWaitNanos(long permits, long nowNanos) {
    if (permits < 1 || permits > MAX_BURST) {
      throw new IllegalArgumentException("permits " + permits + " not in [1, " + MAX_BURST + "]");
    }
    long cost = permits * UNITS_PER_TOKEN;
    while (true) {
      long s = (long) STATE.getVolatile(this);
      Terms t = terms;
      int gen = (int) (s >>> GEN_SHIFT);
      if (t.gen != gen) {
        // A control operation published new terms and has not CASed the state yet: the state
        // still belongs to the previous terms.
        t = t.prev;
        if (t == null || t.gen != gen) {
          Thread.onSpinWait();
          continue;
        }
      }
      if (!t.installed) {
        return NO_LEASE;
      }
      if (nowNanos >= t.validUntilNanos) {
        return EXPIRED;
      }
      long u = t.u(nowNanos);
      long v = s & VALUE_MASK;
      long floor = u - t.burstUnits;
      long base = v > floor ? v : floor;
      long balance = u - base;
      if (balance < cost) {
        return waitNanos(t, cost, balance, nowNanos);
      }
      if (STATE.compareAndSet(this, s, (s & ~VALUE_MASK) | (base + cost))) {
        return ADMITTED;
      }
    }
  }

  private static long waitNanos(Terms t, long cost, long balance, long nowNanos) {
    if (cost > t.burstUnits || t.ratePerSecond == 0) {
      return NOT_IN_TERM;
    }
    // Tokens arrive at whole microseconds after the origin: find the first one that covers cost.
    long missing = cost - balance;
    long from = nowNanos < t.originNanos ? t.originNanos : nowNanos;
    long elapsedMicros = (from - t.originNanos) / t.nanosPerCredit;
    long moreMicros = (missing + t.ratePerSecond - 1) / t.ratePerSecond;
    long ready = t.originNanos + (elapsedMicros + moreMicros) * t.nanosPerCredit;
    if (ready > t.refillEndNanos || ready >= t.validUntilNanos) {
      return NOT_IN_TERM;
    }
    return ready - nowNanos;
  }

  // ------------------------------------------------------------------ control path

  /**
   * Installs a new lease: {@code startBalance} tokens (capped at the burst), refilling at
   * {@code ratePerSecond} until {@code validUntilNanos}. Returns the whole tokens left unspent
   * under the replaced terms at {@code nowNanos} (0 if none were installed).
   *
   * @param ratePerSecond the lease's rate share
   * @param burst the lease's burst share
   * @param startBalance tokens handed over with the lease
   * @param validUntilNanos the lease's local expiry
   * @param nowNanos the holder clock's time
   * @return the balance dropped by the install (tokens of the previous lease)
   */
  public long install(long ratePerSecond, long burst, long startBalance, long validUntilNanos, long nowNanos) {
    checkTerms(ratePerSecond, burst, startBalance);
    synchronized (control) {
      long burstUnits = Math.min(burst, MAX_BURST) * UNITS_PER_TOKEN;
      long startUnits = Math.min(Math.min(startBalance, MAX_BURST) * UNITS_PER_TOKEN, burstUnits);
      Terms old = terms;
      Terms next = newTerms(old, true, ratePerSecond, burstUnits, validUntilNanos, nowNanos, nanosPerCredit);
      terms = next;
      while (true) {
        long s = (long) STATE.getVolatile(this);
        long left = old.installed ? Math.max(0, old.balance(s & VALUE_MASK, nowNanos)) : 0;
        if (STATE.compareAndSet(this, s, stateOf(next, burstUnits - startUnits))) {
          return left / UNITS_PER_TOKEN;
        }
      }
    }
  }

  /**
   * Applies renewed terms: keeps the balance (never adds to it), truncated to the new burst, and
   * refills at the new rate until the new {@code validUntilNanos}. On a bucket with nothing
   * installed (invalidated meanwhile) it installs the terms at zero balance.
   *
   * @param ratePerSecond the renewed rate share
   * @param burst the renewed burst share
   * @param validUntilNanos the new local expiry
   * @param nowNanos the holder clock's time
   */
  public void renew(long ratePerSecond, long burst, long validUntilNanos, long nowNanos) {
    checkTerms(ratePerSecond, burst, 0);
    synchronized (control) {
      long burstUnits = Math.min(burst, MAX_BURST) * UNITS_PER_TOKEN;
      Terms old = terms;
      Terms next = newTerms(old, true, ratePerSecond, burstUnits, validUntilNanos, nowNanos, nanosPerCredit);
      terms = next;
      while (true) {
        long s = (long) STATE.getVolatile(this);
        // Below zero when admissions on other threads read their clock after the caller read
        // nowNanos and spent tokens that accrue after it: that debt is carried into the new
        // terms (they start below zero and refill from there), so no token is counted twice
        // and none is lost.
        long kept = old.installed ? Math.min(old.balance(s & VALUE_MASK, nowNanos), burstUnits) : 0;
        if (STATE.compareAndSet(this, s, stateOf(next, burstUnits - kept))) {
          return;
        }
      }
    }
  }

  /**
   * Stops all admission until the next {@link #install}; returns the whole tokens that were
   * unspent at that instant (what {@code close()} may return to the ledger). Idempotent.
   *
   * @param nowNanos the holder clock's time
   * @return the whole tokens left, to hand back
   */
  public long invalidate(long nowNanos) {
    synchronized (control) {
      Terms old = terms;
      if (!old.installed) {
        return 0;
      }
      Terms next = newTerms(old, false, 0, 0, Long.MIN_VALUE, old.originNanos, nanosPerCredit);
      terms = next;
      while (true) {
        long s = (long) STATE.getVolatile(this);
        long left = Math.max(0, old.balance(s & VALUE_MASK, nowNanos));
        if (STATE.compareAndSet(this, s, stateOf(next, 0))) {
          return left / UNITS_PER_TOKEN;
        }
      }
    }
  }

  // ------------------------------------------------------------------ reads (snapshots)

  /**
   * Balance at {@code nowNanos} in microtokens (0 when nothing is installed or it expired).
   *
   * @param nowNanos the holder clock's time
   * @return the balance in units ({@link #UNITS_PER_TOKEN} per token)
   */
  public long balanceUnits(long nowNanos) {
    while (true) {
      long s = (long) STATE.getVolatile(this);
      Terms t = terms;
      int gen = (int) (s >>> GEN_SHIFT);
      if (t.gen != gen) {
        t = t.prev;
        if (t == null || t.gen != gen) {
          Thread.onSpinWait();
          continue;
        }
      }
      if (!t.installed || nowNanos >= t.validUntilNanos) {
        return 0;
      }
      return Math.max(0, t.balance(s & VALUE_MASK, nowNanos));
    }
  }

  /**
   * Whole tokens available at {@code nowNanos}.
   *
   * @param nowNanos the holder clock's time
   * @return the balance in whole tokens
   */
  public long balance(long nowNanos) {
    return balanceUnits(nowNanos) / UNITS_PER_TOKEN;
  }

  /**
   * True when terms are installed (expired or not).
   *
   * @return whether a lease is installed
   */
  public boolean installed() {
    return terms.installed;
  }

  /**
   * Local expiry of the installed terms; {@code Long.MIN_VALUE} when none are installed.
   *
   * @return the installed lease's local expiry on the holder's clock
   */
  public long validUntilNanos() {
    Terms t = terms;
    return t.installed ? t.validUntilNanos : Long.MIN_VALUE;
  }

  /**
   * Rate share of the installed terms (0 when none).
   *
   * @return the installed rate share
   */
  public long ratePerSecond() {
    Terms t = terms;
    return t.installed ? t.ratePerSecond : 0;
  }

  /**
   * Burst share of the installed terms in whole tokens (0 when none).
   *
   * @return the installed burst share
   */
  public long burst() {
    Terms t = terms;
    return t.installed ? t.burstUnits / UNITS_PER_TOKEN : 0;
  }

  // ------------------------------------------------------------------ helpers

  private static Terms newTerms(Terms old, boolean installed, long rate, long burstUnits, long validUntil, long origin,
      long nanosPerCredit) {
    long refillEnd = validUntil;
    if (installed && rate > 0) {
      // Keep u = burst + elapsedMicros * rate below 2^56; past that, refill stops (under-admits).
      long maxElapsedMicros = (MAX_U - burstUnits) / rate;
      long span = maxElapsedMicros > Long.MAX_VALUE / nanosPerCredit
          ? Long.MAX_VALUE : maxElapsedMicros * nanosPerCredit;
      long end = origin > 0 && span > Long.MAX_VALUE - origin ? Long.MAX_VALUE : origin + span;
      if (end < validUntil) {
        refillEnd = end;
      }
    }
    return new Terms((old.gen + 1) & 0xff, installed, origin, refillEnd, validUntil, rate, burstUnits,
        nanosPerCredit, old.withoutPrev());
  }

  private static long stateOf(Terms t, long v) {
    if (v < 0 || v > MAX_U) {
      throw new IllegalStateException("bucket state v " + v + " outside [0, " + MAX_U + "] for gen " + t.gen);
    }
    return ((long) t.gen << GEN_SHIFT) | v;
  }

  private static void checkTerms(long ratePerSecond, long burst, long startBalance) {
    if (ratePerSecond < 0 || burst < 0 || startBalance < 0) {
      throw new IllegalArgumentException("ratePerSecond " + ratePerSecond + ", burst " + burst
          + ", startBalance " + startBalance + ": none may be negative");
    }
    if (ratePerSecond > MAX_U) {
      throw new IllegalArgumentException("ratePerSecond " + ratePerSecond + " > " + MAX_U);
    }
  }
}
