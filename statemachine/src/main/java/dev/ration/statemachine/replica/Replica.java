package dev.ration.statemachine.replica;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.BatchFormatException;
import dev.ration.statemachine.command.SecurityCommand;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Fingerprint;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.SlottedIds;
import dev.ration.statemachine.command.Tick;
import dev.ration.statemachine.command.Touches;
import dev.ration.statemachine.placement.Admission;
import dev.ration.statemachine.placement.GroupSlots;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.wire.Outcome;
import dev.ration.wire.placement.SlotIds;
import dev.ration.wire.placement.Slots;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The replicated state of one node above its ledgers: what every ledger shares, and the one
 * dispatch of a log entry (docs/ARCHITECTURE.md).
 *
 * <p>It keeps the applied (term, index), the ledger clock ({@code now = max(now, batch time)}),
 * the global version counter, {@link Idempotency} (a request key's first answer, returned to
 * every retry until it expires), the shared time-ordered
 * expiry index and {@link Tick}, which pops that index in (dueAt, kind, a, b, c) order and hands
 * each record to the ledger owning its kind (one expiry path for everything else with a
 * lifetime). Every other command goes to the one {@link Ledger} applying its family, every
 * query to the ledger that answers it; the replica knows none of them by name. All write into
 * the entry's one {@link Changes}, which the store persists with the applied index in one
 * WriteBatch.
 *
 * <p>Thread: the single applying thread (the caller serialises apply, query and close).
 *
 * <p>Invariants: I3 (now never decreases) and I6 (every due time at or after now; every stored
 * idempotency record lies in a live generation that holds its expiry time and the generation
 * counts are exact; every stored index record belongs to a ledger)
 * here; each ledger checks its own. After any exception from apply this object must be
 * discarded (memory may be ahead of the store), which the store enforces.
 */
public final class Replica implements ApplyContext {
  /** Ratis numbers its first log entry 0, so nothing applied is −1. */
  public static final long NOTHING_APPLIED = -1;

  private final StateOptions options;
  private final LedgerStore store;
  private final FamilyStore families;
  /** Every ledger, in a fixed order (entry hooks, Tick and queries go through them in it). */
  private final List<Ledger> ledgers;
  /** The ledger applying each command family. */
  private final Map<Class<?>, Ledger> byFamily;

  private long appliedTerm = 0;
  private long appliedIndex = NOTHING_APPLIED;
  private long nowMillis = 0;
  private long nextVersion = 1;
  /** Every client request's first answer, kept for the retention. */
  private final Idempotency idempotency;

  /** Which slots this group serves (the placement ledger's table); a client command for any
   *  other is refused before it is applied or recorded. */
  private final GroupSlots slots;

  private Changes changes = new Changes();
  /** The last expiry-index key a Tick of the current entry popped: the next Tick goes on after it. */
  private ExpiryKey tickCursor = ExpiryKey.BEFORE_ALL;

  /**
   * @param ledgers one factory per ledger, in routing order; each is given this replica as its
   *     {@link ApplyContext}. The kernel knows no ledger: which ledgers a node runs is decided
   *     by whoever opens the state.
   */
  public Replica(StateOptions options, LedgerStore store, FamilyStore families,
      List<Function<ApplyContext, Ledger>> ledgers) {
    this.options = options;
    this.store = store;
    this.families = families;
    this.idempotency = new Idempotency(store, options.idempotencyRetentionMillis());
    List<Ledger> built = new ArrayList<>(ledgers.size());
    for (Function<ApplyContext, Ledger> factory : ledgers) {
      built.add(factory.apply(this));
    }
    this.ledgers = List.copyOf(built);
    this.byFamily = routes(this.ledgers);
    this.slots = slotTable(this.ledgers);
  }

  /**
   * Which ledger applies each command family. Every family but {@link Tick} (the replica's own)
   * must have exactly one: a node that could not apply some command must not start.
   */
  private static Map<Class<?>, Ledger> routes(List<Ledger> ledgers) {
    Map<Class<?>, Ledger> routes = new HashMap<>();
    for (Ledger ledger : ledgers) {
      Ledger other = routes.put(ledger.commands(), ledger);
      if (other != null) {
        throw new IllegalStateException("command family " + ledger.commands().getSimpleName()
            + " applied by both " + other.name() + " and " + ledger.name());
      }
    }
    for (Class<?> family : Command.class.getPermittedSubclasses()) {
      if (family != Tick.class && family != SlottedIds.class && !routes.containsKey(family)) {
        throw new IllegalStateException("no ledger applies " + family.getSimpleName()
            + " (ledgers: " + ledgers + ")");
      }
    }
    return Map.copyOf(routes);
  }

