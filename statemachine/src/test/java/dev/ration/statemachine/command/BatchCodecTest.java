package dev.ration.statemachine.command;

import dev.ration.statemachine.command.LeaseCommand.SetLimit;
import dev.ration.statemachine.command.LeaseCommand.AcquireLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLease;
import dev.ration.statemachine.command.LeaseCommand.RenewLeases;
import dev.ration.statemachine.command.LeaseCommand.ReturnLease;
import dev.ration.statemachine.command.LeaseCommand.NewEpoch;
import dev.ration.wire.lease.Limit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.Mode;
import dev.ration.wire.Policy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pins the log-entry format and checks that bad bytes are refused before allocation. */
class BatchCodecTest {
  static final Batch EVERY_KIND = Batch.of(1_700_000_000_123L, List.of(
      new Proposal(new RequestKey(1, 2, 3), new SetLimit(new Limit("acme", "api", 1000, 50, Mode.BEST_EFFORT,
          5000, 250, 20, Policy.FREE_CAPACITY, 7))),
      new Proposal(new RequestKey(1, 2, 4), new AcquireLease("acme", "api", "eu-west", 300, 10)),
      new Proposal(new RequestKey(1, 2, 5), new RenewLease(9, 11, 310, 12, 290, 5, 3)),
      new Proposal(new RequestKey(-1, Long.MIN_VALUE, 6), new ReturnLease(9, 12, 4, false)),
      new Proposal(RequestKey.NONE, new NewEpoch("n1é")),
      new Proposal(RequestKey.NONE, new Tick(1000))));

  static final String GOLDEN =
      "010000018bcfe5687b00000006"
          // SetLimit under key (1, 2, 3)
          + "000000000000000100000000000000020000000000000003" + "01"
          + "000461636d65" + "0003617069" + "00000000000003e8" + "0000000000000032" + "01"
          + "0000000000001388" + "00000000000000fa" + "0000000000000014" + "00" + "0000000000000007"
          // AcquireLease
          + "000000000000000100000000000000020000000000000004" + "02"
          + "000461636d65" + "0003617069" + "000765752d77657374" + "000000000000012c"
          + "000000000000000a"
          // RenewLease
          + "000000000000000100000000000000020000000000000005" + "03"
          + "0000000000000009" + "000000000000000b" + "0000000000000136" + "000000000000000c"
          + "0000000000000122" + "0000000000000005" + "0000000000000003"
          // ReturnLease under key (-1, MIN, 6)
          + "ffffffffffffffff80000000000000000000000000000006" + "04"
          + "0000000000000009" + "000000000000000c" + "0000000000000004"
          // NewEpoch("n1\u00e9") under NONE
          + "000000000000000000000000000000000000000000000000" + "05" + "00046e31c3a9"
          // Tick(1000)
          + "000000000000000000000000000000000000000000000000" + "06" + "000003e8";

  /** Goal: the encoding of one batch with every command kind never changes by accident. */
  @Test
  void goldenBytes() {
    byte[] bytes = BatchCodec.encode(EVERY_KIND);
    assertEquals(GOLDEN, HexFormat.of().formatHex(bytes));
    assertEquals(EVERY_KIND, BatchCodec.decode(HexFormat.of().parseHex(GOLDEN)));
  }

  /**
   * Goal: proposals encoded one by one (as the proposer does at submit) and joined into an
   * entry give the golden bytes, so encoding each command once changes nothing in the log.
   */
  @Test
  void proposalsEncodedOnceJoinToTheSameEntry() {
    List<byte[]> proposals = new ArrayList<>();
    for (Proposal proposal : EVERY_KIND.proposals()) {
      proposals.add(BatchCodec.encodeProposal(proposal.key(), proposal.command()));
    }
    assertEquals(GOLDEN, HexFormat.of().formatHex(
        BatchCodec.encodeEncoded(EVERY_KIND.timeMillis(), proposals)));
    assertEquals("010000018bcfe5687b00000000",
        HexFormat.of().formatHex(BatchCodec.encodeEncoded(EVERY_KIND.timeMillis(), List.of())));
  }

