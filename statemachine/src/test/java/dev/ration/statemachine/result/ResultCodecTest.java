package dev.ration.statemachine.result;

import dev.ration.wire.Outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ration.wire.lease.LeaseView;
import dev.ration.wire.lease.Limit;
import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pins the stored form of results (idempotency records outlive a binary upgrade). */
class ResultCodecTest {
  static final LeaseView LEASE = new LeaseView(9, "acme", "api", "eu", 2, 11, 300, 10, 310, 12,
      1000, 6000, 6250, Mode.HARD, 0, 5000);
  static final List<Result> EVERY_KIND = List.of(
      new Result.LimitSet(new Limit("acme", "api", 1000, 50, Mode.BEST_EFFORT, 5000, 250, 20,
          Policy.FREE_CAPACITY, 7)),
      new Result.LeaseGranted(LEASE, 4),
      new Result.LeaseRenewed(LEASE),
      new Result.LeaseReturned(9, 3, true),
      new Result.EpochStarted(4, 123456),
      new Result.Ticked(17),
      new Result.Rejected(Outcome.LIMIT_EXHAUSTED, "no", 250, 0),
      new Result.LeasesRenewed(List.of(
          new Result.Renewal(Outcome.SUCCESS, "", 0, 11, LEASE),
          new Result.Renewal(Outcome.VERSION_MISMATCH, "v", 0, 4, null))));

  /** id, tenant, resource, holder, epoch, version, shares, counted, times, mode, E, duration. */
  static final String LEASE_HEX =
      "0000000000000009000461636d650003617069000265750000000000000002000000000000000b000000000000012c000000000000000a0000000000000136000000000000000c00000000000003e80000000000001770000000000000186a0000000000000000000000000000001388";

  static final List<String> GOLDEN = List.of(
      "0101000461636d65000361706900000000000003e8000000000000003201000000000000138800000000000000fa0000000000000014000000000000000007",
      "0102" + LEASE_HEX + "0000000000000004",
      "0103" + LEASE_HEX,
      "01040000000000000009000000000000000301",
      "01050000000000000004000000000001e240",
      "010600000011",
      "01070200026e6f00000000000000fa0000000000000000",
      // u16 count, then each renewal: u8 outcome, str message, i64 retryAfter, i64 version,
      // u8 present + lease.
      "0108" + "0002"
          + "00" + "0000" + "0000000000000000" + "000000000000000b" + "01" + LEASE_HEX
          + "05" + "000176" + "0000000000000000" + "0000000000000004" + "00");

  /** Goal: each result kind encodes to pinned bytes and decodes back equal. */
  @Test
  void goldenBytes() {
    for (int i = 0; i < EVERY_KIND.size(); i++) {
      byte[] bytes = ResultCodec.encode(EVERY_KIND.get(i));
      assertEquals(GOLDEN.get(i), HexFormat.of().formatHex(bytes), "result " + i);
      assertEquals(EVERY_KIND.get(i), ResultCodec.decode(bytes));
    }
  }

  @Test
  void truncatedOrTrailingBytesAreRefused() {
    for (Result r : EVERY_KIND) {
      byte[] bytes = ResultCodec.encode(r);
      for (int n = 0; n < bytes.length; n++) {
        byte[] cut = Arrays.copyOf(bytes, n);
        assertThrows(IllegalArgumentException.class, () -> ResultCodec.decode(cut));
      }
      byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
      assertThrows(IllegalArgumentException.class, () -> ResultCodec.decode(longer));
    }
  }
}
