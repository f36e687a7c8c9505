package dev.ration.statemachine.command;

/**
 * Compare reservations, usage events and aggregates of (scope, resource) for settlements in
 * [fromMillis, toMillis), and repair each reservation drift with one compensating usage event
 * (never an edit). Empty {@code resource} means every resource of the scope. Audited.
 */
public record Reconcile(
    String scope, String resource, long fromMillis, long toMillis, String actor, String reason)
    implements QuotaCommand {
  public static final int CODE = 46;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.reconcile(this);
  }
}
