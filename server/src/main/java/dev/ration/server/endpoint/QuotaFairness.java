package dev.ration.server.endpoint;

import dev.ration.client.protocol.QuotaRequest;
import dev.ration.client.protocol.Request;

/**
 * Which requests take a place in their tenant's {@link TenantShares}: reservations and usage
 * ingests (the work a hot tenant can flood with). Everything else is not gated. Stateless.
 */
final class QuotaFairness {
  private QuotaFairness() {}

  /** The tenant key of a gated request, or "" if the request is not gated. */
  static String tenantOf(Request request) {
    if (request instanceof Request.Quota q) {
      if (q.request() instanceof QuotaRequest.Reserve r) {
        return TenantShares.tenantOf(r.scope());
      }
      if (q.request() instanceof QuotaRequest.ReserveKeyed r) {
        return TenantShares.tenantOf(r.scope());
      }
      if (q.request() instanceof QuotaRequest.IngestUsage i) {
        return TenantShares.tenantOf(i.scope());
      }
    }
    return "";
  }
}
