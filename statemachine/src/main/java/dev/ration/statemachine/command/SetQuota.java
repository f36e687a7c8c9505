package dev.ration.statemachine.command;

import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;

/**
 * Create or change the catalog entry for (scope, resource): a new version, recorded with
 * {@code actor} and {@code reason} in the history and the audit log. {@code expectedVersion} = 0
 * means "whatever is there"; otherwise the change applies only if the entry's current version
 * equals it (else STALE_CONFIG with the current version). The kind of an entry never changes.
 */
public record SetQuota(
    String scope,
    String resource,
    QuotaKind kind,
    Window window,
    long limit,
    String unit,
    long softLimit,
    Overage overage,
    long overageMax,
    long periodStartMillis,
    long expectedVersion,
    String actor,
    String reason)
    implements QuotaCommand {
  public static final int CODE = 40;

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.setQuota(this);
  }
}
