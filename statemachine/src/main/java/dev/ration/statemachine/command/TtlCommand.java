package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import dev.ration.wire.CapacityPolicy;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.security.Tenants;
import dev.ration.wire.shape.Shape;

/** The TTL ledger's commands: entries and namespaces. Codes 20-39 of the log format. */
public sealed interface TtlCommand extends Command {

  /** Calls the {@code handler} method for this command. */
  <R> R accept(Handler<R> handler);

  @Override
  default Class<TtlCommand> family() {
    return TtlCommand.class;
  }

  /**
   * Store {@code value} under (namespace, key), replacing any entry, with a new version and a new
   * expiry: a plain put always resets the TTL. {@code ttlMillis}: 0 = already expired,
   * {@link #NO_EXPIRY} (−1) = never expires, else expiresAt = now + ttlMillis (ledger time).
   */
  record PutEntry(String namespace, String key, Bytes value, long ttlMillis)
      implements TtlCommand {
    public static final int CODE = 20;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TTL_PUT";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<PutEntry> SHAPE =
        Shape.of(
            PutEntry.class,
            str("namespace", PutEntry::namespace),
            str("key", PutEntry::key),
            Fields.value("value", PutEntry::value),
            i64("ttlMillis", PutEntry::ttlMillis));

    /** ttlMillis meaning "no expiry" (expiresAt = Long.MAX_VALUE). */
    public static final long NO_EXPIRY = -1;

    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(TtlCommand.Handler<R> handler) {
      return handler.put(this);
    }
  }

  /**
   * Put only if the live entry's version is {@code expectedVersion}; 0 means "absent or expired"
   * (create). Otherwise VERSION_MISMATCH with the current version (0 if absent). A lock is an
   * entry created this way; its version is the fencing token.
   */
  record CompareAndSetEntry(String namespace, String key, long expectedVersion, Bytes value,
      long ttlMillis) implements TtlCommand {
    public static final int CODE = 21;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TTL_CAS";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<CompareAndSetEntry> SHAPE =
        Shape.of(
            CompareAndSetEntry.class,
            str("namespace", CompareAndSetEntry::namespace),
            str("key", CompareAndSetEntry::key),
            i64("expectedVersion", CompareAndSetEntry::expectedVersion),
            Fields.value("value", CompareAndSetEntry::value),
            i64("ttlMillis", CompareAndSetEntry::ttlMillis));

    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(TtlCommand.Handler<R> handler) {
      return handler.compareAndSet(this);
    }
  }

  /**
   * Set a live entry's expiry to now + {@code ttlMillis} (or none for −1); the value and version
   * stay. {@code expectedVersion} 0 = any version (a lock holder passes its fencing token, so it
   * never extends somebody else's lock). An absent or expired entry is ENTRY_UNKNOWN.
   */
  record RefreshEntry(String namespace, String key, long ttlMillis, long expectedVersion)
      implements TtlCommand {
    public static final int CODE = 22;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TTL_REFRESH";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<RefreshEntry> SHAPE =
        Shape.of(
            RefreshEntry.class,
            str("namespace", RefreshEntry::namespace),
            str("key", RefreshEntry::key),
            i64("ttlMillis", RefreshEntry::ttlMillis),
            i64("expectedVersion", RefreshEntry::expectedVersion));

    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(TtlCommand.Handler<R> handler) {
      return handler.refresh(this);
    }
  }

  /**
   * Delete the entry; {@code expectedVersion} 0 = whatever version (deleting an absent entry then
   * succeeds with existed = false), else only that version (VERSION_MISMATCH otherwise).
   */
  record DeleteEntry(String namespace, String key, long expectedVersion) implements TtlCommand {
    public static final int CODE = 23;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TTL_DELETE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<DeleteEntry> SHAPE =
        Shape.of(
            DeleteEntry.class,
            str("namespace", DeleteEntry::namespace),
            str("key", DeleteEntry::key),
            i64("expectedVersion", DeleteEntry::expectedVersion));

    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(TtlCommand.Handler<R> handler) {
      return handler.delete(this);
    }
  }

  /**
   * Create or reconfigure a TTL namespace's capacity. Shrinking below the current usage evicts
   * nothing at once; later writes find the namespace full.
   */
  record SetNamespace(String namespace, long maxEntries, long maxBytes,
      CapacityPolicy policy) implements TtlCommand, Audited {
    public static final int CODE = 24;

    @Override
    public AuditLine auditLine(Result result) {
      return result instanceof Result.NamespaceSet
          ? new AuditLine("namespace.set", Tenants.ofPath(namespace), namespace,
              "maxEntries " + maxEntries + " maxBytes " + maxBytes + " policy " + policy)
          : null;
    }

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TTL_NAMESPACE_SET";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<SetNamespace> SHAPE =
        Shape.of(
            SetNamespace.class,
            str("namespace", SetNamespace::namespace),
            i64("maxEntries", SetNamespace::maxEntries),
            i64("maxBytes", SetNamespace::maxBytes),
            Fields.code("policy", SetNamespace::policy, CapacityPolicy::fromCode, CapacityPolicy::code));

    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(TtlCommand.Handler<R> handler) {
      return handler.setNamespace(this);
    }
  }

  /**
   * Replace the value of a live entry and keep its expiry (Redis's SET KEEPTTL): a new version,
   * the same expiresAt. {@code expectedVersion} 0 = any version, else only that version
   * (VERSION_MISMATCH otherwise). An absent or expired entry is ENTRY_UNKNOWN: there is no
   * expiry to keep, and creating one without a TTL would be a different operation.
   */
  record UpdateEntry(String namespace, String key, Bytes value, long expectedVersion)
      implements TtlCommand {
    public static final int CODE = 25;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TTL_UPDATE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<UpdateEntry> SHAPE =
        Shape.of(
            UpdateEntry.class,
            str("namespace", UpdateEntry::namespace),
            str("key", UpdateEntry::key),
            Fields.value("value", UpdateEntry::value),
            i64("expectedVersion", UpdateEntry::expectedVersion));

    @Override
    public Touches touches() {
      return Touches.pathOf(namespace);
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(TtlCommand.Handler<R> handler) {
      return handler.update(this);
    }
  }

  /** One method per TTL command: whoever applies them must handle every one. */
  interface Handler<R> {
    R put(PutEntry command);

    R compareAndSet(CompareAndSetEntry command);

    R refresh(RefreshEntry command);

    R delete(DeleteEntry command);

    R setNamespace(SetNamespace command);

    R update(UpdateEntry command);
  }
}
