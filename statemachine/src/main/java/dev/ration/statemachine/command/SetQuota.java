package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.struct;

import dev.ration.wire.quota.QuotaSpec;
import dev.ration.wire.shape.Shape;

/**
 * Create or change the catalog entry for (scope, resource): a new version, recorded with
 * {@code actor} and {@code reason} in the history and the audit log. {@code spec.version()} is
 * the version the caller last read: 0 means "whatever is there"; otherwise the change applies
 * only if the entry's current version equals it (else STALE_CONFIG with the current version).
 * The kind of an entry never changes.
 */
public record SetQuota(QuotaSpec spec) implements QuotaCommand {
  public static final int CODE = 40;

  /** Its fields in the log, in this order after the command code: the proposal's encoding. */
  public static final Shape<SetQuota> SHAPE =
      Shape.of(SetQuota.class, struct("spec", SetQuota::spec, QuotaSpec.PROPOSAL));

  /** The version the caller last read (0: any). */
  public long expectedVersion() {
    return spec.version();
  }

  @Override
  public int code() {
    return CODE;
  }

  @Override
  public <R> R accept(QuotaCommand.Handler<R> handler) {
    return handler.setQuota(this);
  }
}