  /** The one ledger's slot table, or one serving every slot when no ledger keeps it. */
  private static GroupSlots slotTable(List<Ledger> ledgers) {
    GroupSlots table = null;
    for (Ledger ledger : ledgers) {
      GroupSlots t = ledger.slotTable();
      if (t != null && table != null) {
        throw new IllegalStateException("two ledgers keep the slot table (ledgers: " + ledgers + ")");
      }
      table = t == null ? table : t;
    }
    return table == null ? GroupSlots.servingAll(0) : table;
  }

  /** The ledger of type {@code type}; throws if this replica runs none. */
  public <L extends Ledger> L ledger(Class<L> type) {
    for (Ledger ledger : ledgers) {
      if (type.isInstance(ledger)) {
        return type.cast(ledger);
      }
    }
    throw new IllegalStateException("no " + type.getSimpleName() + " in " + ledgers);
  }

  public List<Ledger> ledgers() {
    return ledgers;
  }

  // ---------------------------------------------------------------- apply

  /**
   * Applies one log entry. Throws IllegalStateException if {@code index} is not above the
   * applied index (each index is applied once; a restart resumes from the applied index) or
   * the term goes backwards.
   */
  public List<Result> apply(long term, long index, Batch batch) {
    advance(term, index);
    tickCursor = ExpiryKey.BEFORE_ALL;
    long previousNow = nowMillis;
    nowMillis = Math.max(nowMillis, batch.timeMillis());
    if (nowMillis < previousNow) {
      throw new InvariantViolation("I3 ledger now decreased from " + previousNow + " to " + nowMillis);
    }
    idempotency.dropExpired(nowMillis, changes);
    for (Ledger ledger : ledgers) {
      ledger.beginEntry(nowMillis);
    }
    List<Result> results = new ArrayList<>(batch.proposals().size());
    for (Proposal proposal : batch.proposals()) {
      results.add(applyProposal(proposal));
    }
    for (Ledger ledger : ledgers) {
      ledger.endEntry();
    }
    return results;
  }

  /** An entry without a batch (configuration, no-op): only the applied index moves. */
  public void applyEmpty(long term, long index) {
    advance(term, index);
  }

  private void advance(long term, long index) {
    checkNext(term, index);
    appliedTerm = term;
    appliedIndex = index;
  }

  /**
   * Throws IllegalStateException, changing nothing, unless (term, index) may be applied next:
   * the index above the applied index and the term not below the applied term.
   */
  public void checkNext(long term, long index) {
    if (index <= appliedIndex) {
      throw new IllegalStateException(
          "apply of index " + index + " at or below applied index " + appliedIndex
              + ": each index is applied once, restart resumes after the applied index");
    }
    if (term < appliedTerm) {
      throw new IllegalStateException(
          "apply of term " + term + " below applied term " + appliedTerm + " at index " + index);
    }
  }

  private Result applyProposal(Proposal proposal) {
    Command command = proposal.command();
    // What an authorized wrapper carries is decoded once: placement, the record's slot and the
    // authorization check all judge the wrapped command.
    Command target = command instanceof SecurityCommand.Authorized a ? inner(a) : command;
    List<String> allowed = command instanceof SecurityCommand.Authorized a ? a.tenantList() : List.of();
    int[] touched = target.fromClient() ? slotsOf(target, allowed) : NO_SLOTS;
    Optional<Result.Misrouted> misrouted = misrouted(touched);
    if (misrouted.isPresent()) {
      // Before the idempotency lookup and never recorded: the key's answer belongs to the group
      // that serves the slot, where the retry goes.
      return misrouted.get();
    }
    RequestKey key = proposal.key();
    Optional<IdempotencyRecord> seen = Optional.empty();
    Fingerprint fingerprint = null;
    if (!key.isNone()) {
      fingerprint = Fingerprint.of(command);
      seen = idempotency.newest(key, changes);
      if (seen.isPresent() && seen.get().answersAt(nowMillis)) {
        if (!seen.get().answers(fingerprint)) {
          // Another request under a key already spent: answering it with the first request's
          // result would report a write that never happened (or a reply of another kind).
          // Refused, and nothing recorded, so the first answer stays the key's answer.
          return reusedKey(key, seen.get().fingerprint().get(), fingerprint);
        }
        return ResultCodec.decode(seen.get().encodedResult());
      }
    }
    for (Ledger ledger : ledgers) {
      ledger.beginCommand();
    }
    Result result = dispatch(command, target);
    for (Ledger ledger : ledgers) {
      ledger.endCommand();
    }
    if (!key.isNone()) {
      idempotency.record(key, seen, fingerprint, touched.length == 1 ? touched[0] : IdempotencyRecord.NO_SLOT,
          ResultCodec.encode(result), nowMillis, changes);
    }
    return result;
  }

