package dev.ration.statemachine.command;

/** Ask for a new lease on (tenant, resource) for {@code holder}, up to the demanded shares. */
public record AcquireLease(
    String tenant, String resource, String holder, long demandRatePerSecond, long demandBurst)
    implements LeaseCommand {
  public static final int CODE = 2;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(LeaseCommand.Handler<R> handler) {
    return handler.acquire(this);
  }
}
