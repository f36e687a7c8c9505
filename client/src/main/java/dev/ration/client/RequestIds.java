package dev.ration.client;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The request ids of one {@link RationClient}. The server keeps a mutation's first answer under
 * (client id, request id) for the idempotency retention and refuses another request under the
 * same pair, so ids must never repeat for a client id within that retention.
 *
 * <ul>
 *   <li>With a client id minted at random per client (the default), the id space is this
 *       client's alone: ids count 1, 2, 3, ...</li>
 *   <li>With a fixed client id, a restarted process reuses the id space of the one before it, so
 *       counting from 1 would resend the old process's request ids for new requests. Ids then
 *       follow the wall clock in microseconds: each is the larger of the previous id + 1 and the
 *       clock now. A process started later than the last id of the one before it (in wall-clock
 *       microseconds) never reuses an id, and ids never go back within a process, even if the
 *       clock steps back. What is not covered: the wall clock stepped back across a restart by
 *       more than the restart took, or a previous process that issued more than a million
 *       requests a second for long enough to run ahead of the clock.</li>
 * </ul>
 *
 * Thread-safe.
 */
final class RequestIds {
  private final AtomicLong last;
  /** Null for a random client id: the clock is not needed. */
  private final LongSupplier wallMicros;

  private RequestIds(long last, LongSupplier wallMicros) {
    this.last = new AtomicLong(last);
    this.wallMicros = wallMicros;
  }

  /** Ids for a client whose id is random and its own: 1, 2, 3, ... */
  static RequestIds counting() {
    return new RequestIds(0, null);
  }

  /** Ids for a fixed client id: at or after {@code wallMicros} now, strictly increasing. */
  static RequestIds followingClock(LongSupplier wallMicros) {
    return new RequestIds(0, wallMicros);
  }

  /** The scheme the options call for (see the class comment). */
  static RequestIds forOptions(RationClientOptions options, LongSupplier wallMicros) {
    return options.clientIdFixed() ? followingClock(wallMicros) : counting();
  }

  /** Wall-clock microseconds since the epoch. */
  static long wallClockMicros() {
    Instant now = Instant.now();
    return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000);
  }

  long next() {
    if (wallMicros == null) {
      return last.incrementAndGet();
    }
    long clock = wallMicros.getAsLong();
    return last.updateAndGet(previous -> Math.max(previous + 1, clock));
  }
}