  private static final int[] NO_SLOTS = new int[0];

  /**
   * The slots a client command acts in, from its own declaration ({@link Command#touches()}):
   * the slot of each tenant it names and the slot each id carries ({@link SlotIds}); an id
   * minted before slots existed gives its live object's tenant's slot here, and one that names
   * nothing gives none (the ledger answers it as unknown), as does one naming an object of a
   * tenant outside {@code allowed} (when not empty: the identity's tenants). State of no tenant is in no slot.
   * Distinct, in the order declared.
   */
  private int[] slotsOf(Command target, List<String> allowed) {
    Touches touches = target.touches();
    int[] out = new int[touches.tenants().size() + touches.ids().size()];
    int n = 0;
    for (String tenant : touches.tenants()) {
      n = addSlot(out, n, Slots.of(tenant));
    }
    Ledger owner = null;
    for (long id : touches.ids()) {
      int slot = SlotIds.slotOf(id);
      if (slot < 0) {
        owner = owner == null ? byFamily.get(target.family()) : owner;
        Optional<String> tenant = owner == null ? Optional.empty() : owner.tenantOfId(id, true);
        if (tenant.isEmpty() || !allowed.isEmpty() && !allowed.contains(tenant.get())) {
          // Nothing live, or another tenant's object an identity limited to tenants may not
          // learn about (authorization refuses it with the words it uses for "nothing").
          continue;
        }
        slot = Slots.of(tenant.get());
      }
      n = addSlot(out, n, slot);
    }
    return n == out.length ? out : java.util.Arrays.copyOf(out, n);
  }

  private static int addSlot(int[] slots, int n, int slot) {
    for (int i = 0; i < n; i++) {
      if (slots[i] == slot) {
        return n;
      }
    }
    slots[n] = slot;
    return n + 1;
  }

  /**
   * The refusal of a client command acting in a slot this group does not serve (of the command's
   * {@code touched} slots, the first not served), decided on the group's replicated slot table so
   * that every replica decides the same and a proposal that was in flight while its slot moved
   * cannot land here. State of no tenant is every group's own and always admitted.
   */
  private Optional<Result.Misrouted> misrouted(int[] touched) {
    if (slots.servesEverySlot()) {
      return Optional.empty();
    }
    for (int slot : touched) {
      Optional<Result.Misrouted> refused = admission(slot);
      if (refused.isPresent()) {
        return refused;
      }
    }
    return Optional.empty();
  }

  private Optional<Result.Misrouted> admission(int slot) {
    Admission a = slots.admit(slot);
    if (a instanceof Admission.Moving m) {
      return Optional.of(new Result.Misrouted(m.slot(), slots.self(), m.epoch(), true));
    }
    if (a instanceof Admission.WrongGroup w) {
      return Optional.of(new Result.Misrouted(w.slot(), w.ownerHint(), w.epoch(), false));
    }
    return Optional.empty();
  }

  /** The slot table this group applies under. */
  public GroupSlots slots() {
    return slots;
  }

  /**
   * The definite refusal of a request whose key (client id, request id) already answered a
   * different request (invariant I9). It names the key and the operation the id was first
   * used for, so the caller can see its own bug; nothing in it depends on the node.
   */
  static Result.Rejected reusedKey(RequestKey key, Fingerprint first, Fingerprint request) {
    String how = first.commandCode() == request.commandCode()
        ? first.operation() + " with other arguments"
        : first.operation() + ", not " + request.operation();
    return new Result.Rejected(Outcome.INVALID_ARGUMENT, "request id "
        + Long.toUnsignedString(key.sequence()) + " of client " + clientHex(key)
        + " was first used for " + how + "; use a new request id", 0, 0);
  }

