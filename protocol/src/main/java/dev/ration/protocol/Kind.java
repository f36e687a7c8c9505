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
  HELLO(0x01, false, CONNECT, LeaseMessages.HELLO, LeaseMessages.HELLO_REPLY),
  SET_LIMIT(0x02, true, LIMIT_ADMIN, LeaseMessages.SET_LIMIT, LeaseMessages.SET_LIMIT_REPLY),
  GET_LIMIT(0x03, false, LIMIT_READ, LeaseMessages.GET_LIMIT, LeaseMessages.GET_LIMIT_REPLY),
  LIST_LIMITS(0x04, false, LIMIT_READ, LeaseMessages.LIST_LIMITS, LeaseMessages.LIMIT_LIST),
  ACQUIRE_LEASE(0x05, true, LEASE_USE, LeaseMessages.ACQUIRE_LEASE, LeaseMessages.LEASE_REPLY),
  RENEW_LEASE(0x06, true, LEASE_USE, LeaseMessages.RENEW_LEASE, LeaseMessages.LEASE_REPLY),
  RETURN_LEASE(0x07, true, LEASE_USE, LeaseMessages.RETURN_LEASE, LeaseMessages.RETURN_REPLY),
  LIST_LEASES(0x08, false, LIMIT_READ, LeaseMessages.LIST_LEASES, LeaseMessages.LEASE_LIST),
  CLUSTER_STATUS(
      0x09, false, CLUSTER_READ, LeaseMessages.CLUSTER_STATUS, LeaseMessages.CLUSTER_STATUS_REPLY),
  RENEW_LEASES(
      0x0A, true, LEASE_USE, LeaseMessages.RENEW_LEASES, LeaseMessages.RENEWALS_REPLY),
  // Concurrency slots: new kinds, so the bytes of SET_LIMIT and the lease kinds stay.
  SET_LIMIT_CONCURRENCY(0x0B, true, LIMIT_ADMIN,
      LeaseMessages.SET_LIMIT_CONCURRENCY, LeaseMessages.SLOT_LIMIT_REPLY),
  ACQUIRE_SLOTS(0x0C, true, LEASE_USE, LeaseMessages.ACQUIRE_SLOTS, LeaseMessages.SLOT_LEASE_REPLY),
  RENEW_SLOTS(0x0D, true, LEASE_USE, LeaseMessages.RENEW_SLOTS, LeaseMessages.SLOT_RENEWALS_REPLY),
  GET_SLOTS(0x0E, false, LIMIT_READ, LeaseMessages.GET_SLOTS, LeaseMessages.SLOTS_REPLY),
  /**
   * Withdraws a request of the same connection that is still waiting to be proposed: answered
   * by the connection itself, never proposed, so any session may send it.
   */
  CANCEL(0x10, false, CONNECT, LeaseMessages.CANCEL, LeaseMessages.CANCEL_REPLY),
  // TTL entries: 0x20-0x2F, request shapes on the TtlRequest records, replies in TtlMessages.
  TTL_PUT(0x20, true, TTL_WRITE, TtlRequest.Put.SHAPE, TtlMessages.WRITE_REPLY),
  TTL_CAS(0x21, true, TTL_WRITE, TtlRequest.CompareAndSet.SHAPE, TtlMessages.WRITE_REPLY),
  TTL_REFRESH(0x22, true, TTL_WRITE, TtlRequest.Refresh.SHAPE, TtlMessages.WRITE_REPLY),
  TTL_DELETE(0x23, true, TTL_WRITE, TtlRequest.Delete.SHAPE, TtlMessages.DELETE_REPLY),
  TTL_GET(0x24, false, TTL_READ, TtlRequest.Get.SHAPE, TtlMessages.GET_REPLY),
  TTL_LIST(0x25, false, TTL_READ, TtlRequest.List.SHAPE, TtlMessages.LIST_REPLY),
  TTL_NAMESPACE_SET(
      0x26, true, TTL_ADMIN, TtlRequest.SetNamespace.SHAPE, TtlMessages.NAMESPACE_REPLY),
  TTL_NAMESPACE_GET(
      0x27, false, TTL_READ, TtlRequest.GetNamespaces.SHAPE, TtlMessages.NAMESPACE_LIST),
  TTL_UPDATE(0x28, true, TTL_WRITE, TtlRequest.Update.SHAPE, TtlMessages.WRITE_REPLY),
  // Quotas, reservations and usage: 0x40-0x5F, shapes in QuotaMessages.
  QUOTA_SET(0x40, true, QUOTA_ADMIN,
      QuotaMessages.SET_QUOTA, QuotaMessages.QUOTA_SET_REPLY),
  QUOTA_GET(0x41, false, QUOTA_USE,
      QuotaMessages.GET_QUOTA, QuotaMessages.QUOTA_FOUND),
  QUOTA_LIST(0x42, false, QUOTA_USE,
      QuotaMessages.LIST_QUOTAS, QuotaMessages.QUOTA_LIST),
  QUOTA_HISTORY(0x43, false, QUOTA_USE,
      QuotaMessages.QUOTA_HISTORY, QuotaMessages.QUOTA_LIST),
  RESERVE(0x44, true, QUOTA_USE,
      QuotaMessages.RESERVE, QuotaMessages.RESERVE_REPLY),
  RESERVATION_COMPLETE(0x45, true, QUOTA_USE,
      QuotaMessages.COMPLETE, QuotaMessages.SETTLE_REPLY),
  RESERVATION_CANCEL(0x46, true, QUOTA_USE,
      QuotaMessages.CANCEL, QuotaMessages.SETTLE_REPLY),
  RESERVATION_LIST(0x47, false, QUOTA_USE,
      QuotaMessages.LIST_RESERVATIONS, QuotaMessages.RESERVATION_LIST),
  USAGE_INGEST(0x48, true, USAGE_WRITE,
      QuotaMessages.INGEST, QuotaMessages.INGEST_REPLY),
  USAGE_READ(0x49, false, Permission.USAGE_READ,
      QuotaMessages.READ_USAGE, QuotaMessages.USAGE_BATCH),
  USAGE_ACK(0x4A, true, Permission.USAGE_READ,
      QuotaMessages.ACK_USAGE, QuotaMessages.ACK_REPLY),
  USAGE_AGGREGATE(0x4B, false, Permission.USAGE_READ,
      QuotaMessages.AGGREGATE_USAGE, QuotaMessages.AGGREGATE_REPLY),
  USAGE_RECONCILE(0x4C, true, QUOTA_ADMIN,
      QuotaMessages.RECONCILE, QuotaMessages.RECONCILE_REPLY),
  AUDIT_READ(0x4D, false, QUOTA_ADMIN,
      QuotaMessages.READ_AUDIT, QuotaMessages.AUDIT_LIST),
  /** RESERVE with the application's idempotency key; a new kind so RESERVE's bytes stay. */
  RESERVE_KEYED(0x4E, true, QUOTA_USE,
      QuotaMessages.RESERVE_KEYED, QuotaMessages.RESERVE_REPLY),
  // Identities, roles and the security audit: 0x60-0x6F, shapes in SecurityMessages.
  TOKEN_CREATE(0x60, true, SECURITY_ADMIN,
      SecurityMessages.CREATE_TOKEN, SecurityMessages.CHANGE_REPLY),
  TOKEN_REVOKE(0x61, true, SECURITY_ADMIN,
      SecurityMessages.REVOKE_TOKEN, SecurityMessages.CHANGE_REPLY),
  TOKEN_LIST(0x62, false, SECURITY_ADMIN,
      SecurityMessages.LIST_TOKENS, SecurityMessages.TOKEN_LIST),
  ROLE_GRANT(0x63, true, SECURITY_ADMIN,
      SecurityMessages.GRANT_ROLE, SecurityMessages.CHANGE_REPLY),
  ROLE_REVOKE(0x64, true, SECURITY_ADMIN,
      SecurityMessages.REVOKE_ROLE, SecurityMessages.CHANGE_REPLY),
  ROLE_LIST(0x65, false, SECURITY_ADMIN,
      SecurityMessages.LIST_GRANTS, SecurityMessages.GRANT_LIST),
  SECURITY_AUDIT_READ(0x66, false, SECURITY_ADMIN,
      SecurityMessages.READ_SECURITY_AUDIT, SecurityMessages.SECURITY_AUDIT),
  /** Who the server takes this connection to be, and its grants: needs only a session. */
  WHOAMI(0x67, false, CONNECT, SecurityMessages.WHOAMI, SecurityMessages.WHOAMI_REPLY);

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
  private final Shape<?> request;
  private final Shape<?> reply;

  Kind(int code, boolean mutation, Permission permission, Shape<?> request, Shape<?> reply) {
    this.code = code;
    this.mutation = mutation;
    this.permission = permission;
    this.request = request;
    this.reply = reply;
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
    return request.type();
  }

  /** The request body's shape. */
  Shape<?> requestShape() {
    return request;
  }

  /** The reply body's shape (several kinds share one). */
  Shape<?> replyShape() {
    return reply;
  }

  /** The kind for a request code (response bit cleared), or null if unknown. */
  public static Kind fromCode(int code) {
    if (code < 0 || code > 0xFF) {
      return null;
    }
    return BY_CODE[code & ~RESPONSE_BIT];
  }
}
