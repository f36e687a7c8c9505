package dev.ration.client.protocol;

/**
 * Frame kinds. A request uses the code below; its response uses {@code code | 0x80}.
 * Codes are explicit and append-only; never use {@code ordinal()}.
 */
public enum Kind {
  HELLO(0x01),
  SET_LIMIT(0x02),
  GET_LIMIT(0x03),
  LIST_LIMITS(0x04),
  ACQUIRE_LEASE(0x05),
  RENEW_LEASE(0x06),
  RETURN_LEASE(0x07),
  LIST_LEASES(0x08),
  CLUSTER_STATUS(0x09),
  // --- ttl (issue 4): 0x20-0x2F, bodies in TtlMessages
  TTL_PUT(0x20),
  TTL_CAS(0x21),
  TTL_REFRESH(0x22),
  TTL_DELETE(0x23),
  TTL_GET(0x24),
  TTL_LIST(0x25),
  TTL_NAMESPACE_SET(0x26),
  TTL_NAMESPACE_GET(0x27),
  // --- end ttl
  // --- quota (issue 6): 0x40-0x5F, bodies in QuotaMessages
  QUOTA_SET(0x40),
  QUOTA_GET(0x41),
  QUOTA_LIST(0x42),
  QUOTA_HISTORY(0x43),
  RESERVE(0x44),
  RESERVATION_COMPLETE(0x45),
  RESERVATION_CANCEL(0x46),
  RESERVATION_LIST(0x47),
  USAGE_INGEST(0x48),
  USAGE_READ(0x49),
  USAGE_ACK(0x4A),
  USAGE_AGGREGATE(0x4B),
  USAGE_RECONCILE(0x4C),
  AUDIT_READ(0x4D);
  // --- end quota

  public static final int RESPONSE_BIT = 0x80;

  private final int code;

  Kind(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public int responseCode() {
    return code | RESPONSE_BIT;
  }

  /** The kind for a request code (response bit cleared), or null if unknown. */
  public static Kind fromCode(int code) {
    int c = code & ~RESPONSE_BIT;
    for (Kind k : values()) {
      if (k.code == c) {
        return k;
      }
    }
    return null;
  }
}