  /** The client id as the CLI and the logs print it: 32 hex digits. */
  static String clientHex(RequestKey key) {
    return String.format("%016x%016x", key.clientHigh(), key.clientLow());
  }

  /**
   * The one dispatch: Tick here, an authorized wrapper by the command it wraps ({@code target},
   * already decoded), every other command to the ledger applying its family.
   */
  private Result dispatch(Command command, Command target) {
    if (command instanceof Tick c) {
      return tick(c);
    }
    if (command instanceof SlottedIds) {
      for (Ledger ledger : ledgers) {
        ledger.mintSlottedIds();
      }
      return new Result.IdsSlotted();
    }
    if (command instanceof SecurityCommand.Authorized a) {
      return authorized(a, target);
    }
    return byFamily.get(command.family()).apply(command);
  }

  /**
   * A client command on behalf of an identity: refused unless what it declares it touches is
   * within the identity's tenants, else applied and shown to every ledger with its actor (the
   * audit log).
   */
  private Result authorized(SecurityCommand.Authorized a, Command inner) {
    if (inner instanceof SecurityCommand.Authorized || !inner.fromClient()) {
      return new Result.Rejected(Outcome.INVALID_ARGUMENT,
          "an authorized command must wrap one client command, not " + inner.getClass().getSimpleName(),
          0, 0);
    }
    Ledger owner = byFamily.get(inner.family());
    List<String> allowed = a.tenantList();
    if (!allowed.isEmpty()) {
      Optional<String> refusal = a.closed()
          ? refusal(inner, owner, allowed)
          : refusalAsWritten(inner, owner, allowed);
      if (refusal.isPresent()) {
        return new Result.Denied("identity " + a.actor() + " may not "
            + Fingerprint.operationOf(inner.code()) + " " + refusal.get()
            + " (granted tenants: " + String.join(", ", allowed) + ")");
      }
    }
    Result result = owner.apply(inner);
    for (Ledger ledger : ledgers) {
      ledger.attributed(a.actor(), inner, result);
    }
    return result;
  }

  private static Command inner(SecurityCommand.Authorized a) {
    try {
      return BatchCodec.decodeCommand(a.inner().unsafeArray());
    } catch (BatchFormatException e) {
      // The endpoint encoded this command itself, so it decodes on every replica of the same
      // release. One that does not is a command of a newer release (an unknown code): refusing
      // it here while upgraded replicas apply it would make the replicas diverge, so the
      // replica stops instead, as for an undecodable batch.
      throw new BatchFormatException("authorized " + e.getMessage());
    }
  }

  /**
   * Why {@code command}'s declared touches are not within {@code allowed}, failing closed: state
   * of no tenant, a tenant not granted, and an id that names nothing live are all refused. An
   * id of another tenant and an id that names nothing get the same words, so a refusal tells
   * the caller nothing about objects it may not use.
   */
  static Optional<String> refusal(Command command, Ledger owner, List<String> allowed) {
    Touches touches = command.touches();
    if (touches.noTenant()) {
      return Optional.of("on state of no tenant");
    }
    for (String tenant : touches.tenants()) {
      if (!allowed.contains(tenant)) {
        return Optional.of("in tenant " + tenant);
      }
    }
    for (long id : touches.ids()) {
      Optional<String> tenant = owner.tenantOfId(id, true);
      if (tenant.isEmpty() || !allowed.contains(tenant.get())) {
        return Optional.of("on " + owner.name() + " id " + id
            + ": it names no live object of the granted tenants");
      }
    }
    return Optional.empty();
  }

  /**
   * The check of an Authorized written by an earlier release ({@link SecurityCommand.Authorized#CODE}),
   * kept so that replaying its entries gives the answers they had: the tenants of limits, leases,
   * slots, quotas, reserves and ingested events, and the tenants of the live leases and
   * outstanding reservations an id names; an id that resolves to nothing passed.
   */
  private static Optional<String> refusalAsWritten(Command command, Ledger owner,
      List<String> allowed) {
    if (command instanceof dev.ration.statemachine.command.TtlCommand
        || command instanceof dev.ration.statemachine.command.QuotaCommand.Reconcile) {
      return Optional.empty();
    }
    Touches touches = command instanceof dev.ration.statemachine.command.QuotaCommand.IngestUsage u
        ? Touches.pathOf(u.scope())
        : command.touches();
    TreeSet<String> tenants = new TreeSet<>(touches.tenants());
    for (long id : touches.ids()) {
      owner.tenantOfId(id, false).ifPresent(tenants::add);
    }
    for (String tenant : tenants) {
      if (!allowed.contains(tenant)) {
        return Optional.of("in tenant " + tenant);
      }
    }
    return Optional.empty();
  }

