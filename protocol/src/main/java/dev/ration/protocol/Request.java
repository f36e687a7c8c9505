package dev.ration.protocol;

import dev.ration.wire.Mode;
import dev.ration.wire.lease.LeaseBounds;
import dev.ration.wire.lease.Limit;
import java.util.List;
import dev.ration.wire.Policy;

/**
 * Request messages, one per {@link Kind}. On the wire a request payload is
 * {@code u32 timeoutMillis | body}; see docs/PROTOCOL.md for every field's encoding.
 * Every mutation ({@link Kind#mutation()}) is idempotent by (client id from HELLO, frame request
 * id): a retry reuses the request id.
 */
public sealed interface Request {
  Kind kind();

  /** First frame on every connection. {@code credential} is reserved for authentication. */
  record Hello(int protocolVersion, long clientHigh, long clientLow, byte[] credential)
      implements Request {
    public Kind kind() {
      return Kind.HELLO;
    }
  }

  /**
   * Create or change a limit. {@code limit.version()} is the version the caller last read (0:
   * create or overwrite); the leader answers STALE_CONFIG when it no longer matches.
   */
  record SetLimit(Limit limit) implements Request {
    public Kind kind() {
      return Kind.SET_LIMIT;
    }
  }

  /** {@code stale}: answer from this node's state without ReadIndex (monitoring only). */
  record GetLimit(String tenant, String resource, boolean stale) implements Request {
    public Kind kind() {
      return Kind.GET_LIMIT;
    }
  }

  record ListLimits(boolean stale) implements Request {
    public Kind kind() {
      return Kind.LIST_LIMITS;
    }
  }

  record AcquireLease(
      String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst)
      implements Request {
    public Kind kind() {
      return Kind.ACQUIRE_LEASE;
    }
  }

  record RenewLease(
      long leaseId,
      long presentedVersion,
      long demandRatePerSecond,
      long demandBurst,
      long admittedPerSecond,
      long rejectedPerSecond,
      long emergencyUsed)
      implements Request {
    public Kind kind() {
      return Kind.RENEW_LEASE;
    }
  }

  /**
   * Renewals of several leases in one frame, at most {@link #MAX_RENEWALS}: each is judged and
   * answered on its own, in order, as if sent alone; the frame is one mutation (one request id),
   * so a resent batch is answered from the first one.
   */
  record RenewLeases(List<RenewLease> renewals) implements Request {
    /** Most renewals in one batch: the protocol and the log share the bound. */
    public static final int MAX_RENEWALS = LeaseBounds.MAX_RENEWALS_PER_BATCH;

    public RenewLeases {
      renewals = List.copyOf(renewals);
    }

    public Kind kind() {
      return Kind.RENEW_LEASES;
    }
  }

  record ReturnLease(long leaseId, long presentedVersion, long unusedBalance) implements Request {
    public Kind kind() {
      return Kind.RETURN_LEASE;
    }
  }

  /** Empty tenant and resource list every lease. */
  record ListLeases(String tenant, String resource, boolean stale) implements Request {
    public Kind kind() {
      return Kind.LIST_LEASES;
    }
  }

  /**
   * Withdraw request {@code requestId} of this connection if it has not been proposed yet. The
   * withdrawn request is answered {@link ErrorCode#CANCELLED}; the reply says which happened.
   */
  record Cancel(long requestId) implements Request {
    public Kind kind() {
      return Kind.CANCEL;
    }
  }

  record ClusterStatus() implements Request {
    public Kind kind() {
      return Kind.CLUSTER_STATUS;
    }
  }

  /**
   * SET_LIMIT with a concurrency cap C (0 removes it): the limit and its cap in one mutation.
   * {@code limit.version()} is the expected version, as for SET_LIMIT.
   */
  record SetLimitConcurrency(Limit limit, long concurrency) implements Request {
    public Kind kind() {
      return Kind.SET_LIMIT_CONCURRENCY;
    }
  }

  /** A new lease holding up to {@code demandSlots} concurrency slots (running + queued jobs). */
  record AcquireSlots(String tenant, String resource, String holder, long demandSlots)
      implements Request {
    public Kind kind() {
      return Kind.ACQUIRE_SLOTS;
    }
  }

  /**
   * One slot renewal: demand = {@code running + queued}; {@code release} ≥ 0 promises that the
   * holder runs at most that many jobs from sending this until it has the answer (−1: no
   * promise), which lets the ledger free the rest at once.
   */
  record SlotRenewal(long leaseId, long presentedVersion, long running, long queued,
      long release) {}

  /** Slot renewals of several leases in one frame, each answered on its own, in order. */
  record RenewSlots(List<SlotRenewal> renewals) implements Request {
    /** Most renewals in one batch: the protocol and the log share the bound. */
    public static final int MAX_RENEWALS = LeaseBounds.MAX_RENEWALS_PER_BATCH;

    public RenewSlots {
      renewals = List.copyOf(renewals);
    }

    public Kind kind() {
      return Kind.RENEW_SLOTS;
    }
  }

  /** A limit's concurrency cap, slot ledger and slot leases. */
  record GetSlots(String tenant, String resource, boolean stale) implements Request {
    public Kind kind() {
      return Kind.GET_SLOTS;
    }
  }

  /** A TTL entry request (kinds 0x20–0x2F). */
  record Ttl(TtlRequest request) implements Request {
    public Kind kind() {
      return request.kind();
    }
  }

  /** A quota, reservation or usage request (kinds 0x40–0x5F). */
  record Quota(QuotaRequest request) implements Request {
    public Kind kind() {
      return request.kind();
    }
  }

  /**
   * Create a bearer token. The caller chose {@code tokenId} and the secret at random and sends
   * only {@code hash = SHA-256(salt || secret)}: no secret crosses the wire or enters the log.
   * {@code ttlMillis} 0 = never expires. Needs SECURITY_ADMIN.
   */
  record CreateToken(long tokenId, String identity, byte[] salt, byte[] hash, long ttlMillis)
      implements Request {
    public Kind kind() {
      return Kind.TOKEN_CREATE;
    }
  }

  record RevokeToken(long tokenId) implements Request {
    public Kind kind() {
      return Kind.TOKEN_REVOKE;
    }
  }

  record ListTokens() implements Request {
    public Kind kind() {
      return Kind.TOKEN_LIST;
    }
  }

  /** {@code tenant} "*" covers every tenant and the cluster-wide operations. */
  record GrantRole(String identity, String role, String tenant) implements Request {
    public Kind kind() {
      return Kind.ROLE_GRANT;
    }
  }

  record RevokeRole(String identity, String role, String tenant) implements Request {
    public Kind kind() {
      return Kind.ROLE_REVOKE;
    }
  }

  /** Empty {@code identity} lists every grant. */
  record ListGrants(String identity) implements Request {
    public Kind kind() {
      return Kind.ROLE_LIST;
    }
  }

  record ReadSecurityAudit(long fromSequence, int max) implements Request {
    public Kind kind() {
      return Kind.SECURITY_AUDIT_READ;
    }
  }

  record WhoAmI() implements Request {
    public Kind kind() {
      return Kind.WHOAMI;
    }
  }
}
