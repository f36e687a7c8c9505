package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Overage;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;
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

  /** Its fields in the log, in this order after the command code. */
  public static final Shape<SetQuota> SHAPE =
      Shape.of(
          SetQuota.class,
          str("scope", SetQuota::scope),
          str("resource", SetQuota::resource),
          Fields.code("kind", SetQuota::kind, QuotaKind::fromCode, QuotaKind::code),
          Fields.code("window", SetQuota::window, Window::fromCode, Window::code),
          i64("limit", SetQuota::limit),
          str("unit", SetQuota::unit),
          i64("softLimit", SetQuota::softLimit),
          Fields.code("overage", SetQuota::overage, Overage::fromCode, Overage::code),
          i64("overageMax", SetQuota::overageMax),
          i64("periodStartMillis", SetQuota::periodStartMillis),
          i64("expectedVersion", SetQuota::expectedVersion),
          str("actor", SetQuota::actor),
          str("reason", SetQuota::reason));

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.setQuota(this);
  }
}
