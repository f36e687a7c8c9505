package dev.ration.statemachine.security;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Audited;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.LeaseCommand;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.command.TtlCommand;
import dev.ration.wire.security.Tenants;
import dev.ration.statemachine.command.SecurityCommand.CreateToken;
import dev.ration.statemachine.command.SecurityCommand.GrantRole;
import dev.ration.statemachine.command.SecurityCommand.RevokeRole;
import dev.ration.statemachine.command.SecurityCommand.RevokeToken;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.replica.Millis;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import dev.ration.wire.Outcome;
import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.security.RoleGrant;
import dev.ration.wire.security.TokenView;
import dev.ration.wire.shape.Shape;
import dev.ration.statemachine.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Bearer tokens, role grants and the security audit log (docs/SECURITY.md). One
 * {@link Ledger} of the replica.
 *
 * <p><b>What it keeps.</b> Tokens by id (identity, salt, salted hash, created, expires) and
 * grants (identity, role, tenant), both small and held in memory, written through to the
 * {@link #FAMILY} column family; the audit log of every change, stored only. After an entry
 * that changed either, {@link #table()} is a new immutable {@link SecurityTable}, which the
 * server authenticates and authorizes against without taking the apply lock.
 *
 * <p><b>Expiry.</b> A token's expiry is ledger time ({@code now + ttlMillis} when it was
 * created), so every replica agrees on it; it is put in the shared expiry index (kind
 * {@link ExpiryKey#TOKEN_END}), so the leader proposes a Tick when it is due even on an idle
 * cluster, and the Tick deletes it: the token stops authenticating on every node as soon as
 * that entry is applied.
 *
 * <p><b>Audit retention.</b> A record of the audit log is kept for
 * {@link StateOptions#securityAuditRetentionMillis()} of ledger time. At the end of every entry
 * the records due by the entry's ledger time are deleted, oldest first, at most
 * {@link StateOptions#SECURITY_AUDIT_PRUNE_PER_ENTRY} of them: records are written in sequence
 * order with non-decreasing times, so the due ones are a prefix. Every replica applies the same
 * entries with the same times and deletes the same records. On an idle cluster a due record
 * waits for the next entry (a Tick, any change).
 *
 * <p><b>Roles are names.</b> Which permissions a role gives is the server's table; the ledger
 * stores the name. A role this version does not know grants nothing (default deny).
 *
 * <p>Stored layout (family {@code security}, values start with a format byte 1):
 * <pre>
 * 't' i64 tokenId                      → StoredToken
 * 'g' identity 0 role 0 tenant (UTF-8) → RoleGrant
 * 'a' i64 sequence                     → AuditRecord
 * 'n'                                  → i64 next audit sequence
 * </pre>
 *
 * <p>Thread: the single applying thread; {@link #table()} may be read from any thread.
 */
public final class SecurityLedger implements Ledger {
  public static final String FAMILY = "security";
  private static final int FORMAT = 1;
  /** The actor of changes the ledger makes itself (a token expiring). */
  public static final String LEDGER_ACTOR = "ledger";
  public static final int SALT_BYTES_MIN = 16;
  public static final int SALT_BYTES_MAX = 64;
  public static final int HASH_BYTES = 32;
  public static final int ROLE_BYTES_MAX = 64;
  /** Most audit records one read returns. */
  public static final int AUDIT_READ_MAX = 1000;

  private static final byte TOKEN = 't';
  private static final byte GRANT = 'g';
  private static final byte AUDIT = 'a';
  private static final byte[] NEXT_AUDIT_KEY = {'n'};
  private static final long NO_AUDIT = 0;

  private final StateOptions options;
  private final ApplyContext context;
  private final TreeMap<Long, StoredToken> tokens = new TreeMap<>();
  private final TreeMap<String, RoleGrant> grants = new TreeMap<>();
  private long nextAuditSequence = 1;
  /** The oldest audit record kept (sequence and ledger time), or {@link #NO_AUDIT}. */
  private long oldestAuditSequence = NO_AUDIT;
  private long oldestAuditAtMillis;
  private long entryNowMillis;
  private long entryFirstAuditSequence;
  private boolean changedInEntry;
  /** Read by other threads: an immutable copy, replaced whole. */
  private volatile SecurityTable table = SecurityTable.EMPTY;

  public SecurityLedger(StateOptions options, ApplyContext context) {
    this.options = options;
    this.context = context;
  }

  /** The tokens and grants as of the last applied entry (any thread). */
  public SecurityTable table() {
    return table;
  }

  @Override
  public String name() {
    return "security";
  }

  @Override
  public Class<SecurityCommand> commands() {
    return SecurityCommand.class;
  }

  @Override
  public Result apply(Command command) {
    return ((SecurityCommand) command).accept(handler);
  }

  private final SecurityCommand.Handler<Result> handler = new SecurityCommand.Handler<>() {
    @Override
    public Result authorized(SecurityCommand.Authorized c) {
      throw new IllegalStateException("Authorized is unwrapped by the replica, never routed");
    }

    @Override
    public Result createToken(CreateToken c) {
      return SecurityLedger.this.createToken(c);
    }

    @Override
    public Result revokeToken(RevokeToken c) {
      return SecurityLedger.this.revokeToken(c);
    }

    @Override
    public Result grantRole(GrantRole c) {
      return SecurityLedger.this.grantRole(c);
    }

    @Override
    public Result revokeRole(RevokeRole c) {
      return SecurityLedger.this.revokeRole(c);
    }
  };

  // ---------------------------------------------------------------- commands

  private Result createToken(CreateToken c) {
    String problem = firstProblem(
        c.tokenId() == 0 ? "tokenId 0 is reserved" : null,
        nameProblem("identity", c.identity()),
        c.salt().length() < SALT_BYTES_MIN || c.salt().length() > SALT_BYTES_MAX
            ? "salt is " + c.salt().length() + " bytes, allowed " + SALT_BYTES_MIN + ".."
                + SALT_BYTES_MAX
            : null,
        c.hash().length() != HASH_BYTES
            ? "hash is " + c.hash().length() + " bytes, expected " + HASH_BYTES + " (SHA-256)"
            : null,
        c.ttlMillis() < 0 ? "ttlMillis " + c.ttlMillis() + " < 0 (0 = never expires)" : null,
        actorProblem(c.actor()));
    if (problem != null) {
      return invalid(problem);
    }
    StoredToken existing = tokens.get(c.tokenId());
    if (existing != null) {
      if (existing.identity().equals(c.identity()) && existing.salt().equals(c.salt())
          && existing.hash().equals(c.hash())) {
        return new Result.SecurityChanged(
            "token " + hex(c.tokenId()) + " of " + c.identity() + " already exists", false, 0);
      }
      return invalid("token id " + hex(c.tokenId()) + " is taken by another token");
    }
    long now = context.nowMillis();
    long expiresAt = c.ttlMillis() == 0 ? TokenView.NEVER : Millis.plus(now, c.ttlMillis());
    StoredToken token = new StoredToken(c.tokenId(), c.identity(), c.salt(), c.hash(), now,
        expiresAt, c.actor());
    tokens.put(token.tokenId(), token);
    context.changes().putRecord(FAMILY, tokenKey(token.tokenId()), encode(StoredToken.SHAPE, token));
    if (expiresAt != TokenView.NEVER) {
      context.putExpiry(tokenEnd(token));
    }
    long seq = audit(c.actor(), "token.create", "", c.identity(),
        "token " + hex(c.tokenId()) + (expiresAt == TokenView.NEVER ? " never expires"
            : " expires at " + expiresAt));
    return new Result.SecurityChanged(
        "token " + hex(c.tokenId()) + " created for " + c.identity(), true, seq);
  }

  private Result revokeToken(RevokeToken c) {
    String problem = actorProblem(c.actor());
    if (problem != null) {
      return invalid(problem);
    }
    StoredToken token = tokens.remove(c.tokenId());
    if (token == null) {
      return new Result.SecurityChanged("no token " + hex(c.tokenId()), false, 0);
    }
    context.changes().deleteRecord(FAMILY, tokenKey(token.tokenId()));
    if (token.expiresAtMillis() != TokenView.NEVER) {
      context.removeExpiry(tokenEnd(token));
    }
    long seq = audit(c.actor(), "token.revoke", "", token.identity(),
        "token " + hex(token.tokenId()));
    return new Result.SecurityChanged(
        "token " + hex(token.tokenId()) + " of " + token.identity() + " revoked", true, seq);
  }

  private Result grantRole(GrantRole c) {
    String problem = grantProblem(c.identity(), c.role(), c.tenant(), c.actor());
    if (problem != null) {
      return invalid(problem);
    }
    String key = grantId(c.identity(), c.role(), c.tenant());
    String what = c.role() + " on " + c.tenant() + " to " + c.identity();
    if (grants.containsKey(key)) {
      return new Result.SecurityChanged("already granted: " + what, false, 0);
    }
    RoleGrant grant = new RoleGrant(c.identity(), c.role(), c.tenant(), context.nowMillis(),
        c.actor());
    grants.put(key, grant);
    context.changes().putRecord(FAMILY, grantKey(key), encode(RoleGrant.SHAPE, grant));
    long seq = audit(c.actor(), "role.grant", c.tenant(), c.identity(), "role " + c.role());
    return new Result.SecurityChanged("granted " + what, true, seq);
  }

  private Result revokeRole(RevokeRole c) {
    String problem = grantProblem(c.identity(), c.role(), c.tenant(), c.actor());
    if (problem != null) {
      return invalid(problem);
    }
    String key = grantId(c.identity(), c.role(), c.tenant());
    String what = c.role() + " on " + c.tenant() + " from " + c.identity();
    if (grants.remove(key) == null) {
      return new Result.SecurityChanged("no such grant: " + what, false, 0);
    }
    context.changes().deleteRecord(FAMILY, grantKey(key));
    long seq = audit(c.actor(), "role.revoke", c.tenant(), c.identity(), "role " + c.role());
    return new Result.SecurityChanged("revoked " + what, true, seq);
  }

  private long audit(String actor, String action, String scope, String resource, String detail) {
    long seq = nextAuditSequence++;
    AuditRecord record = new AuditRecord(seq, context.nowMillis(), actor, action, scope, resource,
        0, "", detail);
    context.changes().putRecord(FAMILY, auditKey(seq), encode(AuditRecord.SHAPE, record));
    if (oldestAuditSequence == NO_AUDIT) {
      oldestAuditSequence = seq;
      oldestAuditAtMillis = record.atMillis();
    }
    context.changes().putRecord(FAMILY, NEXT_AUDIT_KEY,
        new ByteWriter(9).u8(FORMAT).i64(nextAuditSequence).toByteArray());
    changedInEntry = true;
    return seq;
  }

  /**
   * Records who changed a limit or a namespace (quota changes carry their actor in the quota
   * audit log already; this ledger's own changes record theirs above).
   */
  @Override
  public void attributed(String actor, Command command, Result result) {
    if (command instanceof Audited audited) {
      Audited.AuditLine line = audited.auditLine(result);
      if (line != null) {
        audit(actor, line.action(), line.scope(), line.resource(), line.detail());
      }
    }
  }

  // ---------------------------------------------------------------- validation

  private String grantProblem(String identity, String role, String tenant, String actor) {
    return firstProblem(
        nameProblem("identity", identity),
        roleProblem(role),
        RoleGrant.ALL_TENANTS.equals(tenant) ? null
            : tenant != null && tenant.indexOf('/') >= 0
                ? "tenant " + tenant + " contains '/': grant the tenant (the first segment of a"
                    + " scope path) or *"
                : nameProblem("tenant", tenant),
        actorProblem(actor));
  }

  private static String roleProblem(String role) {
    if (role == null || role.isEmpty() || role.length() > ROLE_BYTES_MAX) {
      return "role must be 1.." + ROLE_BYTES_MAX + " characters";
    }
    for (int i = 0; i < role.length(); i++) {
      char ch = role.charAt(i);
      if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_')) {
        return "role " + role + " has character '" + ch + "': use a-z, 0-9, '-', '_'";
      }
    }
    return null;
  }

  private String nameProblem(String field, String value) {
    if (value == null || value.isEmpty()) {
      return field + " is missing";
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > options.maxNameBytes()) {
      return field + " is " + bytes + " UTF-8 bytes, max " + options.maxNameBytes();
    }
    return printableProblem(field, value);
  }

  private String actorProblem(String actor) {
    if (actor == null) {
      return "actor is missing";
    }
    int bytes = actor.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > options.maxNameBytes()) {
      return "actor is " + bytes + " UTF-8 bytes, max " + options.maxNameBytes();
    }
    return printableProblem("actor", actor);
  }

  private static String printableProblem(String field, String value) {
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      if (Character.isISOControl(cp) || Character.getType(cp) == Character.SURROGATE
          || cp == 0x2028 || cp == 0x2029) {
        return field + " has a control or unpaired character at " + i;
      }
      i += Character.charCount(cp);
    }
    return null;
  }

  private static String firstProblem(String... problems) {
    for (String p : problems) {
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  private static Result.Rejected invalid(String message) {
    return new Result.Rejected(Outcome.INVALID_ARGUMENT, message, 0, 0);
  }

  // ---------------------------------------------------------------- expiry

  /** Nothing: security commands name identities and token ids, which belong to no tenant. */
  @Override
  public Optional<String> tenantOfId(long id, boolean orSettled) {
    return Optional.empty();
  }

  @Override
  public boolean ownsExpiryKind(int kind) {
    return kind == ExpiryKey.TOKEN_END;
  }

  @Override
  public boolean expire(ExpiryKey due) {
    StoredToken token = tokens.get(due.a());
    if (token == null || token.expiresAtMillis() != due.dueAtMillis()) {
      return false; // revoked, or a stale record
    }
    tokens.remove(token.tokenId());
    context.changes().deleteRecord(FAMILY, tokenKey(token.tokenId()));
    audit(LEDGER_ACTOR, "token.expire", "", token.identity(), "token " + hex(token.tokenId()));
    return true;
  }

  private static ExpiryKey tokenEnd(StoredToken token) {
    return new ExpiryKey(token.expiresAtMillis(), ExpiryKey.TOKEN_END, token.tokenId(), 0, 0);
  }

  // ---------------------------------------------------------------- entries

  @Override
  public void beginEntry(long nowMillis) {
    changedInEntry = false;
    entryNowMillis = nowMillis;
    entryFirstAuditSequence = nextAuditSequence;
  }

  @Override
  public void endEntry() {
    pruneAudit();
    if (changedInEntry) {
      publish();
    }
  }

  /**
   * Deletes the audit records due by this entry's ledger time, oldest first, a bounded number.
   * Records this entry wrote are at the entry's time, never due (the retention is positive),
   * so the store, which does not hold them yet, has every due record.
   */
  private void pruneAudit() {
    long retention = options.securityAuditRetentionMillis();
    if (oldestAuditSequence == NO_AUDIT || entryNowMillis - oldestAuditAtMillis < retention) {
      return;
    }
    long cutoff = entryNowMillis - retention;
    int[] deleted = {0};
    long[] next = {NO_AUDIT, 0};
    context.store().scan(FAMILY, auditKey(oldestAuditSequence), (k, v) -> {
      if (k.length == 0 || k[0] != AUDIT) {
        return false;
      }
      AuditRecord r = decode(AuditRecord.SHAPE, v, "security audit record");
      if (r.atMillis() > cutoff || deleted[0] >= StateOptions.SECURITY_AUDIT_PRUNE_PER_ENTRY) {
        next[0] = r.sequence();
        next[1] = r.atMillis();
        return false;
      }
      context.changes().deleteRecord(FAMILY, k);
      deleted[0]++;
      return true;
    });
    if (next[0] == NO_AUDIT && nextAuditSequence > entryFirstAuditSequence) {
      // Every stored record is gone; the oldest kept is the first this entry wrote.
      next[0] = entryFirstAuditSequence;
      next[1] = entryNowMillis;
    }
    oldestAuditSequence = next[0];
    oldestAuditAtMillis = next[0] == NO_AUDIT ? 0 : next[1];
  }

  private void publish() {
    Map<String, List<RoleGrant>> byIdentity = new HashMap<>();
    for (RoleGrant g : grants.values()) {
      byIdentity.computeIfAbsent(g.identity(), k -> new ArrayList<>()).add(g);
    }
    Map<String, List<RoleGrant>> frozen = new HashMap<>();
    byIdentity.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
    table = new SecurityTable(tokens, frozen);
  }

  // ---------------------------------------------------------------- queries

  @Override
  public Optional<QueryResult> query(Query query, long readNowMillis) {
    if (query instanceof Query.ListTokens) {
      List<TokenView> views = new ArrayList<>(tokens.size());
      for (StoredToken t : tokens.values()) {
        views.add(t.view());
      }
      return Optional.of(new QueryResult.TokenList(views));
    }
    if (query instanceof Query.ListGrants q) {
      List<RoleGrant> out = new ArrayList<>();
      for (RoleGrant g : grants.values()) {
        if (q.identity().isEmpty() || g.identity().equals(q.identity())) {
          out.add(g);
        }
      }
      return Optional.of(new QueryResult.GrantList(out));
    }
    if (query instanceof Query.ReadSecurityAudit q) {
      int max = Math.max(0, Math.min(q.max(), AUDIT_READ_MAX));
      List<AuditRecord> out = new ArrayList<>();
      if (max > 0) {
        context.store().scan(FAMILY, auditKey(Math.max(1, q.fromSequence())), (k, v) -> {
          if (k.length == 0 || k[0] != AUDIT) {
            return false;
          }
          out.add(decode(AuditRecord.SHAPE, v, "security audit record"));
          return out.size() < max;
        });
      }
      return Optional.of(new QueryResult.SecurityAudit(out));
    }
    return Optional.empty();
  }

  // ---------------------------------------------------------------- load and verify

  @Override
  public void load() {
    tokens.clear();
    grants.clear();
    nextAuditSequence = 1;
    oldestAuditSequence = NO_AUDIT;
    oldestAuditAtMillis = 0;
    context.store().scan(FAMILY, new byte[0], (k, v) -> {
      if (k[0] == TOKEN) {
        StoredToken t = decode(StoredToken.SHAPE, v, "security token");
        tokens.put(t.tokenId(), t);
      } else if (k[0] == GRANT) {
        RoleGrant g = decode(RoleGrant.SHAPE, v, "security grant");
        grants.put(grantId(g.identity(), g.role(), g.tenant()), g);
      } else if (k[0] == AUDIT && oldestAuditSequence == NO_AUDIT) {
        AuditRecord r = decode(AuditRecord.SHAPE, v, "security audit record");
        oldestAuditSequence = r.sequence();
        oldestAuditAtMillis = r.atMillis();
      } else if (k[0] == NEXT_AUDIT_KEY[0]) {
        ByteReader in = new ByteReader(v, "security next audit sequence", StoreException::new);
        in.u8("format");
        nextAuditSequence = in.i64("next");
      }
      return true;
    });
    publish();
  }

  @Override
  public void verify() {
    for (StoredToken t : tokens.values()) {
      if (t.expiresAtMillis() <= t.createdAtMillis() || t.hash().length() != HASH_BYTES) {
        throw new InvariantViolation("S1 token " + hex(t.tokenId()) + " of " + t.identity()
            + " created " + t.createdAtMillis() + " expires " + t.expiresAtMillis()
            + " hash bytes " + t.hash().length());
      }
    }
    int[] stored = {0, 0};
    long[] lastAudit = {0};
    long[] firstAudit = {NO_AUDIT, 0};
    context.store().scan(FAMILY, new byte[0], (k, v) -> {
      if (k[0] == TOKEN) {
        StoredToken t = decode(StoredToken.SHAPE, v, "security token");
        if (!t.equals(tokens.get(t.tokenId()))) {
          throw new InvariantViolation("S2 stored token " + hex(t.tokenId())
              + " differs from memory " + tokens.get(t.tokenId()));
        }
        stored[0]++;
      } else if (k[0] == GRANT) {
        RoleGrant g = decode(RoleGrant.SHAPE, v, "security grant");
        if (!g.equals(grants.get(grantId(g.identity(), g.role(), g.tenant())))) {
          throw new InvariantViolation("S2 stored grant " + g + " not in memory");
        }
        stored[1]++;
      } else if (k[0] == AUDIT) {
        AuditRecord r = decode(AuditRecord.SHAPE, v, "security audit record");
        lastAudit[0] = r.sequence();
        if (firstAudit[0] == NO_AUDIT) {
          firstAudit[0] = r.sequence();
          firstAudit[1] = r.atMillis();
        }
      }
      return true;
    });
    if (firstAudit[0] != oldestAuditSequence
        || (firstAudit[0] != NO_AUDIT && firstAudit[1] != oldestAuditAtMillis)) {
      throw new InvariantViolation("S3 oldest stored audit record " + firstAudit[0] + " at "
          + firstAudit[1] + ", in memory " + oldestAuditSequence + " at " + oldestAuditAtMillis);
    }
    if (stored[0] != tokens.size() || stored[1] != grants.size()
        || lastAudit[0] >= nextAuditSequence) {
      throw new InvariantViolation("S2 stored tokens " + stored[0] + " vs " + tokens.size()
          + " in memory, grants " + stored[1] + " vs " + grants.size() + ", last audit "
          + lastAudit[0] + " next " + nextAuditSequence);
    }
  }

  @Override
  public void verifyAtSnapshot() {
    for (StoredToken t : tokens.values()) {
      if (t.expiresAtMillis() <= t.createdAtMillis()) {
        throw new InvariantViolation("S1 token " + hex(t.tokenId()) + " created "
            + t.createdAtMillis() + " expires " + t.expiresAtMillis());
      }
    }
  }

  @Override
  public void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {
    // Stale records (a revoked token's) are withdrawn when revoked, so every stored record
    // names a live token with that expiry.
    walk.accept(key -> {
      StoredToken t = tokens.get(key.a());
      if (t == null || t.expiresAtMillis() != key.dueAtMillis()) {
        throw new InvariantViolation("I6 token expiry record " + key + " names no live token");
      }
    });
  }

  // ---------------------------------------------------------------- format

  static String hex(long tokenId) {
    return String.format("%016x", tokenId);
  }

  private static String grantId(String identity, String role, String tenant) {
    return identity + '\0' + role + '\0' + tenant;
  }

  private static byte[] tokenKey(long id) {
    return new ByteWriter(9).u8(TOKEN).i64(id).toByteArray();
  }

  private static byte[] grantKey(String id) {
    byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[utf8.length + 1];
    key[0] = GRANT;
    System.arraycopy(utf8, 0, key, 1, utf8.length);
    return key;
  }

  private static byte[] auditKey(long seq) {
    return new ByteWriter(9).u8(AUDIT).i64(seq).toByteArray();
  }

  private static <T extends Record> byte[] encode(Shape<T> shape, T value) {
    ByteWriter w = new ByteWriter(64);
    w.u8(FORMAT);
    shape.write(w, value);
    return w.toByteArray();
  }

  private static <T extends Record> T decode(Shape<T> shape, byte[] bytes, String what) {
    ByteReader in = new ByteReader(bytes, what, StoreException::new);
    int format = in.u8("format");
    if (format != FORMAT) {
      throw in.fail("unknown format " + format + ", expected " + FORMAT);
    }
    T value = shape.read(in);
    in.end();
    return value;
  }
}
