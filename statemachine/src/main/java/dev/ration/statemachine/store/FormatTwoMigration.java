package dev.ration.statemachine.store;

import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.lease.LeaseLedger;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.statemachine.replica.IdempotencyGeneration;
import dev.ration.statemachine.replica.IdempotencyRecord;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Opens a state directory of meta format 2 (before 2026-12-01 night) as format 3, in place and
 * in one WriteBatch, so a crash during it leaves format 2 to migrate again:
 * <ul>
 *   <li>the expiry index loses its lease kinds (rebuilt from the leases at load) and its
 *       idempotency ends (kind 3, retired);</li>
 *   <li>each idempotency record moves under its generation's prefix, on the retention grid of
 *       the options it is opened with; records of a generation that has already expired whole
 *       are deleted instead (they no longer answer);</li>
 *   <li>the generations' counts are written beside the meta record, and the meta record is
 *       rewritten as format 3 with the counter set to their sum.</li>
 * </ul>
 * What a client sees does not change: every record that still answers keeps answering until
 * its expiry. Limits, leases and the other ledgers' families are not touched.
 *
 * <p>Thread: the opening thread, before the state is loaded.
 */
final class FormatTwoMigration {
  private FormatTwoMigration() {}

  /** Migrates; returns the number of idempotency records kept. */
  static long migrate(Path dataDir, RocksDB db, WriteOptions writeOptions,
      ColumnFamilyHandle idempotencyCf, ColumnFamilyHandle expiryCf, ColumnFamilyHandle metaCf,
      byte[] meta, long retentionMillis) {
    long[] m = StoreFormat.readMeta(meta, 2);
    long now = m[2];
    TreeMap<Long, long[]> generations = new TreeMap<>(); // start -> {end, count}
    try (WriteBatch batch = new WriteBatch()) {
      try (RocksIterator it = db.newIterator(expiryCf)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          ExpiryKey key = StoreFormat.readExpiryKey(it.key());
          if (LeaseLedger.isLeaseKind(key.kind()) || key.kind() == ExpiryKey.RETIRED_IDEMPOTENCY_END) {
            batch.delete(expiryCf, it.key());
          }
        }
        it.status();
      }
      try (RocksIterator it = db.newIterator(idempotencyCf)) {
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] oldKey = it.key();
          RequestKey key = StoreFormat.readFormatTwoIdempotencyKey(oldKey);
          IdempotencyRecord record = StoreFormat.readIdempotency(0, it.value());
          batch.delete(idempotencyCf, oldKey);
          IdempotencyGeneration cell =
              IdempotencyGeneration.onGrid(record.expiresAtMillis(), retentionMillis);
          if (cell.expiredAt(now)) {
            continue; // expired whole: the record goes, as the generation would have
          }
          batch.put(idempotencyCf, StoreFormat.idempotencyKey(cell.start(), key), it.value());
          generations.computeIfAbsent(cell.start(), s -> new long[] {cell.end(), 0})[1]++;
        }
        it.status();
      }
      long kept = 0;
      for (Map.Entry<Long, long[]> g : generations.entrySet()) {
        IdempotencyGeneration generation =
            new IdempotencyGeneration(g.getKey(), g.getValue()[0], g.getValue()[1]);
        batch.put(metaCf, StoreFormat.generationKey(generation.start()),
            StoreFormat.generationValue(generation));
        kept += generation.count();
      }
      batch.put(metaCf, StoreFormat.META_KEY,
          StoreFormat.metaValue(m[0], m[1], m[2], m[3], m[4], m[5], m[6], kept));
      db.write(writeOptions, batch);
      return kept;
    } catch (RocksDBException e) {
      throw new StoreException("migrate store format 2 to 3 dir=" + dataDir, e);
    }
  }
}