  private Result tick(Tick c) {
    if (c.maxItems() < 0) {
      return new Result.Rejected(Outcome.INVALID_ARGUMENT, "maxItems " + c.maxItems() + " < 0", 0, 0);
    }
    int freed = 0;
    // Every popped record counts against maxItems, stale ones too, so a Tick's work is bounded;
    // the order is (dueAt, kind, a, b, c) on every replica.
    List<ExpiryKey> popped = dueExpiries(c.maxItems());
    for (ExpiryKey due : popped) {
      tickCursor = due;
      Ledger owner = ownerOfKind(due.kind());
      boolean inMemory = owner.keepsExpiriesInMemory();
      if (inMemory ? !owner.holdsInMemory(due) : changes.expiryRemovals.contains(due)) {
        // Withdrawn by an earlier record of this same Tick (a freed lease takes its pending
        // shrink's record with it): no longer in the index.
        continue;
      }
      if (!inMemory) {
        changes.deleteExpiry(due); // in-memory kinds are never stored
      }
      if (owner.expire(due)) {
        freed++;
      }
    }
    // What the expiry records left of the budget goes to retention housekeeping (the usage
    // log's compaction), ledger by ledger in their fixed order.
    int left = c.maxItems() - popped.size();
    for (Ledger ledger : ledgers) {
      if (left <= 0) {
        break;
      }
      left -= ledger.housekeep(left);
    }
    return new Result.Ticked(freed);
  }

  private Ledger ownerOfKind(int kind) {
    for (Ledger ledger : ledgers) {
      if (ledger.ownsExpiryKind(kind)) {
        return ledger;
      }
    }
    throw new InvariantViolation("I6 expiry record of unknown kind " + kind);
  }

  /**
   * The next at most {@code maxItems} expiry-index keys due at or before now, after the ones
   * this entry's Ticks already popped: the lease ledger's in-memory keys merged with the store's
   * committed keys (every other kind) and this entry's own new stored keys. (Those are due later
   * than now except when a due time saturates at Long.MAX_VALUE, or a TTL of zero; they are
   * merged so such a key is popped by this entry's next Tick if it sorts after the cursor. One
   * that sorts behind it — a TTL of zero written after a Tick reached now — waits for the next
   * entry's Tick, like any key due after this entry; it is expired to every read meanwhile.)
   */
  private List<ExpiryKey> dueExpiries(int maxItems) {
    if (maxItems == 0) {
      return List.of();
    }
    // This entry's withdrawals are still in the store: read past as many as there are.
    int read = (int) Math.min(Integer.MAX_VALUE, (long) maxItems + changes.expiryRemovals.size());
    TreeSet<ExpiryKey> due = new TreeSet<>(store.expiries(tickCursor, nowMillis, read));
    for (Ledger ledger : ledgers) {
      due.addAll(ledger.dueInMemory(tickCursor, nowMillis, maxItems));
    }
    for (ExpiryKey key : changes.expiryPuts) {
      if (key.dueAtMillis() <= nowMillis && key.compareTo(tickCursor) > 0) {
        due.add(key);
      }
    }
    due.removeAll(changes.expiryDeletes);
    due.removeAll(changes.expiryRemovals);
    List<ExpiryKey> first = new ArrayList<>(Math.min(maxItems, due.size()));
    for (ExpiryKey key : due) {
      if (first.size() == maxItems) {
        break;
      }
      first.add(key);
    }
    return first;
  }

  // ---------------------------------------------------------------- ApplyContext

  @Override
  public long nowMillis() {
    return nowMillis;
  }

  @Override
  public long mintVersion() {
    return nextVersion++;
  }

  @Override
  public long nextVersion() {
    return nextVersion;
  }

  @Override
  public Changes changes() {
    return changes;
  }

  /**
   * Every due time set is at or after now (now plus a non-negative duration, saturating), so
   * the stored index is a queue that Tick pops from the front; the store relies on it to skip
   * the deleted front (RocksLedgerStore's floor).
   */
  @Override
  public void putExpiry(ExpiryKey key) {
    if (key.dueAtMillis() < nowMillis) {
      throw new InvariantViolation("I6 expiry record " + key + " due before now " + nowMillis);
    }
    changes.putExpiry(key);
  }

