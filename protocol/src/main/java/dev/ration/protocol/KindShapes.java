package dev.ration.protocol;

import dev.ration.wire.shape.Shape;

/**
 * The request and reply shape of every {@link Kind}. Apart from the enum so that naming a kind
 * loads no message family: each family's shapes (LeaseMessages, TtlMessages, QuotaMessages,
 * SecurityMessages) are built when a kind of that family is first encoded or decoded. The
 * switches are exhaustive, so a new kind without shapes does not compile.
 */
final class KindShapes {
  private KindShapes() {}

  static Shape<?> request(Kind kind) {
    return switch (kind) {
      case HELLO -> LeaseMessages.HELLO;
      case SET_LIMIT -> LeaseMessages.SET_LIMIT;
      case GET_LIMIT -> LeaseMessages.GET_LIMIT;
      case LIST_LIMITS -> LeaseMessages.LIST_LIMITS;
      case ACQUIRE_LEASE -> LeaseMessages.ACQUIRE_LEASE;
      case RENEW_LEASE -> LeaseMessages.RENEW_LEASE;
      case RETURN_LEASE -> LeaseMessages.RETURN_LEASE;
      case LIST_LEASES -> LeaseMessages.LIST_LEASES;
      case CLUSTER_STATUS -> LeaseMessages.CLUSTER_STATUS;
      case RENEW_LEASES -> LeaseMessages.RENEW_LEASES;
      case SET_LIMIT_CONCURRENCY -> LeaseMessages.SET_LIMIT_CONCURRENCY;
      case ACQUIRE_SLOTS -> LeaseMessages.ACQUIRE_SLOTS;
      case RENEW_SLOTS -> LeaseMessages.RENEW_SLOTS;
      case GET_SLOTS -> LeaseMessages.GET_SLOTS;
      case CANCEL -> LeaseMessages.CANCEL;
      case TTL_PUT -> TtlRequest.Put.SHAPE;
      case TTL_CAS -> TtlRequest.CompareAndSet.SHAPE;
      case TTL_REFRESH -> TtlRequest.Refresh.SHAPE;
      case TTL_DELETE -> TtlRequest.Delete.SHAPE;
      case TTL_GET -> TtlRequest.Get.SHAPE;
      case TTL_LIST -> TtlRequest.List.SHAPE;
      case TTL_NAMESPACE_SET -> TtlRequest.SetNamespace.SHAPE;
      case TTL_NAMESPACE_GET -> TtlRequest.GetNamespaces.SHAPE;
      case TTL_UPDATE -> TtlRequest.Update.SHAPE;
      case TTL_WATCH -> TtlRequest.Watch.SHAPE;
      case QUOTA_SET -> QuotaMessages.SET_QUOTA;
      case QUOTA_GET -> QuotaMessages.GET_QUOTA;
      case QUOTA_LIST -> QuotaMessages.LIST_QUOTAS;
      case QUOTA_HISTORY -> QuotaMessages.QUOTA_HISTORY;
      case RESERVE -> QuotaMessages.RESERVE;
      case RESERVATION_COMPLETE -> QuotaMessages.COMPLETE;
      case RESERVATION_CANCEL -> QuotaMessages.CANCEL;
      case RESERVATION_LIST -> QuotaMessages.LIST_RESERVATIONS;
      case USAGE_INGEST -> QuotaMessages.INGEST;
      case USAGE_READ -> QuotaMessages.READ_USAGE;
      case USAGE_ACK -> QuotaMessages.ACK_USAGE;
      case USAGE_AGGREGATE -> QuotaMessages.AGGREGATE_USAGE;
      case USAGE_RECONCILE -> QuotaMessages.RECONCILE;
      case AUDIT_READ -> QuotaMessages.READ_AUDIT;
      case RESERVE_KEYED -> QuotaMessages.RESERVE_KEYED;
      case BUDGET_GRANT -> QuotaMessages.GRANT_BUDGET;
      case BUDGET_REPORT -> QuotaMessages.REPORT_BUDGETS;
      case RESERVE_BATCH -> QuotaMessages.RESERVE_BATCH;
      case BUDGET_RETURN -> QuotaMessages.RETURN_BUDGET;
      case BUDGET_LIST -> QuotaMessages.LIST_BUDGETS;
      case TOKEN_CREATE -> SecurityMessages.CREATE_TOKEN;
      case TOKEN_REVOKE -> SecurityMessages.REVOKE_TOKEN;
      case TOKEN_LIST -> SecurityMessages.LIST_TOKENS;
      case ROLE_GRANT -> SecurityMessages.GRANT_ROLE;
      case ROLE_REVOKE -> SecurityMessages.REVOKE_ROLE;
      case ROLE_LIST -> SecurityMessages.LIST_GRANTS;
      case SECURITY_AUDIT_READ -> SecurityMessages.READ_SECURITY_AUDIT;
      case WHOAMI -> SecurityMessages.WHOAMI;
    };
  }

