package dev.ration.statemachine.ttl;

import dev.ration.statemachine.query.EntryView;

import dev.ration.wire.Bytes;
import dev.ration.wire.ChangeKind;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.CapacityPolicy;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.TtlCommand;
import dev.ration.statemachine.command.TtlCommand.CompareAndSetEntry;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.statemachine.command.TtlCommand.UpdateEntry;
import dev.ration.statemachine.replica.Changes;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.lease.LeaseLedger;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.ByteWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * TTL entries: a replicated key/value store whose entries expire (docs/TTL.md). One
 * {@link Ledger} of the replica.
 *
 * <p><b>Expiry rule</b> (one function, {@link #isExpired}): an entry is expired iff
 * {@code now ≥ expiresAt}, with {@code expiresAt} absolute in ledger milliseconds. Writes judge
 * at the entry's now; reads at {@code max(state now, readNowMillis)} (the serving leader's
 * current log time), so an entry past its expiry is a miss even before any Tick removed it.
 * TTL 0 means already expired; TTL −1 means never ({@code expiresAt = Long.MAX_VALUE}).
 *
 * <p><b>Storage.</b> Entries live only in RocksDB ({@link #ENTRIES}); a per-namespace order
 * index ({@link #ORDER}, by (namespace, expiresAt, version)) gives "soonest to expire" for
 * capacity; namespaces with their counters are small and held in memory ({@link #NAMESPACES}).
 * Expiry cleanup goes through the replica's shared expiry index, kind
 * {@link ExpiryKey#TTL_END} (a = namespace id, b = version), popped by Tick in (expiresAt,
 * kind, namespace, version) order. Index records are never removed early: a record whose order
 * record is gone (the entry was refreshed, rewritten or deleted) is stale and changes nothing.
 *
 * <p><b>Versions</b> come from the replica's global counter: every put and compare-and-set
 * mints a new, larger one (a fencing token); refresh keeps it.
 *
 * <p><b>Capacity</b> per namespace (entries and bytes = key + value UTF-8/bytes). A write that
 * needs room removes expired entries first, then by policy: REJECT (NAMESPACE_FULL) or
 * EVICT_SOONEST_EXPIRING; at most {@link #MAX_EVICTIONS_PER_WRITE} removals per write.
 * Namespaces are created implicitly on the first write with the default capacity.
 *
 * <p>Thread: the single applying thread. Invariants I20–I23 (docs/INVARIANTS.md).
 */
public final class TtlLedger implements Ledger {
  /** Column family: the entries, key (namespace id, key). */
  public static final String ENTRIES = "ttl_entries";
  /** Column family: per-namespace expiry order, key (namespace id, expiresAt, version). */
  public static final String ORDER = "ttl_order";
  /** Column family: namespaces with their capacity and counters. */
  public static final String NAMESPACES = "ttl_namespaces";

  /** ttlMillis meaning "never expires". */
  public static final long NO_EXPIRY_TTL = PutEntry.NO_EXPIRY;
  /** expiresAt of an entry that never expires. */
  public static final long NEVER = Long.MAX_VALUE;
  public static final String DEFAULT_NAMESPACE = "default";
  public static final int MAX_KEY_BYTES = 256;
  public static final int MAX_VALUE_BYTES = 65_536;
  public static final long DEFAULT_MAX_ENTRIES = 100_000;
  public static final long DEFAULT_MAX_BYTES = 64L << 20;
  public static final CapacityPolicy DEFAULT_POLICY = CapacityPolicy.REJECT;
  public static final int MAX_NAMESPACES = 1024;
  public static final long MAX_ENTRIES_LIMIT = 100_000_000;
  public static final long MAX_BYTES_LIMIT = 1L << 40;
  public static final int MAX_EVICTIONS_PER_WRITE = 1024;
  public static final int MAX_LIST_LIMIT = 1000;
  /** Most stored records one list query walks (expired ones are skipped, not returned). */
  public static final int MAX_LIST_SCAN = 100_000;

  private final ApplyContext context;
  /** The one name bound of the replicated state ({@link StateOptions#maxNameBytes()}). */
  private final int maxNamespaceBytes;
  private final TreeMap<String, Namespace> namespaces = new TreeMap<>();
  private final Map<Long, Namespace> byId = new HashMap<>();
  /** Namespaces the current command changed; their records are written at its end. */
  private final TreeSet<String> touched = new TreeSet<>();
  /**
   * The changes of the log entry being applied, in the order made: not state, only what a
   * watch is told. Cleared when the next entry begins, so nobody has to drain it.
   */
  private final ArrayList<TtlChange> entryChanges = new ArrayList<>();

  public TtlLedger(StateOptions options, ApplyContext context) {
    this.context = context;
    this.maxNamespaceBytes = options.maxNameBytes();
  }

  /** THE expiry rule, on every path: expired iff now ≥ expiresAt. */
  public static boolean isExpired(long expiresAtMillis, long nowMillis) {
    return nowMillis >= expiresAtMillis;
  }

  /** Absolute expiry for a TTL set at {@code nowMillis}: −1 = never, else now + ttl (saturating). */
  public static long expiresAt(long nowMillis, long ttlMillis) {
    return ttlMillis == NO_EXPIRY_TTL ? NEVER : LeaseLedger.plus(nowMillis, ttlMillis);
  }

  // ---------------------------------------------------------------- Ledger

  @Override
  public String name() {
    return "ttl";
  }

  @Override
  public Class<TtlCommand> commands() {
    return TtlCommand.class;
  }

  @Override
  public Result apply(Command command) {
    return ((TtlCommand) command).accept(handler);
  }

  /** The dispatch over the TTL commands: {@link TtlCommand.Handler} makes it exhaustive. */
  private final TtlCommand.Handler<Result> handler = new TtlCommand.Handler<>() {
    @Override
    public Result put(PutEntry c) {
      return write(c.namespace(), c.key(), c.value(), c.ttlMillis(), false, 0, false);
    }

    @Override
    public Result update(UpdateEntry c) {
      return write(c.namespace(), c.key(), c.value(), 0, false, c.expectedVersion(), true);
    }

    @Override
    public Result compareAndSet(CompareAndSetEntry c) {
      return write(c.namespace(), c.key(), c.value(), c.ttlMillis(), true, c.expectedVersion(),
          false);
    }

    @Override
    public Result refresh(RefreshEntry c) {
      return TtlLedger.this.refresh(c);
    }

    @Override
    public Result delete(DeleteEntry c) {
      return TtlLedger.this.delete(c);
    }

    @Override
    public Result setNamespace(SetNamespace c) {
      return TtlLedger.this.setNamespace(c);
    }
  };

  /** Nothing: TTL commands name their namespace, never an id. */
  @Override
  public Optional<String> tenantOfId(long id, boolean orSettled) {
    return Optional.empty();
  }

  @Override
  public boolean ownsExpiryKind(int kind) {
    return kind == ExpiryKey.TTL_END;
  }

  @Override
  public void beginEntry(long nowMillis) {
    entryChanges.clear();
  }

  /**
   * The changes the last applied log entry made to TTL entries, in order (puts, refreshes,
   * deletes, expiries, evictions); the list is handed over and the ledger starts a new one.
   */
  public List<TtlChange> takeChanges() {
    if (entryChanges.isEmpty()) {
      return List.of();
    }
    List<TtlChange> out = List.copyOf(entryChanges);
    entryChanges.clear();
    return out;
  }

  @Override
  public void beginCommand() {
    touched.clear();
  }

  /** Writes the touched namespaces' records; I21 (counters never negative) on them. */
  @Override
  public void endCommand() {
    for (String name : touched) {
      Namespace n = namespaces.get(name);
      if (n.entries < 0 || n.bytes < 0 || n.evictedExpired < 0 || n.evictedCapacity < 0) {
        throw new InvariantViolation("I21 namespace " + name + " counters entries " + n.entries
            + " bytes " + n.bytes + " evictedExpired " + n.evictedExpired + " evictedCapacity "
            + n.evictedCapacity);
      }
      context.changes().putRecord(NAMESPACES, utf8(name), TtlFormat.namespaceValue(n));
    }
    touched.clear();
  }

  // ---------------------------------------------------------------- commands

  /**
   * Put, compare-and-set ({@code compare}: only at {@code expectedVersion}, 0 = absent) or update
   * keeping the expiry ({@code keepExpiry}: a live entry only, at {@code expectedVersion} unless
   * 0, with its expiresAt; {@code ttlMillis} unused): one path for every write of a value, so
   * capacity, eviction and the indexes are handled alike.
   */
  private Result write(String namespace, String key, Bytes value, long ttlMillis, boolean compare,
      long expectedVersion, boolean keepExpiry) {
    Optional<Result> bad = firstInvalid(badNamespace(namespace), badKey(key),
        value == null ? "value is missing"
            : value.length() > MAX_VALUE_BYTES
                ? "value has " + value.length() + " bytes, allowed 0.." + MAX_VALUE_BYTES : null,
        keepExpiry ? null : badTtl(ttlMillis),
        (compare || keepExpiry) && expectedVersion < 0
            ? "expectedVersion " + expectedVersion + " < 0" : null);
    if (bad.isPresent()) {
      return bad.get();
    }
    long now = context.nowMillis();
    byte[] keyUtf8 = utf8(key);
    Namespace ns = namespaces.get(namespace);
    Optional<TtlFormat.Stored> stored = ns == null ? Optional.empty() : readEntry(ns, keyUtf8);
    long current = stored.isPresent() && !isExpired(stored.get().expiresAtMillis(), now)
        ? stored.get().version() : 0;
    if (keepExpiry && current == 0) {
      return new Result.Rejected(Outcome.ENTRY_UNKNOWN, "no live entry " + namespace + "/" + key
          + " whose expiry an update could keep", 0, 0);
    }
    if ((compare || keepExpiry && expectedVersion != 0) && current != expectedVersion) {
      return new Result.Rejected(Outcome.VERSION_MISMATCH, "expected version " + expectedVersion
          + " but current is " + current + " for " + namespace + "/" + key, 0, current);
    }
    if (ns == null) {
      if (namespaces.size() >= MAX_NAMESPACES) {
        return new Result.Rejected(Outcome.NAMESPACE_FULL, "cannot create namespace " + namespace
            + ": " + namespaces.size() + " namespaces exist, at most " + MAX_NAMESPACES, 0, 0);
      }
      ns = create(namespace, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_BYTES, DEFAULT_POLICY);
    }
    long newSize = (long) keyUtf8.length + value.length();
    long oldSize = stored.map(s -> (long) keyUtf8.length + s.value().length).orElse(0L);
    long addEntries = stored.isPresent() ? 0 : 1;
    if (newSize > ns.maxBytes) {
      // Never fits: refuse before evicting anything for it.
      return full(ns, key, "the entry alone has " + newSize + " bytes");
    }
    long nsId = ns.id;
    byte[] ownOrderKey = stored
        .map(s -> TtlFormat.orderKey(nsId, s.expiresAtMillis(), s.version())).orElse(null);
    Optional<Result> full = makeRoom(ns, addEntries, newSize - oldSize, ownOrderKey, key);
    if (full.isPresent()) {
      return full.get();
    }
    if (ownOrderKey != null) {
      context.changes().deleteRecord(ORDER, ownOrderKey);
    }
    long version = context.mintVersion();
    long expiresAt = keepExpiry ? stored.get().expiresAtMillis() : expiresAt(now, ttlMillis);
    putEntry(ns, keyUtf8, version, expiresAt, value.unsafeArray());
    entryChanges.add(new TtlChange(namespace, key, ChangeKind.PUT, version, expiresAt, value));
    ns.entries += addEntries;
    ns.bytes += newSize - oldSize;
    touched.add(ns.name);
    return new Result.EntryWritten(namespace, key, version, expiresAt);
  }

  private Result refresh(RefreshEntry c) {
    Optional<Result> bad = firstInvalid(badNamespace(c.namespace()), badKey(c.key()),
        badTtl(c.ttlMillis()),
        c.expectedVersion() < 0 ? "expectedVersion " + c.expectedVersion() + " < 0" : null);
    if (bad.isPresent()) {
      return bad.get();
    }
    long now = context.nowMillis();
    Namespace ns = namespaces.get(c.namespace());
    byte[] keyUtf8 = utf8(c.key());
    Optional<TtlFormat.Stored> stored = ns == null ? Optional.empty() : readEntry(ns, keyUtf8);
    if (stored.isEmpty()) {
      return new Result.Rejected(Outcome.ENTRY_UNKNOWN,
          "no entry " + c.namespace() + "/" + c.key(), 0, 0);
    }
    TtlFormat.Stored s = stored.get();
    if (isExpired(s.expiresAtMillis(), now)) {
      return new Result.Rejected(Outcome.ENTRY_UNKNOWN, "entry " + c.namespace() + "/" + c.key()
          + " expired at " + s.expiresAtMillis() + ", now " + now, 0, 0);
    }
    if (c.expectedVersion() != 0 && c.expectedVersion() != s.version()) {
      return new Result.Rejected(Outcome.VERSION_MISMATCH, "expected version "
          + c.expectedVersion() + " but current is " + s.version() + " for " + c.namespace()
          + "/" + c.key(), 0, s.version());
    }
    long expiresAt = expiresAt(now, c.ttlMillis());
    if (expiresAt != s.expiresAtMillis()) {
      // The old index record stays (the index is a queue) and becomes stale: its order record
      // is deleted here, so Tick finds nothing under it.
      context.changes().deleteRecord(ORDER, TtlFormat.orderKey(ns.id, s.expiresAtMillis(), s.version()));
      putEntry(ns, keyUtf8, s.version(), expiresAt, s.value());
      entryChanges.add(new TtlChange(c.namespace(), c.key(), ChangeKind.REFRESH, s.version(),
          expiresAt, new Bytes(s.value())));
    }
    return new Result.EntryWritten(c.namespace(), c.key(), s.version(), expiresAt);
  }

  private Result delete(DeleteEntry c) {
    Optional<Result> bad = firstInvalid(badNamespace(c.namespace()), badKey(c.key()),
        c.expectedVersion() < 0 ? "expectedVersion " + c.expectedVersion() + " < 0" : null);
    if (bad.isPresent()) {
      return bad.get();
    }
    long now = context.nowMillis();
    Namespace ns = namespaces.get(c.namespace());
    byte[] keyUtf8 = utf8(c.key());
    Optional<TtlFormat.Stored> stored = ns == null ? Optional.empty() : readEntry(ns, keyUtf8);
    boolean live = stored.isPresent() && !isExpired(stored.get().expiresAtMillis(), now);
    long current = live ? stored.get().version() : 0;
    if (c.expectedVersion() != 0 && c.expectedVersion() != current) {
      return new Result.Rejected(Outcome.VERSION_MISMATCH, "expected version "
          + c.expectedVersion() + " but current is " + current + " for " + c.namespace() + "/"
          + c.key(), 0, current);
    }
    if (stored.isPresent()) {
      removeEntry(ns, keyUtf8, stored.get());
      entryChanges.add(new TtlChange(c.namespace(), c.key(), ChangeKind.DELETE,
          stored.get().version(), stored.get().expiresAtMillis(), Bytes.EMPTY));
    }
    return new Result.EntryDeleted(c.namespace(), c.key(), current, live);
  }

  private Result setNamespace(SetNamespace c) {
    Optional<Result> bad = firstInvalid(badNamespace(c.namespace()),
        c.maxEntries() < 1 || c.maxEntries() > MAX_ENTRIES_LIMIT
            ? "maxEntries " + c.maxEntries() + " outside [1, " + MAX_ENTRIES_LIMIT + "]" : null,
        c.maxBytes() < 1 || c.maxBytes() > MAX_BYTES_LIMIT
            ? "maxBytes " + c.maxBytes() + " outside [1, " + MAX_BYTES_LIMIT + "]" : null,
        c.policy() == null ? "policy is missing" : null);
    if (bad.isPresent()) {
      return bad.get();
    }
    Namespace ns = namespaces.get(c.namespace());
    if (ns == null) {
      if (namespaces.size() >= MAX_NAMESPACES) {
        return new Result.Rejected(Outcome.NAMESPACE_FULL, "cannot create namespace "
            + c.namespace() + ": " + namespaces.size() + " namespaces exist, at most "
            + MAX_NAMESPACES, 0, 0);
      }
      ns = create(c.namespace(), c.maxEntries(), c.maxBytes(), c.policy());
    } else {
      ns.maxEntries = c.maxEntries();
      ns.maxBytes = c.maxBytes();
      ns.policy = c.policy();
      touched.add(ns.name);
    }
    return new Result.NamespaceSet(ns.view());
  }

  /** Tick popped a TTL_END record: remove the entry if the record is still its current one. */
  @Override
  public boolean expire(ExpiryKey due) {
    Namespace ns = byId.get(due.a());
    if (ns == null) {
      throw new InvariantViolation("I22 expiry record " + due + " names unknown namespace id " + due.a());
    }
    byte[] orderKey = TtlFormat.orderKey(ns.id, due.dueAtMillis(), due.b());
    Optional<byte[]> order = context.read(ORDER, orderKey);
    if (order.isEmpty()) {
      return false; // stale: refreshed, rewritten or deleted since
    }
    evict(ns, orderKey, order.get(), true);
    return true;
  }

  // ---------------------------------------------------------------- capacity

  /**
   * Makes room for {@code addEntries} more entries and {@code addBytes} more bytes: expired
   * entries go first (they are the soonest-expiring), then the policy. {@code ownOrderKey} (the
   * entry being overwritten) is never a candidate. Empty when there is room now.
   */
  private Optional<Result> makeRoom(Namespace ns, long addEntries, long addBytes,
      byte[] ownOrderKey, String key) {
    long now = context.nowMillis();
    int removed = 0;
    while (ns.entries + addEntries > ns.maxEntries || ns.bytes + addBytes > ns.maxBytes) {
      if (removed >= MAX_EVICTIONS_PER_WRITE) {
        return Optional.of(full(ns, key, "removed " + removed + " entries, the most one write may"));
      }
      Optional<Map.Entry<byte[], byte[]>> first = soonest(ns, ownOrderKey);
      if (first.isEmpty()) {
        return Optional.of(full(ns, key, "nothing left to evict"));
      }
      long[] order = TtlFormat.readOrderKey(first.get().getKey());
      boolean expired = isExpired(order[1], now);
      if (!expired && ns.policy != CapacityPolicy.EVICT_SOONEST_EXPIRING) {
        return Optional.of(full(ns, key, "policy " + ns.policy));
      }
      evict(ns, first.get().getKey(), first.get().getValue(), expired);
      removed++;
    }
    return Optional.empty();
  }

  private Result full(Namespace ns, String key, String why) {
    return new Result.Rejected(Outcome.NAMESPACE_FULL, "namespace " + ns.name + " is full for "
        + key + ": " + ns.entries + " entries of " + ns.maxEntries + ", " + ns.bytes
        + " bytes of " + ns.maxBytes + "; " + why, 0, 0);
  }

  /**
   * The first record of the namespace's order index (soonest expiresAt, then lowest version),
   * this entry's pending writes layered over the committed state; {@code skip} excluded.
   */
  private Optional<Map.Entry<byte[], byte[]>> soonest(Namespace ns, byte[] skip) {
    byte[] prefix = TtlFormat.namespacePrefix(ns.id);
    TreeMap<byte[], byte[]> pending = context.changes().records.get(ORDER);
    List<Map.Entry<byte[], byte[]>> found = new ArrayList<>(2);
    context.store().scan(ORDER, prefix, (k, v) -> {
      if (!TtlFormat.startsWith(k, prefix)) {
        return false;
      }
      if ((pending != null && pending.containsKey(k)) || (skip != null && Arrays.equals(k, skip))) {
        return true; // the pending side decides about keys this entry wrote or deleted
      }
      found.add(Map.entry(k, v));
      return false;
    });
    if (pending != null) {
      for (Map.Entry<byte[], byte[]> e : pending.tailMap(prefix, true).entrySet()) {
        if (!TtlFormat.startsWith(e.getKey(), prefix)) {
          break;
        }
        if (e.getValue() == Changes.DELETED || (skip != null && Arrays.equals(e.getKey(), skip))) {
          continue;
        }
        found.add(Map.entry(e.getKey(), e.getValue()));
        break;
      }
    }
    return found.stream().min((x, y) -> Arrays.compareUnsigned(x.getKey(), y.getKey()));
  }

  /** Removes the entry an order record names, counting it as expired or as a capacity eviction. */
  private void evict(Namespace ns, byte[] orderKey, byte[] orderValue, boolean expired) {
    long[] order = TtlFormat.readOrderKey(orderKey);
    byte[] keyUtf8 = TtlFormat.readOrderValue(orderValue);
    Optional<TtlFormat.Stored> stored = readEntry(ns, keyUtf8);
    if (stored.isEmpty() || stored.get().version() != order[2]
        || stored.get().expiresAtMillis() != order[1]) {
      throw new InvariantViolation("I20 order record (namespace " + ns.name + ", expiresAt "
          + order[1] + ", version " + order[2] + ") for key "
          + new String(keyUtf8, StandardCharsets.UTF_8) + " but the entry is "
          + stored.map(s -> "version " + s.version() + " expiresAt " + s.expiresAtMillis())
              .orElse("absent"));
    }
    removeEntry(ns, keyUtf8, stored.get());
    entryChanges.add(new TtlChange(ns.name, new String(keyUtf8, StandardCharsets.UTF_8),
        expired ? ChangeKind.EXPIRE : ChangeKind.EVICT, order[2], order[1], Bytes.EMPTY));
    if (expired) {
      ns.evictedExpired++;
    } else {
      ns.evictedCapacity++;
    }
  }

  // ---------------------------------------------------------------- records

  private Namespace create(String name, long maxEntries, long maxBytes, CapacityPolicy policy) {
    Namespace ns = new Namespace(name, context.mintVersion(), maxEntries, maxBytes, policy);
    namespaces.put(name, ns);
    byId.put(ns.id, ns);
    touched.add(name);
    return ns;
  }

  private Optional<TtlFormat.Stored> readEntry(Namespace ns, byte[] keyUtf8) {
    return context.read(ENTRIES, TtlFormat.entryKey(ns.id, keyUtf8)).map(TtlFormat::readEntry);
  }

  /** Writes the entry, its order record and (unless it never expires) its index record. */
  private void putEntry(Namespace ns, byte[] keyUtf8, long version, long expiresAt, byte[] value) {
    Changes changes = context.changes();
    changes.putRecord(ENTRIES, TtlFormat.entryKey(ns.id, keyUtf8),
        TtlFormat.entryValue(version, expiresAt, value));
    changes.putRecord(ORDER, TtlFormat.orderKey(ns.id, expiresAt, version),
        TtlFormat.orderValue(keyUtf8));
    if (expiresAt != NEVER) {
      context.putExpiry(new ExpiryKey(expiresAt, ExpiryKey.TTL_END, ns.id, version, 0));
    }
  }

  /** Deletes the entry and its order record; its index record, if any, goes stale. */
  private void removeEntry(Namespace ns, byte[] keyUtf8, TtlFormat.Stored stored) {
    Changes changes = context.changes();
    changes.deleteRecord(ENTRIES, TtlFormat.entryKey(ns.id, keyUtf8));
    changes.deleteRecord(ORDER, TtlFormat.orderKey(ns.id, stored.expiresAtMillis(), stored.version()));
    ns.entries--;
    ns.bytes -= keyUtf8.length + stored.value().length;
    touched.add(ns.name);
  }

  // ---------------------------------------------------------------- validation

  private static Optional<Result> firstInvalid(String... problems) {
    for (String problem : problems) {
      if (problem != null) {
        return Optional.of(new Result.Rejected(Outcome.INVALID_ARGUMENT, problem, 0, 0));
      }
    }
    return Optional.empty();
  }

  private String badNamespace(String namespace) {
    return badName("namespace", namespace, 1, maxNamespaceBytes);
  }

  private static String badKey(String key) {
    return badName("key", key, 1, MAX_KEY_BYTES);
  }

  private static String badTtl(long ttlMillis) {
    return ttlMillis < NO_EXPIRY_TTL
        ? "ttlMillis " + ttlMillis + " < 0 (use " + NO_EXPIRY_TTL + " for no expiry)" : null;
  }

  private static String badName(String field, String value, int min, int max) {
    if (value == null) {
      return field + " is missing";
    }
    int length = utf8Length(value);
    if (length < 0) {
      return field + " is not valid UTF-16";
    }
    if (length < min || length > max) {
      return field + " has " + length + " UTF-8 bytes, allowed " + min + ".." + max;
    }
    return null;
  }

  private static int utf8Length(String value) {
    try {
      return ByteWriter.utf8(value).length;
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }

  private static byte[] utf8(String value) {
    return ByteWriter.utf8(value);
  }

  // ---------------------------------------------------------------- reads

  @Override
  public Optional<QueryResult> query(Query query, long readNowMillis) {
    long readNow = Math.max(context.nowMillis(), readNowMillis);
    if (query instanceof Query.GetEntry q) {
      return Optional.of(new QueryResult.EntryAnswer(get(q.namespace(), q.key(), readNow), readNow));
    } else if (query instanceof Query.ListEntries q) {
      return Optional.of(list(q, readNow));
    } else if (query instanceof Query.GetNamespace q) {
      return Optional.of(new QueryResult.NamespaceAnswer(
          Optional.ofNullable(namespaces.get(q.namespace())).map(Namespace::view)));
    } else if (query instanceof Query.ListNamespaces) {
      List<NamespaceView> all = new ArrayList<>(namespaces.size());
      for (Namespace n : namespaces.values()) {
        all.add(n.view());
      }
      return Optional.of(new QueryResult.NamespaceList(all));
    }
    return Optional.empty();
  }

  private Optional<EntryView> get(String namespace, String key, long readNow) {
    Namespace ns = namespaces.get(namespace);
    if (ns == null || badKey(key) != null) {
      return Optional.empty();
    }
    byte[] keyUtf8 = utf8(key);
    return context.store().get(ENTRIES, TtlFormat.entryKey(ns.id, keyUtf8))
        .map(TtlFormat::readEntry)
        .filter(s -> !isExpired(s.expiresAtMillis(), readNow))
        .map(s -> new EntryView(namespace, key, new Bytes(s.value()), s.version(), s.expiresAtMillis()));
  }

  private QueryResult list(Query.ListEntries q, long readNow) {
    Namespace ns = namespaces.get(q.namespace());
    if (ns == null || q.prefix() == null || utf8Length(q.prefix()) < 0
        || utf8Length(q.prefix()) > MAX_KEY_BYTES) {
      return new QueryResult.EntryList(List.of(), false, readNow);
    }
    int limit = Math.max(1, Math.min(q.limit(), MAX_LIST_LIMIT));
    byte[] from = TtlFormat.entryKey(ns.id, utf8(q.prefix()));
    List<EntryView> out = new ArrayList<>();
    boolean[] truncated = {false};
    int[] scanned = {0};
    context.store().scan(ENTRIES, from, (k, v) -> {
      if (!TtlFormat.startsWith(k, from)) {
        return false;
      }
      if (++scanned[0] > MAX_LIST_SCAN) {
        truncated[0] = true;
        return false;
      }
      TtlFormat.Stored s = TtlFormat.readEntry(v);
      if (isExpired(s.expiresAtMillis(), readNow)) {
        return true;
      }
      if (out.size() == limit) {
        truncated[0] = true;
        return false;
      }
      out.add(new EntryView(q.namespace(),
          new String(TtlFormat.entryKeyUtf8(k), StandardCharsets.UTF_8), new Bytes(s.value()),
          s.version(), s.expiresAtMillis()));
      return true;
    });
    return new QueryResult.EntryList(out, truncated[0], readNow);
  }

  // ---------------------------------------------------------------- load and verify

  @Override
  public void load() {
    namespaces.clear();
    byId.clear();
    context.store().scan(NAMESPACES, new byte[0], (k, v) -> {
      Namespace n = TtlFormat.readNamespace(new String(k, StandardCharsets.UTF_8), v);
      namespaces.put(n.name, n);
      byId.put(n.id, n);
      return true;
    });
  }

  /**
   * I20–I22 from scratch, reading every stored entry and order record (expensive: at open, at
   * every checkpoint and in tests). Entries and order records are compared as multisets by an
   * order-independent hash of (namespace, key, expiresAt, version) over two sequential scans
   * (the two families are ordered differently, and point lookups made this check 3x slower at
   * 1M entries); the index is checked by one point lookup per expiring entry.
   */
  @Override
  public void verifyAtSnapshot() {
    verifyNamespaces(new HashMap<>());
  }

  @Override
  public void verify() {
    Map<Long, long[]> sums = new HashMap<>();
    verifyNamespaces(sums);
    verifyStored(sums);
  }

  /** I21, I22 over the in-memory namespace records; fills {@code sums} with one slot per id. */
  private void verifyNamespaces(Map<Long, long[]> sums) {
    long nextVersion = context.nextVersion();
    for (Namespace n : namespaces.values()) {
      if (n.id <= 0 || n.id >= nextVersion || sums.put(n.id, new long[2]) != null) {
        throw new InvariantViolation("I22 namespace " + n.name + " id " + n.id
            + " not unique or not in (0, nextVersion " + nextVersion + ")");
      }
      if (n.entries < 0 || n.bytes < 0 || n.evictedExpired < 0 || n.evictedCapacity < 0
          || n.maxEntries < 1 || n.maxBytes < 1) {
        throw new InvariantViolation("I21 namespace " + n.name + " entries " + n.entries
            + " bytes " + n.bytes + " maxEntries " + n.maxEntries + " maxBytes " + n.maxBytes
            + " evictedExpired " + n.evictedExpired + " evictedCapacity " + n.evictedCapacity);
      }
    }
  }

  /** The storage scans of verify(): stored entries and order records against the namespaces. */
  private void verifyStored(Map<Long, long[]> sums) {
    long nextVersion = context.nextVersion();
    long[] entries = {0};
    long[] entryHash = {0};
    context.store().scan(ENTRIES, new byte[0], (k, v) -> {
      long nsId = TtlFormat.entryKeyNamespace(k);
      byte[] keyUtf8 = TtlFormat.entryKeyUtf8(k);
      String key = new String(keyUtf8, StandardCharsets.UTF_8);
      long[] sum = sums.get(nsId);
      if (sum == null) {
        throw new InvariantViolation("I22 entry " + key + " in unknown namespace id " + nsId);
      }
      TtlFormat.Stored s = TtlFormat.readEntry(v);
      sum[0]++;
      sum[1] += keyUtf8.length + s.value().length;
      entries[0]++;
      if (s.version() <= 0 || s.version() >= nextVersion) {
        throw new InvariantViolation("I22 entry " + key + " version " + s.version()
            + " not in (0, nextVersion " + nextVersion + ")");
      }
      entryHash[0] += audit(nsId, keyUtf8, s.expiresAtMillis(), s.version());
      if (s.expiresAtMillis() != NEVER && !context.hasExpiry(
          new ExpiryKey(s.expiresAtMillis(), ExpiryKey.TTL_END, nsId, s.version(), 0))) {
        throw new InvariantViolation("I20 entry " + key + " (namespace id " + nsId + ", version "
            + s.version() + ", expiresAt " + s.expiresAtMillis() + ") has no expiry-index record");
      }
      return true;
    });
    for (Namespace n : namespaces.values()) {
      long[] sum = sums.get(n.id);
      if (sum[0] != n.entries || sum[1] != n.bytes) {
        throw new InvariantViolation("I21 namespace " + n.name + " counts entries " + n.entries
            + " (stored " + sum[0] + ") bytes " + n.bytes + " (stored " + sum[1] + ")");
      }
    }
    long[] orders = {0};
    long[] orderHash = {0};
    context.store().scan(ORDER, new byte[0], (k, v) -> {
      orders[0]++;
      long[] o = TtlFormat.readOrderKey(k);
      orderHash[0] += audit(o[0], TtlFormat.readOrderValue(v), o[1], o[2]);
      return true;
    });
    if (orders[0] != entries[0] || orderHash[0] != entryHash[0]) {
      throw new InvariantViolation("I20 " + orders[0] + " order records (hash " + orderHash[0]
          + ") do not match " + entries[0] + " entries (hash " + entryHash[0] + ")");
    }
  }

  /** An order-independent audit hash of one entry (summed over a family; mixes like SplitMix64). */
  private static long audit(long nsId, byte[] keyUtf8, long expiresAt, long version) {
    long h = nsId * 0x9E3779B97F4A7C15L;
    h = mix(h ^ Arrays.hashCode(keyUtf8));
    h = mix(h ^ expiresAt);
    return mix(h ^ version);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** I22 for the TTL kind of the shared index: every record names a known namespace. */
  @Override
  public void verifyStoredExpiries(Consumer<Consumer<ExpiryKey>> walk) {
    walk.accept(key -> {
      if (!byId.containsKey(key.a()) || key.c() != 0) {
        throw new InvariantViolation("I22 expiry record " + key + " names unknown namespace id "
            + key.a() + " or has c " + key.c() + " != 0");
      }
    });
  }
}
