package dev.ration.statemachine.quota;

import dev.ration.statemachine.InvariantViolation;
import dev.ration.statemachine.replica.ExpiryKey;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.util.Arrays;

/**
 * The byte layout of every key the quota ledger writes, in one place: the records of the
 * {@code quota} family, the {@code usage} log's sequence keys and this ledger's records in the
 * replica's shared expiry index. Every replica must build byte-identical keys, and the order
 * of keys is what the range scans rely on, so nothing else in the package assembles a key.
 *
 * <pre>
 * quota family   'C' str scope, str resource                 catalog entry (newest version)
 *                'H' str scope, str resource, i64 version    catalog history
 *                'L' str scope, str resource                 usage at one level
 *                'R' i64 reservationId                       outstanding reservation
 *                'S' i64 reservationId                       settlement, kept for a retention
 *                'D' str eventId                             ingested event id (dedup, one
 *                                                            space for every tenant: code 44)
 *                'T' str tenant, str eventId                 ingested event id (dedup per
 *                                                            tenant: code 48)
 *                'A' str scope, str resource, i64 bucket^MIN hour aggregate
 *                'K' str consumer                            consumer cursor
 *                'U' i64 sequence                            audit record
 *                'E' i64 reservationId, i64 sequence         usage events of a reservation
 *                'I' str scope, str idempotencyKey           a keyed reservation's decision
 *                'J' i64 reservationId                       its key (forgotten with the settlement)
 *                'B' i64 budgetId                            a held or lapsed budget
 *                'O' str scope, str resource                 budgets' unspent tally of a level
 *                'M'                                         counters
 *                'F'                                         retention: first kept log and
 *                                                            audit sequences
 * usage family   i64 sequence                                usage log record
 * expiry index   kinds 5 (reservation end), 6 (settlement forgotten), 7 (event id forgotten),
 *                8 (budget lapses or is dropped), with the reservation or budget id or the
 *                event's log sequence as {@code a}
 * </pre>
 *
 * <p>Thread: none of its own; stateless, called on the single applying thread and by queries.
 *
 * <p>Invariants: each tag starts exactly one kind of record, so {@code [tag, tag + 1)} is that
 * kind's whole range; integers are big-endian and bucket starts have their sign bit flipped, so
 * unsigned key order is numeric order (ids, sequences, versions and hours scan in order).
 */
final class QuotaKeys {
  static final int EXPIRY_RESERVATION = ExpiryKey.QUOTA_RESERVATION_END;
  static final int EXPIRY_SETTLEMENT = ExpiryKey.QUOTA_SETTLEMENT_END;
  static final int EXPIRY_EVENT_ID = ExpiryKey.QUOTA_EVENT_ID_END;
  static final int EXPIRY_BUDGET = ExpiryKey.QUOTA_BUDGET_END;

  static final byte CATALOG = 'C';
  static final byte HISTORY = 'H';
  static final byte LEVEL = 'L';
  static final byte RESERVATION = 'R';
  static final byte SETTLED = 'S';
  static final byte EVENT_ID = 'D';
  static final byte TENANT_EVENT_ID = 'T';
  static final byte AGGREGATE = 'A';
  static final byte CONSUMER = 'K';
  static final byte AUDIT = 'U';
  static final byte BY_RESERVATION = 'E';
  static final byte RESERVATION_KEY = 'I';
  static final byte KEY_OF_RESERVATION = 'J';
  static final byte BUDGET = 'B';
  static final byte BUDGET_TALLY = 'O';
  static final byte[] META = {'M'};
  static final byte[] RETENTION = {'F'};

  private QuotaKeys() {}

  /** The first key of {@code tag}'s range. */
  static byte[] first(byte tag) {
    return new byte[] {tag};
  }

  /** The end (exclusive) of {@code tag}'s range. */
  static byte[] end(byte tag) {
    return new byte[] {(byte) (tag + 1)};
  }

  static byte[] catalog(String scope, String resource) {
    return key(CATALOG).str(scope).str(resource).toByteArray();
  }

  static byte[] history(String scope, String resource, long version) {
    return key(HISTORY).str(scope).str(resource).i64(version).toByteArray();
  }

  /** The prefix of every history version of (scope, resource). */
  static byte[] historyOf(String scope, String resource) {
    return key(HISTORY).str(scope).str(resource).toByteArray();
  }

  static byte[] level(String scope, String resource) {
    return key(LEVEL).str(scope).str(resource).toByteArray();
  }

  static byte[] reservation(long id) {
    return key(RESERVATION).i64(id).toByteArray();
  }

  static byte[] budgetTally(String scope, String resource) {
    return key(BUDGET_TALLY).str(scope).str(resource).toByteArray();
  }