  /** Goal: a batch of renewals is a u16 count of renewals, each as RenewLease stores it. */
  @Test
  void renewLeasesGoldenBytes() {
    Batch batch = Batch.of(1_700_000_000_123L, List.of(new Proposal(new RequestKey(1, 2, 7),
        new RenewLeases(List.of(new RenewLease(9, 11, 310, 12, 290, 5, 3),
            new RenewLease(10, 1, 0, 0, 0, 0, 0))))));
    String golden = "010000018bcfe5687b00000001"
        + "000000000000000100000000000000020000000000000007" + "07" + "0002"
        + "0000000000000009" + "000000000000000b" + "0000000000000136" + "000000000000000c"
        + "0000000000000122" + "0000000000000005" + "0000000000000003"
        + "000000000000000a" + "0000000000000001" + "0000000000000000" + "0000000000000000"
        + "0000000000000000" + "0000000000000000" + "0000000000000000";
    assertEquals(golden, HexFormat.of().formatHex(BatchCodec.encode(batch)));
    assertEquals(batch, BatchCodec.decode(HexFormat.of().parseHex(golden)));
  }

  /** Goal: the slot commands (codes 8-10) never change by accident. */
  @Test
  void slotCommandsGoldenBytes() {
    Batch batch = Batch.of(1_700_000_000_123L, List.of(
        new Proposal(new RequestKey(1, 2, 8), new LeaseCommand.SetLimitConcurrency(
            new Limit("acme", "api", 0, 0, Mode.HARD, 5000, 250, 0, Policy.FAIR_SHARE, 7), 12)),
        new Proposal(new RequestKey(1, 2, 9), new LeaseCommand.AcquireSlots("acme", "api", "p", 4)),
        new Proposal(new RequestKey(1, 2, 10), new LeaseCommand.RenewSlots(List.of(
            new LeaseCommand.SlotRenewal(9, 11, 3, 2, -1))))));
    String golden = "010000018bcfe5687b00000003"
        + "000000000000000100000000000000020000000000000008" + "08"
        + "000461636d65" + "0003617069" + "0000000000000000" + "0000000000000000" + "00"
        + "0000000000001388" + "00000000000000fa" + "0000000000000000" + "01" + "0000000000000007"
        + "000000000000000c"
        + "000000000000000100000000000000020000000000000009" + "09"
        + "000461636d65" + "0003617069" + "000170" + "0000000000000004"
        + "00000000000000010000000000000002000000000000000a" + "0a" + "0001"
        + "0000000000000009" + "000000000000000b" + "0000000000000003" + "0000000000000002"
        + "ffffffffffffffff";
    assertEquals(golden, HexFormat.of().formatHex(BatchCodec.encode(batch)));
    assertEquals(batch, BatchCodec.decode(HexFormat.of().parseHex(golden)));
  }

  /**
   * Goal: a fenced return (11) and a closed Authorized (65) carry the fields of their older codes
   * (4, 64) byte for byte under a new code, and decode back to the variant they were.
   */
  @Test
  void fencedReturnAndClosedAuthorizedGoldenBytes() {
    LeaseCommand.ReturnLease fenced = new LeaseCommand.ReturnLease(9, 12, 4);
    Batch batch = Batch.of(1_700_000_000_123L, List.of(
        new Proposal(new RequestKey(1, 2, 11), fenced),
        new Proposal(new RequestKey(1, 2, 12), SecurityCommand.Authorized.of("al", List.of("a"),
            new LeaseCommand.ReturnLease(9, 12, 4, false)))));
    String golden = "010000018bcfe5687b00000002"
        + "00000000000000010000000000000002000000000000000b" + "0b"
        + "0000000000000009" + "000000000000000c" + "0000000000000004"
        + "00000000000000010000000000000002000000000000000c" + "41"
        + "0002616c" + "000161" + "00000019" + "04"
        + "0000000000000009" + "000000000000000c" + "0000000000000004";
    assertEquals(golden, HexFormat.of().formatHex(BatchCodec.encode(batch)));
    assertEquals(batch, BatchCodec.decode(HexFormat.of().parseHex(golden)));
    assertTrue(fenced.fenced());
  }

