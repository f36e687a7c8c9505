package dev.ration.protocol;

import static dev.ration.protocol.Permission.CLUSTER_READ;
import static dev.ration.protocol.Permission.CONNECT;
import static dev.ration.protocol.Permission.LEASE_USE;
import static dev.ration.protocol.Permission.LIMIT_ADMIN;
import static dev.ration.protocol.Permission.LIMIT_READ;
import static dev.ration.protocol.Permission.QUOTA_ADMIN;
import static dev.ration.protocol.Permission.QUOTA_USE;
import static dev.ration.protocol.Permission.SECURITY_ADMIN;
import static dev.ration.protocol.Permission.TTL_ADMIN;
import static dev.ration.protocol.Permission.TTL_READ;
import static dev.ration.protocol.Permission.TTL_WRITE;
import static dev.ration.protocol.Permission.USAGE_WRITE;

import dev.ration.wire.shape.Shape;

/**
 * Frame kinds, each the descriptor of one operation: its code (a response uses {@code code |
 * 0x80}), whether it changes replicated state (a mutation is idempotent by client id and
 * request id, and a failed attempt leaves its outcome unknown), the permission it needs, and
 * its request and reply shapes, through which the codec reads and writes every body. Codes are
 * explicit and append-only; never use {@code ordinal()}.
 *
 * <p>USAGE_RECONCILE changes state only when it repairs; counting the report as a mutation too
 * only makes a failed report indeterminate, which is harmless for a read.
 */
public enum Kind {
  HELLO(0x01, false, CONNECT),
  SET_LIMIT(0x02, true, LIMIT_ADMIN),
  GET_LIMIT(0x03, false, LIMIT_READ),
  LIST_LIMITS(0x04, false, LIMIT_READ),
  ACQUIRE_LEASE(0x05, true, LEASE_USE),
  RENEW_LEASE(0x06, true, LEASE_USE),
  RETURN_LEASE(0x07, true, LEASE_USE),
  LIST_LEASES(0x08, false, LIMIT_READ),
  CLUSTER_STATUS(0x09, false, CLUSTER_READ),
  RENEW_LEASES(0x0A, true, LEASE_USE),
  // Concurrency slots: new kinds, so the bytes of SET_LIMIT and the lease kinds stay.
  SET_LIMIT_CONCURRENCY(0x0B, true, LIMIT_ADMIN),
  ACQUIRE_SLOTS(0x0C, true, LEASE_USE),
  RENEW_SLOTS(0x0D, true, LEASE_USE),
  GET_SLOTS(0x0E, false, LIMIT_READ),
  /**
   * Withdraws a request of the same connection that is still waiting to be proposed: answered
   * by the connection itself, never proposed, so any session may send it.
   */
  CANCEL(0x10, false, CONNECT),
  // TTL entries: 0x20-0x2F, request shapes on the TtlRequest records, replies in TtlMessages.
  TTL_PUT(0x20, true, TTL_WRITE),
  TTL_CAS(0x21, true, TTL_WRITE),
  TTL_REFRESH(0x22, true, TTL_WRITE),
  TTL_DELETE(0x23, true, TTL_WRITE),
  TTL_GET(0x24, false, TTL_READ),
  TTL_LIST(0x25, false, TTL_READ),
  TTL_NAMESPACE_SET(0x26, true, TTL_ADMIN),
  TTL_NAMESPACE_GET(0x27, false, TTL_READ),
  TTL_UPDATE(0x28, true, TTL_WRITE),
  /** A long poll for a namespace's changes (a watch); see {@link TtlRequest.Watch}. */
  TTL_WATCH(0x29, false, TTL_READ),
  // Quotas, reservations and usage: 0x40-0x5F, shapes in QuotaMessages.
  QUOTA_SET(0x40, true, QUOTA_ADMIN),
  QUOTA_GET(0x41, false, QUOTA_USE),
  QUOTA_LIST(0x42, false, QUOTA_USE),
  QUOTA_HISTORY(0x43, false, QUOTA_USE),
  RESERVE(0x44, true, QUOTA_USE),
  RESERVATION_COMPLETE(0x45, true, QUOTA_USE),
  RESERVATION_CANCEL(0x46, true, QUOTA_USE),
  RESERVATION_LIST(0x47, false, QUOTA_USE),
  USAGE_INGEST(0x48, true, USAGE_WRITE),
  USAGE_READ(0x49, false, Permission.USAGE_READ),
  USAGE_ACK(0x4A, true, Permission.USAGE_READ),
  USAGE_AGGREGATE(0x4B, false, Permission.USAGE_READ),
  USAGE_RECONCILE(0x4C, true, QUOTA_ADMIN),
  AUDIT_READ(0x4D, false, QUOTA_ADMIN),
  /** RESERVE with the application's idempotency key; a new kind so RESERVE's bytes stay. */
  RESERVE_KEYED(0x4E, true, QUOTA_USE),
  // Budgets: shares of windowed quotas a holder spends locally (docs/QUOTAS.md, "Budgets and the quota limiter").
  BUDGET_GRANT(0x4F, true, QUOTA_USE),
  /** Reports (and renewals) of many budgets in one frame, each answered alone. */
  BUDGET_REPORT(0x50, true, QUOTA_USE),
  BUDGET_RETURN(0x51, true, QUOTA_USE),
  BUDGET_LIST(0x52, false, QUOTA_USE),
  /** Up to 1,000 reservations in one frame, each judged and answered alone. */
  RESERVE_BATCH(0x53, true, QUOTA_USE),
  // Identities, roles and the security audit: 0x60-0x6F, shapes in SecurityMessages.
  TOKEN_CREATE(0x60, true, SECURITY_ADMIN),
  TOKEN_REVOKE(0x61, true, SECURITY_ADMIN),
  TOKEN_LIST(0x62, false, SECURITY_ADMIN),
  ROLE_GRANT(0x63, true, SECURITY_ADMIN),
  ROLE_REVOKE(0x64, true, SECURITY_ADMIN),
  ROLE_LIST(0x65, false, SECURITY_ADMIN),
  SECURITY_AUDIT_READ(0x66, false, SECURITY_ADMIN),
  /** Who the server takes this connection to be, and its grants: needs only a session. */
  WHOAMI(0x67, false, CONNECT);

