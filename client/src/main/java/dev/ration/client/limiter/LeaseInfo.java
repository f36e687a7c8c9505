package dev.ration.client.limiter;

import dev.ration.client.time.LedgerTime;
import dev.ration.wire.Mode;
import java.time.Duration;
import java.util.Objects;

/**
 * What a holder (or an operator) sees of one version of a lease: the shares the ledger granted,
 * what it still counts against the limit, and when the lease was granted, expires and stops
 * being counted, in the cluster's ledger time.
 *
 * <p>{@code countedRate} and {@code countedBurst} are larger than the shares while a shrink is
 * unacknowledged; {@code countedUntil} is later than {@code expiresAt} by the limit's grace.
 *
 * @param leaseId the lease's id, stable across renewals
 * @param tenant the tenant of the limit the lease draws from
 * @param resource the resource of that limit
 * @param holder the holder that acquired the lease
 * @param epoch the limit's epoch the lease was granted in
 * @param version this version of the lease; every renewal that changes it makes a new one
 * @param rateShare the holder's share of the limit's rate, tokens per second
 * @param burstShare the holder's share of the limit's burst, tokens
 * @param countedRate the rate the ledger counts against the limit for this lease
 * @param countedBurst the burst the ledger counts against the limit for this lease
 * @param grantedAt when this version was granted (ledger time)
 * @param expiresAt when the lease expires unless renewed (ledger time)
 * @param countedUntil when the ledger stops counting the lease at all (ledger time)
 * @param mode what the holder may do once the lease expires unrenewed
 * @param emergency the emergency budget per disconnection (best-effort mode), tokens
 * @param leaseDuration how long a lease of this limit lasts unless renewed
 */
public record LeaseInfo(
    long leaseId,
    String tenant,
    String resource,
    String holder,
    long epoch,
    long version,
    long rateShare,
    long burstShare,
    long countedRate,
    long countedBurst,
    LedgerTime grantedAt,
    LedgerTime expiresAt,
    LedgerTime countedUntil,
    Mode mode,
    long emergency,
    Duration leaseDuration) {
  /**
   * A lease view, validated.
   *
   * @param leaseId the lease's id
   * @param tenant the tenant
   * @param resource the resource
   * @param holder the holder
   * @param epoch the limit's epoch
   * @param version the lease version
   * @param rateShare the rate share
   * @param burstShare the burst share
   * @param countedRate the counted rate
   * @param countedBurst the counted burst
   * @param grantedAt when granted
   * @param expiresAt when it expires
   * @param countedUntil when it stops being counted
   * @param mode the limit's mode
   * @param emergency the emergency budget
   * @param leaseDuration the lease duration
   * @throws NullPointerException if a name, a time, the mode or the duration is missing
   */
  public LeaseInfo {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(grantedAt, "grantedAt");
    Objects.requireNonNull(expiresAt, "expiresAt");
    Objects.requireNonNull(countedUntil, "countedUntil");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(leaseDuration, "leaseDuration");
  }
}
