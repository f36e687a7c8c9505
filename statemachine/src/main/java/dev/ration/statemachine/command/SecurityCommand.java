package dev.ration.statemachine.command;

import static dev.ration.wire.shape.Fields.i64;
import static dev.ration.wire.shape.Fields.str;

import dev.ration.wire.Bytes;
import dev.ration.wire.shape.Fields;
import dev.ration.wire.shape.Shape;

/**
 * The security ledger's commands: bearer tokens and role grants. Codes 60-79 of the log format.
 * Every command names its {@code actor}, the authenticated identity that asked for it (filled
 * in by the endpoint, never by the caller), which the audit log records.
 *
 * <p>No secret is ever in a command: a token is created from its id, a salt and the SHA-256 of
 * salt and secret, all chosen by the caller, so the log, the snapshots and the audit log hold
 * nothing that authenticates.
 */
public sealed interface SecurityCommand extends Command {

  /** Calls the {@code handler} method for this command. */
  <R> R accept(Handler<R> handler);

  @Override
  default Class<SecurityCommand> family() {
    return SecurityCommand.class;
  }

  /**
   * Creates token {@code tokenId} for {@code identity}. {@code ttlMillis} 0 = never expires,
   * else it expires at now + ttlMillis of ledger time. Creating a token that exists with the
   * same identity, salt and hash changes nothing and succeeds (a retried create), anything else
   * under an existing id is refused.
   */
  record CreateToken(long tokenId, String identity, Bytes salt, Bytes hash, long ttlMillis,
      String actor) implements SecurityCommand, NamesActor {
    public static final int CODE = 60;

    @Override
    public CreateToken withActor(String actor) {
      return new CreateToken(tokenId, identity, salt, hash, ttlMillis, actor);
    }

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TOKEN_CREATE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<CreateToken> SHAPE =
        Shape.of(
            CreateToken.class,
            i64("tokenId", CreateToken::tokenId),
            str("identity", CreateToken::identity),
            Fields.value("salt", CreateToken::salt),
            Fields.value("hash", CreateToken::hash),
            i64("ttlMillis", CreateToken::ttlMillis),
            str("actor", CreateToken::actor));

    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.createToken(this);
    }
  }

  /** Revokes token {@code tokenId}; revoking an absent token succeeds and changes nothing. */
  record RevokeToken(long tokenId, String actor) implements SecurityCommand, NamesActor {
    @Override
    public RevokeToken withActor(String actor) {
      return new RevokeToken(tokenId, actor);
    }

    public static final int CODE = 61;

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "TOKEN_REVOKE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<RevokeToken> SHAPE =
        Shape.of(
            RevokeToken.class,
            i64("tokenId", RevokeToken::tokenId),
            str("actor", RevokeToken::actor));

    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.revokeToken(this);
    }
  }

  /** Grants {@code role} over {@code tenant} ("*" = every tenant) to {@code identity}. */
  record GrantRole(String identity, String role, String tenant, String actor)
      implements SecurityCommand, NamesActor {
    public static final int CODE = 62;

    @Override
    public GrantRole withActor(String actor) {
      return new GrantRole(identity, role, tenant, actor);
    }

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "ROLE_GRANT";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<GrantRole> SHAPE =
        Shape.of(
            GrantRole.class,
            str("identity", GrantRole::identity),
            str("role", GrantRole::role),
            str("tenant", GrantRole::tenant),
            str("actor", GrantRole::actor));

    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.grantRole(this);
    }
  }

  /** Withdraws one grant; withdrawing a grant that does not exist succeeds and changes nothing. */
  record RevokeRole(String identity, String role, String tenant, String actor)
      implements SecurityCommand, NamesActor {
    public static final int CODE = 63;

    @Override
    public RevokeRole withActor(String actor) {
      return new RevokeRole(identity, role, tenant, actor);
    }

    /** The protocol operation it serves, as the wire names it. */
    public static final String OPERATION = "ROLE_REVOKE";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<RevokeRole> SHAPE =
        Shape.of(
            RevokeRole.class,
            str("identity", RevokeRole::identity),
            str("role", RevokeRole::role),
            str("tenant", RevokeRole::tenant),
            str("actor", RevokeRole::actor));

    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return CODE;
    }

    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.revokeRole(this);
    }
  }

  /**
   * Another client command, applied on behalf of {@code actor} and only if what it touches is
   * within {@code tenants} (one per line; empty = any tenant). The replica unwraps it before
   * routing and judges the inner command's own declaration ({@link Command#touches()}): the
   * tenants it names, and the ids it names, which the ledger owning the command resolves on its
   * current state (a renewal names only a lease id, which the endpoint cannot resolve, but the
   * ledger can, deterministically). A refusal is {@link dev.ration.statemachine.result.Result.Denied};
   * otherwise the inner command is applied and every ledger sees who made the change (the audit
   * log). The inner command's bytes are its own log encoding, unchanged.
   *
   * <p>Two codes, one meaning each. {@link #CLOSED_CODE} (65), which the endpoint writes, fails
   * closed: an id that resolves to no live object, cluster state and a reference to another
   * tenant's object are refused to an identity limited to tenants. {@link #CODE} (64) is how
   * earlier releases wrote it and keeps their meaning when their entries are replayed: it checks
   * only the tenants the command names and the ids that resolve (docs/DECISIONS.md "Log commands
   * across releases").
   */
  record Authorized(String actor, String tenants, Bytes inner, boolean closed)
      implements SecurityCommand {
    public static final int CODE = 64;

    /** The protocol operation it serves: whichever the inner command serves. */
    public static final String OPERATION = "AUTHORIZED";

    /** The code of an Authorized that fails closed: the fields of {@link #CODE}. */
    public static final int CLOSED_CODE = 65;

    /** The protocol operation a closed Authorized serves: whichever the inner command serves. */
    public static final String CLOSED_OPERATION = "AUTHORIZED";

    /** Its fields in the log, in this order after the command code. */
    public static final Shape<Authorized> SHAPE =
        Shape.reordered(
            Authorized.class,
            str("actor", Authorized::actor),
            str("tenants", Authorized::tenants),
            Fields.value("inner", Authorized::inner),
            Fields.absent("closed", false));

    /** The fields of a closed Authorized ({@link #CLOSED_CODE}): the same as {@link #SHAPE}'s. */
    public static final Shape<Authorized> CLOSED_SHAPE =
        Shape.reordered(
            Authorized.class,
            str("actor", Authorized::actor),
            str("tenants", Authorized::tenants),
            Fields.value("inner", Authorized::inner),
            Fields.absent("closed", true));

    /**
     * {@code inner} on behalf of {@code actor}, limited to {@code tenants} (empty = any), failing
     * closed. Unlimited (only attributed, for the audit log), both codes apply it alike, so it
     * keeps the code every release decodes: a rolling upgrade's older nodes apply it too.
     */
    public static Authorized of(String actor, java.util.List<String> tenants, Command inner) {
      return new Authorized(actor, String.join("\n", tenants),
          new Bytes(BatchCodec.encodeCommand(inner)), !tenants.isEmpty());
    }

    /** The allowed tenants; empty = any. */
    public java.util.List<String> tenantList() {
      return tenants.isEmpty() ? java.util.List.of() : java.util.List.of(tenants.split("\n", -1));
    }

    @Override
    public Touches touches() {
      return Touches.cluster();
    }

    @Override
    public int code() {
      return closed ? CLOSED_CODE : CODE;
    }

    @Override
    public <R> R accept(Handler<R> handler) {
      return handler.authorized(this);
    }
  }

  /** One method per command, so no ledger compiles without handling every one. */
  interface Handler<R> {
    /** Unwrapped by the replica before routing; a ledger never sees it. */
    R authorized(Authorized command);

    R createToken(CreateToken command);

    R revokeToken(RevokeToken command);

    R grantRole(GrantRole command);

    R revokeRole(RevokeRole command);
  }
}
