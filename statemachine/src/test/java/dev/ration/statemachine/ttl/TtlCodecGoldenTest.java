package dev.ration.statemachine.ttl;

import dev.ration.wire.Bytes;

import dev.ration.wire.ttl.NamespaceView;

import dev.ration.wire.CapacityPolicy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.BatchFormatException;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.TtlCommand.CompareAndSetEntry;
import dev.ration.statemachine.command.TtlCommand;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.TtlCommand.PutEntry;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.TtlCommand.SetNamespace;
import dev.ration.wire.Outcome;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Goal: pin the log format of the TTL commands (BatchCodec, codes 20–24) and the stored form of
 * their results (ResultCodec, codes 20–22) byte for byte — replicas and idempotency records
 * depend on them. A change here is a format change: append codes, never edit a golden string.
 */
class TtlCodecGoldenTest {
  private static final HexFormat HEX = HexFormat.of();
  /** Batch header (format 1, time 5, one proposal) and RequestKey.NONE. */
  private static final String HEADER = "01" + "0000000000000005" + "00000001" + "00".repeat(24);

  private static void command(Command c, String hex) {
    Batch batch = Batch.of(5, List.of(new Proposal(RequestKey.NONE, c)));
    assertEquals(HEADER + hex, HEX.formatHex(BatchCodec.encode(batch)), "encoding of " + c);
    assertEquals(batch, BatchCodec.decode(HEX.parseHex(HEADER + hex)));
  }

  private static void result(Result r, String hex) {
    assertEquals(hex, HEX.formatHex(ResultCodec.encode(r)), "encoding of " + r);
    assertEquals(r, ResultCodec.decode(HEX.parseHex(hex)));
  }

  @Test
  void commands() {
    command(new PutEntry("n", "k", new Bytes(new byte[] {1, 2}), 1000),
        "14" + "00016e" + "00016b" + "00000002" + "0102" + "00000000000003e8");
    command(new PutEntry("n", "k", Bytes.EMPTY, PutEntry.NO_EXPIRY),
        "14" + "00016e" + "00016b" + "00000000" + "ffffffffffffffff");
    command(new CompareAndSetEntry("n", "k", 7, new Bytes(new byte[] {(byte) 0xff}), 0),
        "15" + "00016e" + "00016b" + "0000000000000007" + "00000001" + "ff" + "0000000000000000");
    command(new RefreshEntry("n", "k", 500, 3),
        "16" + "00016e" + "00016b" + "00000000000001f4" + "0000000000000003");
    command(new DeleteEntry("n", "k", 0), "17" + "00016e" + "00016b" + "0000000000000000");
    command(new TtlCommand.UpdateEntry("n", "k", new Bytes(new byte[] {3}), 9),
        "19" + "00016e" + "00016b" + "00000001" + "03" + "0000000000000009");
    command(new SetNamespace("n", 10, 4096, CapacityPolicy.EVICT_SOONEST_EXPIRING),
        "18" + "00016e" + "000000000000000a" + "0000000000001000" + "02");
  }

  @Test
  void results() {
    result(new Result.EntryWritten("n", "k", 9, 2000),
        "01" + "14" + "00016e" + "00016b" + "0000000000000009" + "00000000000007d0");
    result(new Result.EntryDeleted("n", "k", 9, true),
        "01" + "15" + "00016e" + "00016b" + "0000000000000009" + "01");
    result(new Result.NamespaceSet(new NamespaceView("n", 10, 4096, CapacityPolicy.REJECT, 2, 30, 3, 4)),
        "01" + "16" + "00016e" + "000000000000000a" + "0000000000001000" + "01" + "0000000000000002"
            + "000000000000001e" + "0000000000000003" + "0000000000000004");
    result(new Result.Rejected(Outcome.NAMESPACE_FULL, "x", 0, 0),
        "01" + "07" + "15" + "000178" + "0000000000000000" + "0000000000000000");
    result(new Result.Rejected(Outcome.ENTRY_UNKNOWN, "", 0, 0),
        "01" + "07" + "14" + "0000" + "0000000000000000" + "0000000000000000");
  }

  @Test
  void hostileValueLengthIsRefused() {
    // a value declaring 2^31-1 bytes with two bytes left
    assertThrows(BatchFormatException.class, () -> BatchCodec.decode(HEX.parseHex(
        HEADER + "14" + "00016e" + "00016b" + "7fffffff" + "0102")));
    // an unknown capacity policy code
    assertThrows(BatchFormatException.class, () -> BatchCodec.decode(HEX.parseHex(
        HEADER + "18" + "00016e" + "000000000000000a" + "0000000000001000" + "09")));
  }
}
