package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.shape.Shape;

/**
 * Compare reservations, usage events and aggregates of (scope, resource) for settlements in
 * [fromMillis, toMillis), and repair each reservation drift with one compensating usage event
 * (never an edit). Empty {@code resource} means every resource of the scope. Audited.
 */
public record Reconcile(
    String scope, String resource, long fromMillis, long toMillis, String actor, String reason)
    implements QuotaCommand {
  public static final int CODE = 46;

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<Reconcile> SHAPE =
      Shape.of(
          Reconcile.class,
          str("scope", Reconcile::scope),
          str("resource", Reconcile::resource),
          i64("fromMillis", Reconcile::fromMillis),
          i64("toMillis", Reconcile::toMillis),
          str("actor", Reconcile::actor),
          str("reason", Reconcile::reason));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.reconcile(this);
  }
}
