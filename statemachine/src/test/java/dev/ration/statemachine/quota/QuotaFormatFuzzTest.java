package dev.ration.statemachine.quota;

import dev.ration.wire.quota.AuditRecord;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.quota.UsageEvent;

import dev.ration.statemachine.query.LevelUsage;
import dev.ration.statemachine.query.Reservation;

import dev.ration.wire.quota.QuotaSpec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.ValueGenerator;
import dev.ration.wire.ByteReader;
import dev.ration.wire.ByteWriter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Goal: any bytes in a stored quota value (catalog specs and their history, level usage,
 * reservations, settlements, usage events, audit records, drifts) either decode or are refused
 * with {@link StoreException}; no other exception escapes, and no list is allocated for a count
 * the bytes cannot hold. What decodes is canonical: encoding it again gives the same bytes as
 * those it was read from.
 *
 * <p>The quota readers stop at the end of their record and leave any bytes after it unread
 * (their callers do not check for trailing bytes), so the comparison is against the bytes the
 * reader consumed.
 *
 * <p>Input: byte 0 picks the record, the rest is the stored value (format byte first). Corpus:
 * {@code QuotaFormatFuzzTestInputs/decode/}, real encodings of each record.
 */
public class QuotaFormatFuzzTest {
  private record Format<T>(Class<T> type, Function<ByteReader, T> read, BiConsumer<ByteWriter, T> write) {}

  private static final Format<?>[] FORMATS = {
      new Format<>(QuotaSpec.class, QuotaFormat::readSpec, QuotaFormat::writeSpec),
      new Format<>(LevelUsage.class, QuotaFormat::readUsage, QuotaFormat::writeUsage),
      new Format<>(Reservation.class, QuotaFormat::readReservation, QuotaFormat::writeReservation),
      new Format<>(Settlement.class, QuotaFormat::readSettlement, QuotaFormat::writeSettlement),
      new Format<>(UsageEvent.class, QuotaFormat::readEvent, QuotaFormat::writeEvent),
      new Format<>(AuditRecord.class, QuotaFormat::readAudit, QuotaFormat::writeAudit),
      new Format<>(Drift.class, Drift.SHAPE::read, Drift.SHAPE::write),
  };

  @FuzzTest(maxDuration = "10s")
  void decode(byte[] input) {
    if (input.length < 1) {
      return;
    }
    byte[] value = Arrays.copyOfRange(input, 1, input.length);
    try {
      check(FORMATS[(input[0] & 0xFF) % FORMATS.length], value);
    } catch (StoreException e) {
      // The declared failure: a corrupt record, named as such.
    }
  }

  private static <T> void check(Format<T> format, byte[] value) {
    ByteReader in = QuotaFormat.storedReader(value, format.type().getSimpleName());
    T decoded = format.read().apply(in);
    byte[] consumed = Arrays.copyOf(value, value.length - in.remaining());
    byte[] again = QuotaFormat.stored(out -> format.write().accept(out, decoded));
    assertArrayEquals(consumed, again, format.type().getSimpleName() + " is not canonical");
    assertEquals(decoded, format.read().apply(QuotaFormat.storedReader(again, "again")));
  }

  /** Seed inputs: real encodings of every record. */
  public static Map<String, byte[]> seeds() {
    Map<String, byte[]> seeds = new LinkedHashMap<>();
    ValueGenerator generate = ValueGenerator.seeded(31);
    for (int f = 0; f < FORMATS.length; f++) {
      for (int i = 0; i < 3; i++) {
        seeds.put(FORMATS[f].type().getSimpleName() + "-" + i, seed(f, FORMATS[f], generate));
      }
    }
    return seeds;
  }

  private static <T> byte[] seed(int index, Format<T> format, ValueGenerator generate) {
    T value = generate.of(format.type());
    if (value instanceof Settlement s && s.resources().size() != s.quantities().size()) {
      // A settlement pairs each resource with its quantity.
      value = format.type().cast(new Settlement(s.reservationId(), s.scope(), s.how(),
          s.settledAtMillis(), s.resources(), s.resources().stream().map(r -> 1L).toList()));
    }
    T v = value;
    byte[] stored = QuotaFormat.stored(out -> format.write().accept(out, v));
    byte[] input = new byte[1 + stored.length];
    input[0] = (byte) index;
    System.arraycopy(stored, 0, input, 1, stored.length);
    return input;
  }
}