  static Shape<?> reply(Kind kind) {
    return switch (kind) {
      case HELLO -> LeaseMessages.HELLO_REPLY;
      case SET_LIMIT -> LeaseMessages.SET_LIMIT_REPLY;
      case GET_LIMIT -> LeaseMessages.GET_LIMIT_REPLY;
      case LIST_LIMITS -> LeaseMessages.LIMIT_LIST;
      case ACQUIRE_LEASE -> LeaseMessages.LEASE_REPLY;
      case RENEW_LEASE -> LeaseMessages.LEASE_REPLY;
      case RETURN_LEASE -> LeaseMessages.RETURN_REPLY;
      case LIST_LEASES -> LeaseMessages.LEASE_LIST;
      case CLUSTER_STATUS -> LeaseMessages.CLUSTER_STATUS_REPLY;
      case RENEW_LEASES -> LeaseMessages.RENEWALS_REPLY;
      case SET_LIMIT_CONCURRENCY -> LeaseMessages.SLOT_LIMIT_REPLY;
      case ACQUIRE_SLOTS -> LeaseMessages.SLOT_LEASE_REPLY;
      case RENEW_SLOTS -> LeaseMessages.SLOT_RENEWALS_REPLY;
      case GET_SLOTS -> LeaseMessages.SLOTS_REPLY;
      case CANCEL -> LeaseMessages.CANCEL_REPLY;
      case TTL_PUT -> TtlMessages.WRITE_REPLY;
      case TTL_CAS -> TtlMessages.WRITE_REPLY;
      case TTL_REFRESH -> TtlMessages.WRITE_REPLY;
      case TTL_DELETE -> TtlMessages.DELETE_REPLY;
      case TTL_GET -> TtlMessages.GET_REPLY;
      case TTL_LIST -> TtlMessages.LIST_REPLY;
      case TTL_NAMESPACE_SET -> TtlMessages.NAMESPACE_REPLY;
      case TTL_NAMESPACE_GET -> TtlMessages.NAMESPACE_LIST;
      case TTL_UPDATE -> TtlMessages.WRITE_REPLY;
      case TTL_WATCH -> TtlMessages.WATCH_REPLY;
      case QUOTA_SET -> QuotaMessages.QUOTA_SET_REPLY;
      case QUOTA_GET -> QuotaMessages.QUOTA_FOUND;
      case QUOTA_LIST -> QuotaMessages.QUOTA_LIST;
      case QUOTA_HISTORY -> QuotaMessages.QUOTA_LIST;
      case RESERVE -> QuotaMessages.RESERVE_REPLY;
      case RESERVATION_COMPLETE -> QuotaMessages.SETTLE_REPLY;
      case RESERVATION_CANCEL -> QuotaMessages.SETTLE_REPLY;
      case RESERVATION_LIST -> QuotaMessages.RESERVATION_LIST;
      case USAGE_INGEST -> QuotaMessages.INGEST_REPLY;
      case USAGE_READ -> QuotaMessages.USAGE_BATCH;
      case USAGE_ACK -> QuotaMessages.ACK_REPLY;
      case USAGE_AGGREGATE -> QuotaMessages.AGGREGATE_REPLY;
      case USAGE_RECONCILE -> QuotaMessages.RECONCILE_REPLY;
      case AUDIT_READ -> QuotaMessages.AUDIT_LIST;
      case RESERVE_KEYED -> QuotaMessages.RESERVE_REPLY;
      case BUDGET_GRANT -> QuotaMessages.BUDGET_GRANT_REPLY;
      case BUDGET_REPORT -> QuotaMessages.BUDGET_REPORTS_REPLY;
      case RESERVE_BATCH -> QuotaMessages.RESERVE_BATCH_REPLY;
      case BUDGET_RETURN -> QuotaMessages.BUDGET_RETURN_REPLY;
      case BUDGET_LIST -> QuotaMessages.BUDGET_LIST;
      case TOKEN_CREATE -> SecurityMessages.CHANGE_REPLY;
      case TOKEN_REVOKE -> SecurityMessages.CHANGE_REPLY;
      case TOKEN_LIST -> SecurityMessages.TOKEN_LIST;
      case ROLE_GRANT -> SecurityMessages.CHANGE_REPLY;
      case ROLE_REVOKE -> SecurityMessages.CHANGE_REPLY;
      case ROLE_LIST -> SecurityMessages.GRANT_LIST;
      case SECURITY_AUDIT_READ -> SecurityMessages.SECURITY_AUDIT;
      case WHOAMI -> SecurityMessages.WHOAMI_REPLY;
    };
  }
}
