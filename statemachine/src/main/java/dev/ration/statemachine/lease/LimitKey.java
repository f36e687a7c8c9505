package dev.ration.statemachine.lease;

/** The identity of a limit: (tenant, resource). Ordered by tenant, then resource. */
public record LimitKey(String tenant, String resource) implements Comparable<LimitKey> {
  @Override
  public int compareTo(LimitKey other) {
    int byTenant = tenant.compareTo(other.tenant);
    return byTenant != 0 ? byTenant : resource.compareTo(other.resource);
  }
}
