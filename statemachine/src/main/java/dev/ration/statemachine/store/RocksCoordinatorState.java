package dev.ration.statemachine.store;

import dev.ration.statemachine.placement.GroupSlots;
import dev.ration.statemachine.slotledger.PlacementLedger;

import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.CoordinatorState;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.lease.LeaseFormat;
import dev.ration.statemachine.lease.LeaseLedger;
import dev.ration.statemachine.query.Query;
import dev.ration.statemachine.query.QueryResult;
import dev.ration.statemachine.quota.QuotaLedger;
import dev.ration.statemachine.quota.QuotaOptions;
import dev.ration.statemachine.replica.ApplyContext;
import dev.ration.statemachine.replica.Changes;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.IdempotencyGeneration;
import dev.ration.statemachine.replica.IdempotencyRecord;
import dev.ration.statemachine.replica.Ledger;
import dev.ration.statemachine.replica.Replica;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.security.SecurityLedger;
import dev.ration.statemachine.security.SecurityTable;
import dev.ration.statemachine.ttl.TtlLedger;
import dev.ration.wire.ByteWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.Filter;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * {@link CoordinatorState} over RocksDB: the {@link LeaseLedger}, every applied entry persisted
 * as one WriteBatch holding its changes and the meta record (applied term and index, ledger now,
 * epoch, counters).
 *
 * <p>Column families: {@code limits}, {@code leases}, {@code idempotency}, {@code expiry} (the
 * time-ordered index of every kind but the lease kinds, which follow from the leases and live
 * only in memory), {@code meta}; formats in {@link StoreFormat}. At open limits and leases are
 * loaded into memory (rebuilding the lease kinds of the index) and {@link #verify()} runs.
 * Idempotency records — one per client mutation for the retention window, the bulk of the
 * state — stay in RocksDB only and are read through {@link RocksLedgerStore}; they are keyed
 * by generation (a range of expiry times) and a generation is range-deleted whole once all of
 * it has expired, so a record costs one write, not four. The {@code idempotency} family has
 * bloom filters (SST and memtable) because a lookup on apply usually misses.
 *
 * <p><b>Durability.</b> The Raft log is the durable record and RocksDB's own WAL is off: after
 * a crash RocksDB holds what its last flush wrote, and Ratis replays every entry after the
 * applied index found there. The applied index travels in the same WriteBatch as the effects
 * and every column family is flushed atomically ({@code atomic_flush}), so the flushed state is
 * always one consistent prefix of the entries; losing the memtables only means replaying more
 * (up to a memtable's worth, a few seconds of load). What must be durable before Ratis may
 * purge its log is a snapshot, so {@link #checkpoint} flushes the memtables before creating the
 * RocksDB checkpoint (apache/hadoop #651); a clean close flushes too. Measured: the WAL's writes
 * (kernel page-cache copies of every batch) cost a quarter of the renewal throughput on a
 * 2-core machine (docs/benchmarks.md, docs/DECISIONS.md "No RocksDB WAL").
 *
 * <p>Thread: single caller (the server serialises apply, query, checkpoint and close). After any
 * exception from apply the in-memory ledger may be ahead of the store; the object then refuses
 * every further call (fail-stop), and the server must terminate and restart from RocksDB.
 *
 * <p>Close order (RocksDB JNI crashes on use after close): iterators are closed where opened;
 * then column-family handles, the DB, the write options, the DB and CF options.
 */
public final class RocksCoordinatorState implements CoordinatorState {
  static final String[] FAMILIES = {"limits", "leases", "idempotency", "expiry", "meta",
      // Store-only families of pluggable ledgers (dev.ration.statemachine.replica.Ledger):
      // written through Changes.records, read through FamilyStore. Append new ones here.
      TtlLedger.ENTRIES, TtlLedger.ORDER, TtlLedger.NAMESPACES,
      QuotaLedger.FAMILY_QUOTA, QuotaLedger.FAMILY_USAGE,
      SecurityLedger.FAMILY,
      PlacementLedger.FAMILY,
  };
  /** Index of the first store-only family in {@link #FAMILIES}. */
  private static final int FIRST_STORE_ONLY_FAMILY = 5;

  static {
    RocksDB.loadLibrary();
  }

  private final Path dataDir;
  private final DBOptions dbOptions;
  private final ColumnFamilyOptions cfOptions;
  private final ColumnFamilyOptions idempotencyCfOptions;
  private final ColumnFamilyOptions expiryCfOptions;
  private final Filter idempotencyFilter;
  private final WriteOptions writeOptions;
  private final RocksDB db;
  private final List<ColumnFamilyHandle> handles;
  private final ColumnFamilyHandle idempotencyCf;
  private final ColumnFamilyHandle expiryCf;
  private final ColumnFamilyHandle metaCf;
  private final RocksLedgerStore store;
  private final Replica replica;
  private final LeaseLedger ledger;
  private final StateOptions options;
  private String failure = "";
  private boolean closed;
  /** Idempotency records kept by a migration from format 2 at open, or −1 if none ran. */
  private long migratedRecords = -1;

  private RocksCoordinatorState(Path dataDir, DBOptions dbOptions, ColumnFamilyOptions cfOptions,
      ColumnFamilyOptions idempotencyCfOptions, Filter idempotencyFilter,
      ColumnFamilyOptions expiryCfOptions, RocksDB db,
      List<ColumnFamilyHandle> handles, StateOptions options) {
    this.dataDir = dataDir;
    this.dbOptions = dbOptions;
    this.cfOptions = cfOptions;
    this.idempotencyCfOptions = idempotencyCfOptions;
    this.expiryCfOptions = expiryCfOptions;
    this.idempotencyFilter = idempotencyFilter;
    // No RocksDB WAL: the Raft log is the write-ahead log (see the class comment).
    this.writeOptions = new WriteOptions().setSync(false).setDisableWAL(true);
    this.db = db;
    this.handles = handles;
    this.idempotencyCf = handles.get(3);
    this.expiryCf = handles.get(4);
    this.metaCf = handles.get(5);
    Map<String, ColumnFamilyHandle> storeOnly = new HashMap<>();
    storeOnly.put(LeaseFormat.LIMITS, handles.get(1));
    storeOnly.put(LeaseFormat.LEASES, handles.get(2));
    for (int i = FIRST_STORE_ONLY_FAMILY; i < FAMILIES.length; i++) {
      storeOnly.put(FAMILIES[i], handles.get(i + 1));
    }
    this.store = new RocksLedgerStore(dataDir, db, idempotencyCf, expiryCf, metaCf, storeOnly);
    this.options = options;
    this.replica = new Replica(options, store, store, ledgers(options));
    this.ledger = replica.ledger(LeaseLedger.class);
  }

  /** The ledgers a node runs, in routing order. */
  public static List<Function<ApplyContext, Ledger>> ledgers(StateOptions options) {
    return List.of(
        context -> new LeaseLedger(options, context),
        context -> new TtlLedger(options, context),
        context -> new QuotaLedger(options, context),
        context -> new SecurityLedger(options, context),
        // Each replica built from this list gets a table of its own.
        context -> new PlacementLedger(context, GroupSlots.servingAll(0)));
  }

  /**
   * The ledgers of one data group whose slot table starts as {@code slots}, which becomes that
   * group's replicated table: build one replica from this list.
   */
  public static List<Function<ApplyContext, Ledger>> ledgers(StateOptions options, GroupSlots slots) {
    return List.of(
        context -> new LeaseLedger(options, context),
        context -> new TtlLedger(options, context),
        context -> new QuotaLedger(options, context),
        context -> new SecurityLedger(options, context),
        context -> new PlacementLedger(context, slots));
  }

  /** Creates or reopens the state in {@code dataDir}, loads it into memory and verifies it. */
  public static RocksCoordinatorState open(Path dataDir, StateOptions options) {
    DBOptions dbOptions = new DBOptions()
        .setCreateIfMissing(true)
        .setCreateMissingColumnFamilies(true)
        .setMaxBackgroundJobs(2)
        .setKeepLogFileNum(4)
        // Without a WAL, what survives a crash is what was flushed: every family is flushed
        // together, so the flushed state is one consistent prefix of the applied entries,
        // applied index (meta) included.
        .setAtomicFlush(true);
    // Small memtables: limits and leases are held in memory anyway; RocksDB is their durable
    // copy. The idempotency and expiry families are read on apply, off the heap.
    ColumnFamilyOptions cfOptions = new ColumnFamilyOptions().setWriteBufferSize(8L << 20);
    // Idempotency lookups are point gets by the whole key and usually miss: a bloom filter in
    // every SST (10 bits/key, about 1% false positives) and one over the memtable (whole-key
    // filtering needs a non-zero prefix-bloom ratio) keep a miss from reading data blocks.
    Filter idempotencyFilter = new BloomFilter(10, false);
    ColumnFamilyOptions idempotencyCfOptions = churning(new ColumnFamilyOptions())
        .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(idempotencyFilter))
        .setMemtableWholeKeyFiltering(true)
        .setMemtablePrefixBloomSizeRatio(0.1);
    ColumnFamilyOptions expiryCfOptions = churning(new ColumnFamilyOptions());
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
    for (String family : FAMILIES) {
      descriptors.add(new ColumnFamilyDescriptor(
          family.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
          family.equals("idempotency") ? idempotencyCfOptions
              : family.equals("expiry") ? expiryCfOptions : cfOptions));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    RocksDB db;
    try {
      Files.createDirectories(dataDir);
      db = RocksDB.open(dbOptions, dataDir.toString(), descriptors, handles);
    } catch (RocksDBException | IOException e) {
      idempotencyCfOptions.close();
      idempotencyFilter.close();
      expiryCfOptions.close();
      cfOptions.close();
      dbOptions.close();
      throw new StoreException("open RocksDB state dir=" + dataDir, e);
    }
    RocksCoordinatorState state = new RocksCoordinatorState(dataDir, dbOptions, cfOptions,
        idempotencyCfOptions, idempotencyFilter, expiryCfOptions, db, handles, options);
    try {
      state.load();
      state.replica.verify();
    } catch (RuntimeException e) {
      state.close();
      throw e;
    }
    return state;
  }

  /**
   * Options of the two families every command churns: each renewal adds an idempotency record
   * (dropped with its generation one to two retentions later) and moves its lease's end in the
   * index. Their live data is a retention window's worth or two (60 s of records, tens of MB
   * under load), and every L0 flush overlaps all of a generation (request keys are spread), so
   * an L0 compaction rewrites much of the family. Measured under renewal load with a trigger
   * of 4 and Snappy: a compaction every few seconds rewriting everything, 7-8% of a core per
   * node; with a trigger of 8 (each rewrite carries twice the new data) and no compression
   * (these records are short-lived and small, and CPU is what is scarce), 4-8%. Memtables stay
   * at 8 MiB: 32 MiB made every insert dearer than the compactions it saved
   * (docs/DECISIONS.md "Apply cost").
   */
  private static ColumnFamilyOptions churning(ColumnFamilyOptions options) {
    return options
        .setWriteBufferSize(8L << 20)
        .setLevel0FileNumCompactionTrigger(8)
        .setLevel0SlowdownWritesTrigger(40)
        .setLevel0StopWritesTrigger(56)
        .setCompressionType(CompressionType.NO_COMPRESSION);
  }

  private void load() {
    try {
      byte[] meta = db.get(metaCf, StoreFormat.META_KEY);
      if (meta != null && StoreFormat.metaFormat(meta) == 2) {
        migratedRecords = FormatTwoMigration.migrate(dataDir, db, writeOptions, idempotencyCf,
            expiryCf, metaCf, meta, options.idempotencyRetentionMillis());
        meta = db.get(metaCf, StoreFormat.META_KEY);
      }
      if (meta != null) {
        long[] m = StoreFormat.readMeta(meta);
        replica.restoreMeta(m[0], m[1], m[2], m[6], m[7]);
        ledger.restoreMeta(m[3], m[4], m[5]);
      }
    } catch (RocksDBException e) {
      throw new StoreException("read meta dir=" + dataDir, e);
    }
    // Every ledger loads what it keeps in memory from its own families (the lease ledger its
    // limits and leases, rebuilding the lease kinds of the expiry index); idempotency records
    // and the stored kinds of the index stay in RocksDB (verify() reads them all).
    replica.load();
  }

  private void usable() {
    if (closed) {
      throw new IllegalStateException("state is closed dir=" + dataDir);
    }
    if (!failure.isEmpty()) {
      throw new IllegalStateException("state failed earlier and must be reopened: " + failure);
    }
  }

  /**
   * If this open migrated a format-2 directory (docs/OPERATIONS.md "State directory format"):
   * how many idempotency records it kept; else empty.
   */
  public OptionalLong migratedFromFormatTwo() {
    return migratedRecords < 0 ? OptionalLong.empty() : OptionalLong.of(migratedRecords);
  }

  @Override
  public List<Result> apply(long term, long index, Batch batch) {
    usable();
    replica.checkNext(term, index);
    try {
      List<Result> results = replica.apply(term, index, batch);
      persist(term, index);
      return results;
    } catch (RuntimeException e) {
      failure = "apply term=" + term + " index=" + index + ": " + e;
      throw e;
    }
  }

  @Override
  public List<dev.ration.statemachine.ttl.TtlChange> takeTtlChanges() {
    return replica.ledger(dev.ration.statemachine.ttl.TtlLedger.class).takeChanges();
  }

  @Override
  public void applyEmpty(long term, long index) {
    usable();
    replica.checkNext(term, index);
    try {
      replica.applyEmpty(term, index);
      persist(term, index);
    } catch (RuntimeException e) {
      failure = "applyEmpty term=" + term + " index=" + index + ": " + e;
      throw e;
    }
  }

  /** One WriteBatch: every touched record (or its delete) plus the meta record. */
  private void persist(long term, long index) {
    Changes changes = replica.takeChanges();
    try (WriteBatch batch = new WriteBatch()) {
      for (long generation : changes.generationDrops) {
        // Every record in it has expired: one range tombstone instead of a delete per record.
        batch.deleteRange(idempotencyCf, StoreFormat.generationFirstKey(generation),
            StoreFormat.generationPastKey(generation));
        batch.delete(metaCf, StoreFormat.generationKey(generation));
      }
      for (Map.Entry<RequestKey, IdempotencyRecord> e : changes.idempotencyPuts.entrySet()) {
        batch.put(idempotencyCf, StoreFormat.idempotencyKey(e.getValue().generation(), e.getKey()),
            StoreFormat.idempotencyValue(e.getValue()));
      }
      for (IdempotencyGeneration generation : changes.generationPuts.values()) {
        batch.put(metaCf, StoreFormat.generationKey(generation.start()),
            StoreFormat.generationValue(generation));
      }
      for (ExpiryKey key : changes.expiryPuts) {
        batch.put(expiryCf, StoreFormat.expiryKey(key), StoreFormat.EXPIRY_VALUE);
      }
      for (ExpiryKey key : changes.expiryDeletes) {
        batch.delete(expiryCf, StoreFormat.expiryKey(key));
      }
      for (ExpiryKey key : changes.expiryRemovals) {
        batch.delete(expiryCf, StoreFormat.expiryKey(key));
      }
      for (Map.Entry<String, TreeMap<byte[], byte[]>> family : changes.records.entrySet()) {
        ColumnFamilyHandle handle = store.family(family.getKey());
        for (Map.Entry<byte[], byte[]> record : family.getValue().entrySet()) {
          if (record.getValue() == Changes.DELETED) {
            batch.delete(handle, record.getKey());
          } else {
            batch.put(handle, record.getKey(), record.getValue());
          }
        }
      }
      batch.put(metaCf, StoreFormat.META_KEY, StoreFormat.metaValue(replica.appliedTerm(),
          replica.appliedIndex(), replica.nowMillis(), ledger.epoch(), ledger.epochStartMillis(),
          ledger.storedLeaseCounter(), replica.nextVersion(), replica.idempotencyRecords()));
      db.write(writeOptions, batch);
      store.committed(changes);
    } catch (RocksDBException e) {
      throw new StoreException("write applied entry term=" + term + " index=" + index + " dir=" + dataDir, e);
    }
  }

  @Override
  public QueryResult query(Query query, long readNowMillis) {
    usable();
    return replica.query(query, readNowMillis);
  }

  @Override
  public long appliedTerm() {
    return replica.appliedTerm();
  }

  @Override
  public long appliedIndex() {
    return replica.appliedIndex();
  }

  @Override
  public long nowMillis() {
    return replica.nowMillis();
  }

  @Override
  public long epoch() {
    return ledger.epoch();
  }

  @Override
  public SecurityTable securityTable() {
    return replica.ledger(SecurityLedger.class).table();
  }

  @Override
  public long nextDueMillis() {
    return replica.nextDueMillis();
  }

  @Override
  public CheckpointManifest checkpoint(Path targetDir) {
    usable();
    String context = "checkpoint term=" + appliedTerm() + " index=" + appliedIndex() + " dir=" + targetDir;
    if (Files.exists(targetDir)) {
      throw new StoreException(context + ": target already exists");
    }
    // Never hand a broken state to a follower: the in-memory invariants (conservation included)
    // are checked at every snapshot. The storage scans of verify() are not: the caller holds the
    // apply lock, and scanning a million stored records would stall every request for tens of
    // seconds. A snapshot is verified in full when it is opened (restore, install, restart).
    replica.verifyAtSnapshot();
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true);
        Checkpoint checkpoint = Checkpoint.create(db)) {
      db.flush(flush, handles);
      Files.createDirectories(targetDir.toAbsolutePath().getParent());
      checkpoint.createCheckpoint(targetDir.toString());
    } catch (RocksDBException | IOException e) {
      throw new StoreException(context, e);
    }
    return Checkpoints.writeManifest(targetDir, StoreFormat.FORMAT_VERSION, appliedTerm(), appliedIndex());
  }

  /** Verifies {@code checkpointDir}'s manifest and files, then swaps it in as {@code dataDir}. */
  public static void restoreCheckpoint(Path checkpointDir, Path dataDir) {
    Checkpoints.restore(checkpointDir, dataDir, StoreFormat.FORMAT_VERSION);
  }

  /**
   * Seeds {@code dataDir} from a checkpoint as the first state of a <em>new</em> Raft group
   * (restore from a backup): verifies and copies it as {@link #restoreCheckpoint} does, opens it
   * (which recomputes every invariant), then resets its applied position to nothing applied, so
   * the new group's log, which starts again at index 0, applies from its first entry. The
   * ledger's clock, epoch and counters carry on. Returns the checkpoint's manifest: the save
   * point.
   */
  public static CheckpointManifest restoreAsNewGroup(Path checkpointDir, Path dataDir,
      StateOptions options) {
    CheckpointManifest manifest = Checkpoints.readManifest(checkpointDir);
    restoreCheckpoint(checkpointDir, dataDir);
    try (RocksCoordinatorState state = open(dataDir, options)) {
      state.verify();
      byte[] meta = state.db.get(state.metaCf, StoreFormat.META_KEY);
      if (meta == null) {
        throw new StoreException("restore into " + dataDir + ": the checkpoint has no meta record");
      }
      long[] m = StoreFormat.readMeta(meta);
      state.db.put(state.metaCf, state.writeOptions, StoreFormat.META_KEY, StoreFormat.metaValue(
          0, Replica.NOTHING_APPLIED, m[2], m[3], m[4], m[5], m[6], m[7]));
    } catch (RocksDBException e) {
      throw new StoreException("restore into " + dataDir + ": reset the applied position", e);
    }
    return manifest;
  }

  public static CheckpointManifest readManifest(Path checkpointDir) {
    return Checkpoints.readManifest(checkpointDir);
  }

  @Override
  public void verify() {
    usable();
    replica.verify();
  }

  /**
   * Every column family's records in key order (read from RocksDB, not from memory), each
   * family introduced by its name: two replicas fed the same entries compare byte-equal.
   */
  @Override
  public byte[] canonicalState() {
    usable();
    ByteWriter out = new ByteWriter(4096);
    for (int i = 0; i < FAMILIES.length; i++) {
      out.str(FAMILIES[i]);
      try (RocksIterator it = db.newIterator(handles.get(i + 1))) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] key = it.key();
          byte[] value = it.value();
          out.u8(1).i32(key.length).raw(key).i32(value.length).raw(value);
        }
      }
      out.u8(0);
    }
    return out.toByteArray();
  }

  @Override
  public java.util.Map<String, Long> storeProperties() {
    if (closed) {
      return java.util.Map.of();
    }
    java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
    for (String p : PER_FAMILY_PROPERTIES) {
      try {
        out.put(p, db.getAggregatedLongProperty(p));
      } catch (RocksDBException e) {
        // A property this RocksDB does not keep: left out, as the interface says.
      }
    }
    for (String p : DB_PROPERTIES) {
      try {
        out.put(p, db.getLongProperty(p));
      } catch (RocksDBException e) {
        // As above.
      }
    }
    return out;
  }

  /** RocksDB keeps these per column family; the store reports their sum. */
  private static final List<String> PER_FAMILY_PROPERTIES = List.of(
      "rocksdb.total-sst-files-size", "rocksdb.estimate-live-data-size", "rocksdb.cur-size-all-mem-tables",
      "rocksdb.estimate-pending-compaction-bytes", "rocksdb.estimate-num-keys");
  /** Properties of the whole database. */
  private static final List<String> DB_PROPERTIES = List.of(
      "rocksdb.num-running-compactions", "rocksdb.is-write-stopped", "rocksdb.actual-delayed-write-rate");

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    // Without a WAL the memtables are the only copy of the entries applied since the last
    // flush: flush them, so a clean restart need not replay them from the Raft log. If this
    // fails (or the process dies first) nothing is lost, the Raft log replays them; the
    // failure is reported once everything is released.
    RocksDBException flushFailed = null;
    try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      db.flush(flush, handles);
    } catch (RocksDBException e) {
      flushFailed = e;
    }
    for (ColumnFamilyHandle handle : handles) {
      handle.close();
    }
    db.close();
    writeOptions.close();
    dbOptions.close();
    cfOptions.close();
    idempotencyCfOptions.close();
    idempotencyFilter.close();
    expiryCfOptions.close();
    if (flushFailed != null) {
      throw new StoreException("flush memtables at close dir=" + dataDir
          + " (the Raft log replays the entries they held)", flushFailed);
    }
  }
}