  @Override
  public void removeExpiry(ExpiryKey key) {
    changes.removeExpiry(key);
  }

  @Override
  public Optional<byte[]> read(String family, byte[] key) {
    Optional<Optional<byte[]>> pending = changes.pendingRecord(family, key);
    if (pending.isPresent()) {
      return pending.get();
    }
    return families.get(family, key);
  }

  @Override
  public boolean hasExpiry(ExpiryKey key) {
    return store.hasExpiry(key);
  }

  @Override
  public FamilyStore store() {
    return families;
  }

  // ---------------------------------------------------------------- reads

  public QueryResult query(Query query, long readNowMillis) {
    if (!slots.servesEverySlot()) {
      // A read of one tenant is answered only where its slot is served: a released slot's
      // state here is stale, a frozen or installed one may change elsewhere.
      for (String tenant : query.touches().tenants()) {
        Optional<Result.Misrouted> refused = admission(Slots.of(tenant));
        if (refused.isPresent()) {
          Result.Misrouted m = refused.get();
          return new QueryResult.Misrouted(m.slot(), m.ownerGroup(), m.epoch(), m.moving());
        }
      }
    }
    for (Ledger ledger : ledgers) {
      Optional<QueryResult> answer = ledger.query(query, readNowMillis);
      if (answer.isPresent()) {
        return answer.get();
      }
    }
    throw new IllegalStateException("no ledger answers query " + query);
  }

  @Override
  public long appliedTerm() {
    return appliedTerm;
  }

  @Override
  public long appliedIndex() {
    return appliedIndex;
  }

  @Override
  public long idempotencyRecords() {
    return idempotency.records();
  }

  /** Between entries: the earliest due time in the expiry index (stale records included). */
  public long nextDueMillis() {
    List<ExpiryKey> first = store.expiries(ExpiryKey.BEFORE_ALL, Long.MAX_VALUE, 1);
    long stored = first.isEmpty() ? Long.MAX_VALUE : first.get(0).dueAtMillis();
    long due = stored;
    for (Ledger ledger : ledgers) {
      due = Math.min(due, ledger.firstDueInMemoryMillis());
      due = Math.min(due, ledger.housekeepingDueMillis());
    }
    return due;
  }

  /** What changed since the last call; the store persists it with the applied index. */
  public Changes takeChanges() {
    Changes taken = changes;
    changes = new Changes();
    tickCursor = ExpiryKey.BEFORE_ALL;
    return taken;
  }

  /** Loading from the store: the shared part of the meta record (ledgers restore theirs). */
  public void restoreMeta(long term, long index, long now, long nextVersion, long idempotencyRecords) {
    this.appliedTerm = term;
    this.appliedIndex = index;
    this.nowMillis = now;
    this.nextVersion = nextVersion;
    idempotency.restore(idempotencyRecords);
  }

  /** At open, after meta: every ledger loads what it keeps in memory from its families. */
  public void load() {
    for (Ledger ledger : ledgers) {
      ledger.beginEntry(nowMillis);
      ledger.load();
    }
  }

  // ---------------------------------------------------------------- verify

  /**
   * The snapshot-time check: every ledger's in-memory invariants (conservation included), none
   * of the storage scans of {@link #verify()}, which would stall apply while the snapshot holds
   * the lock.
   */
  public void verifyAtSnapshot() {
    if (nextVersion < 1) {
      throw new InvariantViolation("I7 counter nextVersion " + nextVersion);
    }
    for (Ledger ledger : ledgers) {
      ledger.verifyAtSnapshot();
    }
  }

  /** Recomputes every invariant of every ledger and of the shared index (expensive). */
  public void verify() {
    if (nextVersion < 1) {
      throw new InvariantViolation("I7 counter nextVersion " + nextVersion);
    }
    for (Ledger ledger : ledgers) {
      ledger.verify();
    }
    idempotency.verify(nowMillis);
    store.forEachExpiry(key -> ownerOfKind(key.kind())); // lease kinds: the lease ledger refuses them below
    for (Ledger ledger : ledgers) {
      ledger.verifyStoredExpiries(action -> store.forEachExpiry(key -> {
        if (ledger.ownsExpiryKind(key.kind())) {
          action.accept(key);
        }
      }));
    }
  }
}
