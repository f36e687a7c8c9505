package dev.ration.server.security;

/**
 * What a request is about, for authorization: the tenant a grant must cover.
 */
public sealed interface Scope {
  /** The session itself (HELLO, WHOAMI, this node's status): only the permission is checked. */
  record Session() implements Scope {}

  /** One tenant's state: a grant on that tenant or on "*" covers it. */
  record Tenant(String tenant) implements Scope {}

  /** Every tenant, or the cluster as a whole: only a grant on "*" covers it. */
  record AllTenants() implements Scope {}

  /**
   * State named by an id (a lease, a reservation) whose tenant only the state machine knows:
   * the command is proposed limited to the caller's granted tenants, and the ledger refuses it
   * if the id belongs to another tenant.
   */
  record ById() implements Scope {}

  Scope SESSION = new Session();
  Scope ALL = new AllTenants();
  Scope BY_ID = new ById();
}
