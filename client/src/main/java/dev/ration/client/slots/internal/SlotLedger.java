package dev.ration.client.slots.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Not API: where a {@link dev.ration.client.slots.LeasedSlots} leases its slots, and how its
 * requests are put: a limit's concurrency cap ({@link LimitSlotLedger}) or the CONCURRENT quotas
 * of a scope path ({@link QuotaSlotLedger}). The keeping of the lease (timing, renewal, resends,
 * the promise, losing and acquiring again) is the same for both and lives in {@code LeasedSlots}.
 *
 * <p>A future that fails carries no answer (the call could not be made, or its deadline passed);
 * one that completes carries the ledger's answer.
 */
public interface SlotLedger {
  /** A lease as held: its slot share and its duration. */
  interface Held {
    /**
     * The slots it counts.
     *
     * @return the share in slots
     */
    long share();

    /**
     * How long it lives from the request that granted it.
     *
     * @return the duration in milliseconds
     */
    long durationMillis();
  }

  /** The ledger's answer to an acquire or a renewal. */
  sealed interface Answer {}

  /**
   * Granted, or renewed.
   *
   * @param lease the lease now held
   */
  record Granted(Held lease) implements Answer {}

  /**
   * Refused: nothing to hold; ask again after {@code retryAfterMillis} (0: unknown).
   *
   * @param retryAfterMillis the ledger's hint
   * @param reason what the ledger said
   */
  record Refused(long retryAfterMillis, String reason) implements Answer {}

  /**
   * Asks for a lease of {@code demand} slots. After a failure without an answer, a ledger may
   * send the unanswered acquire again as it was (its demand included), so that one applied late
   * is the answer; the holder counts a grant's life from the first attempt it made since its
   * last answer, the earliest the ledger can have granted it.
   *
   * @param demand the slots wanted
   * @return the answer
   */
  CompletableFuture<Answer> acquire(long demand);

  /**
   * The unanswered acquire is not to be resent any more: the next {@link #acquire} is a new
   * request (a resend after the coordinator forgot the first answer would be applied anew).
   */
  default void forgetUnanswered() {}

  /**
   * One renewal of {@code lease}: each call of the supplier sends it again as the same renewal
   * (so the ledger counts it once). A refusal means the lease is gone.
   *
   * @param lease the lease held
   * @param running jobs running now
   * @param queued jobs waiting now
   * @param promise the most jobs the holder runs from now until it has the answer (never fewer
   *     than are running)
   * @param demand the slots the holder wants (running + queued, at most its workers)
   * @return the renewal, to send and resend
   */
  Supplier<CompletableFuture<Answer>> renewal(Held lease, int running, int queued, long promise,
      long demand);

  /**
   * Hands {@code lease} back, waiting at most {@code wait} for the answer; a failure is
   * swallowed (the lease ends by itself).
   *
   * @param lease the lease held
   * @param wait the longest wait
   */
  void giveBack(Held lease, Duration wait);

  /**
   * {@code lease} was lost (refused on renewal, or lapsed without an answer); the holder runs
   * nothing under it any more. Must not block.
   *
   * @param lease the lease lost
   */
  default void lost(Held lease) {}

  /** The holder started running an attempt of a job (a ledger that bills starts counts it). */
  default void attemptStarted() {}

  /**
   * What is leased, for names and messages.
   *
   * @return e.g. {@code acme/db} or {@code org/t/p jobs}
   */
  String describe();
}