  /** {scope, resource} of a budget tally key. */
  static String[] readBudgetTally(byte[] key) {
    ByteReader k = reader(key);
    k.u8("tag");
    String[] out = {k.str("scope"), k.str("resource")};
    k.end();
    return out;
  }

  static byte[] budget(long id) {
    return key(BUDGET).i64(id).toByteArray();
  }

  static byte[] settlement(long reservationId) {
    return key(SETTLED).i64(reservationId).toByteArray();
  }

  static byte[] eventId(String eventId) {
    return key(EVENT_ID).str(eventId).toByteArray();
  }

  static byte[] tenantEventId(String tenant, String eventId) {
    return key(TENANT_EVENT_ID).str(tenant).str(eventId).toByteArray();
  }

  static byte[] aggregate(String scope, String resource, long bucket) {
    return key(AGGREGATE).str(scope).str(resource).i64(flip(bucket)).toByteArray();
  }

  /** The prefix of every aggregate of exactly {@code scope}. */
  static byte[] aggregatesOf(String scope) {
    return key(AGGREGATE).str(scope).toByteArray();
  }

  /** The (scope, resource, bucket start) an aggregate key names. */
  record AggregateKey(String scope, String resource, long bucketStartMillis) {}

  static AggregateKey readAggregate(byte[] key) {
    ByteReader k = reader(key);
    k.u8("tag");
    String scope = k.str("scope");
    String resource = k.str("resource");
    long bucket = flip(k.i64("bucket"));
    return new AggregateKey(scope, resource, bucket);
  }

  static byte[] consumer(String consumer) {
    return key(CONSUMER).str(consumer).toByteArray();
  }

  static byte[] audit(long sequence) {
    return key(AUDIT).i64(sequence).toByteArray();
  }

  static byte[] reservationKey(String scope, String idempotencyKey) {
    return key(RESERVATION_KEY).str(scope).str(idempotencyKey).toByteArray();
  }

  static byte[] keyOfReservation(long reservationId) {
    return key(KEY_OF_RESERVATION).i64(reservationId).toByteArray();
  }

  static byte[] byReservation(long reservationId, long sequence) {
    return key(BY_RESERVATION).i64(reservationId).i64(sequence).toByteArray();
  }

  /** The prefix of every usage-event index record of one reservation. */
  static byte[] byReservationOf(long reservationId) {
    return key(BY_RESERVATION).i64(reservationId).toByteArray();
  }

  /** The log sequence a reservation's usage-event index key names. */
  static long sequenceOfByReservation(byte[] key) {
    ByteReader k = reader(key);
    k.u8("tag");
    k.i64("reservationId");
    return k.i64("sequence");
  }

  /** A usage log key (the {@code usage} family holds nothing else). */
  static byte[] sequence(long sequence) {
    return new ByteWriter(8).i64(sequence).toByteArray();
  }

  /** The first key of the usage log. */
  static byte[] logStart() {
    return new byte[0];
  }

  /** A bound above every usage log key (sequences are positive, so their first byte is below). */
  static byte[] logEnd() {
    return new byte[] {(byte) 0xFF};
  }

  static ExpiryKey reservationEnd(long expiresAtMillis, long reservationId) {
    return new ExpiryKey(expiresAtMillis, EXPIRY_RESERVATION, reservationId, 0, 0);
  }

  static ExpiryKey settlementEnd(long forgetAtMillis, long reservationId) {
    return new ExpiryKey(forgetAtMillis, EXPIRY_SETTLEMENT, reservationId, 0, 0);
  }

  static ExpiryKey budgetEnd(long dueAtMillis, long budgetId) {
    return new ExpiryKey(dueAtMillis, EXPIRY_BUDGET, budgetId, 0, 0);
  }

  static ExpiryKey eventIdEnd(long forgetAtMillis, long sequence) {
    return new ExpiryKey(forgetAtMillis, EXPIRY_EVENT_ID, sequence, 0, 0);
  }

  /** The smallest key greater than every key that starts with {@code prefix}. */
  static byte[] after(byte[] prefix) {
    byte[] out = Arrays.copyOf(prefix, prefix.length);
    for (int i = out.length - 1; i >= 0; i--) {
      if (out[i] != (byte) 0xFF) {
        out[i]++;
        return Arrays.copyOf(out, i + 1);
      }
    }
    return new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
  }

  private static ByteWriter key(byte tag) {
    return new ByteWriter(48).u8(tag);
  }

  private static ByteReader reader(byte[] key) {
    return new ByteReader(key, "quota key", m -> new InvariantViolation("corrupt quota key " + m));
  }

  /** Flips the sign bit so that signed times sort as unsigned bytes. */
  private static long flip(long v) {
    return v ^ Long.MIN_VALUE;
  }
}