  public static final int RESPONSE_BIT = 0x80;

  private static final Kind[] BY_CODE = new Kind[RESPONSE_BIT];

  static {
    for (Kind k : values()) {
      BY_CODE[k.code] = k;
    }
  }

  private final int code;
  private final boolean mutation;
  private final Permission permission;
  // Looked up on first use (KindShapes): a process that speaks one family of messages (a CLI
  // call, a limiter) never builds the others' shapes. Shapes are immutable (final fields), so a
  // racy first lookup only builds the same reference twice.
  private Shape<?> request;
  private Shape<?> reply;

  Kind(int code, boolean mutation, Permission permission) {
    this.code = code;
    this.mutation = mutation;
    this.permission = permission;
  }

  public int code() {
    return code;
  }

  public int responseCode() {
    return code | RESPONSE_BIT;
  }

  /** Changes replicated state: retried under the same request id, indeterminate on failure. */
  public boolean mutation() {
    return mutation;
  }

  public Permission permission() {
    return permission;
  }

  /**
   * The record a request of this kind carries: for TTL and quota kinds, the record inside
   * {@link Request.Ttl} or {@link Request.Quota}.
   */
  public Class<?> requestType() {
    return requestShape().type();
  }

  /** The record a reply to this kind carries (an error aside). */
  public Class<?> replyType() {
    return replyShape().type();
  }

  /** The request body's shape. */
  Shape<?> requestShape() {
    Shape<?> s = request;
    if (s == null) {
      s = KindShapes.request(this);
      request = s;
    }
    return s;
  }

  /** The reply body's shape (several kinds share one). */
  Shape<?> replyShape() {
    Shape<?> s = reply;
    if (s == null) {
      s = KindShapes.reply(this);
      reply = s;
    }
    return s;
  }

  /** The kind for a request code (response bit cleared), or null if unknown. */
  public static Kind fromCode(int code) {
    if (code < 0 || code > 0xFF) {
      return null;
    }
    return BY_CODE[code & ~RESPONSE_BIT];
  }
}