  /** Goal: the header is what the format comment says: version, time, count. */
  @Test
  void header() {
    byte[] bytes = BatchCodec.encode(EVERY_KIND);
    assertEquals("01" + "0000018bcfe5687b" + "00000006",
        HexFormat.of().formatHex(Arrays.copyOf(bytes, 13)));
  }

  @Test
  void emptyBatchRoundTrips() {
    Batch empty = Batch.of(-5, List.of());
    assertEquals(empty, BatchCodec.decode(BatchCodec.encode(empty)));
  }

  /** Goal: every truncation of a valid batch is refused with a BatchFormatException. */
  @Test
  void everyTruncationIsRefused() {
    byte[] bytes = BatchCodec.encode(EVERY_KIND);
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      assertThrows(BatchFormatException.class, () -> BatchCodec.decode(cut), "length " + length);
    }
  }

  @Test
  void hugeDeclaredCountIsRefusedBeforeAllocating() {
    byte[] bytes = HexFormat.of().parseHex("01" + "0000000000000001" + "ffffffff");
    BatchFormatException e = assertThrows(BatchFormatException.class, () -> BatchCodec.decode(bytes));
    assertTrue(e.getMessage().contains("4294967295"), e.getMessage());
  }

  @Test
  void badVersionCodeUtf8AndTrailingBytesAreRefused() {
    byte[] good = BatchCodec.encode(Batch.of(1, List.of(new Proposal(RequestKey.NONE, new NewEpoch("ab")))));
    byte[] version = good.clone();
    version[0] = 2;
    assertTrue(assertThrows(BatchFormatException.class, () -> BatchCodec.decode(version))
        .getMessage().contains("format version 2"));
    byte[] code = good.clone();
    code[13 + 24] = 99;
    assertTrue(assertThrows(BatchFormatException.class, () -> BatchCodec.decode(code))
        .getMessage().contains("unknown command code 99"));
    byte[] utf8 = good.clone();
    utf8[utf8.length - 1] = (byte) 0xff;
    assertThrows(BatchFormatException.class, () -> BatchCodec.decode(utf8));
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    assertTrue(assertThrows(BatchFormatException.class, () -> BatchCodec.decode(trailing))
        .getMessage().contains("trailing"));
    byte[] longString = good.clone();
    longString[13 + 24 + 1] = (byte) 0x7f; // declared length far past the end
    assertThrows(BatchFormatException.class, () -> BatchCodec.decode(longString));
  }

  @Test
  void unknownModeIsRefused() {
    List<Proposal> one = new ArrayList<>(EVERY_KIND.proposals().subList(0, 1));
    byte[] bytes = BatchCodec.encode(Batch.of(0, one));
    // header 13 + key 24 + code 1 + "acme" 6 + "api" 5 + rate 8 + burst 8 = mode byte
    int modeOffset = 13 + 24 + 1 + 6 + 5 + 8 + 8;
    assertEquals(1, bytes[modeOffset]);
    bytes[modeOffset] = 9;
    assertTrue(assertThrows(BatchFormatException.class, () -> BatchCodec.decode(bytes))
        .getMessage().contains("unknown mode code 9"));
  }

  @Test
  void unpairedSurrogateIsRefusedAtEncode() {
    Batch bad = Batch.of(0, List.of(new Proposal(RequestKey.NONE, new NewEpoch("x\ud800"))));
    assertThrows(IllegalArgumentException.class, () -> BatchCodec.encode(bad));
    Batch lowAlone = Batch.of(0, List.of(new Proposal(RequestKey.NONE, new NewEpoch("\udc00x"))));
    assertThrows(IllegalArgumentException.class, () -> BatchCodec.encode(lowAlone));
  }

  @Test
  void namesEncodeAsUtf8OnBothPaths() {
    // ASCII and other BMP text take String.getBytes; a surrogate pair takes the strict encoder.
    for (String name : List.of("node-1", "région-é", "\uD83D\uDE00 holder")) {
      assertArrayEquals(name.getBytes(java.nio.charset.StandardCharsets.UTF_8),
          dev.ration.wire.ByteWriter.utf8(name), name);
      Batch batch = Batch.of(7, List.of(new Proposal(RequestKey.NONE, new NewEpoch(name))));
      assertEquals(batch, BatchCodec.decode(BatchCodec.encode(batch)), name);
    }
  }
}
