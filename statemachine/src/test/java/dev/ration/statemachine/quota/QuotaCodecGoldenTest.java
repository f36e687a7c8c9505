package dev.ration.statemachine.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ration.statemachine.command.QuotaCommand.AckUsage;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.BatchCodec;
import dev.ration.statemachine.command.BatchFormatException;
import dev.ration.statemachine.command.QuotaCommand.CancelReservation;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.QuotaCommand.CompleteReservation;
import dev.ration.statemachine.command.QuotaCommand.GrantBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudget;
import dev.ration.statemachine.command.QuotaCommand.ReportBudgets;
import dev.ration.statemachine.command.QuotaCommand.ReturnBudget;
import dev.ration.statemachine.command.QuotaCommand.IngestUsage;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.QuotaCommand.Reconcile;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.command.QuotaCommand.Reserve;
import dev.ration.statemachine.command.QuotaCommand.SetQuota;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.statemachine.result.ResultCodec;
import dev.ration.wire.quota.Drift;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import dev.ration.wire.Overage;
import dev.ration.wire.QuotaKind;
import dev.ration.wire.Window;
import dev.ration.wire.quota.QuotaSpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Goal: pin the log format of the quota commands (BatchCodec, codes 40–52) and the stored form
 * of their results (ResultCodec, codes 40–50) byte for byte, as the TTL golden test does for
 * its family. A change here is a format change: append codes, never edit a golden string.
 */
class QuotaCodecGoldenTest {
  private static final HexFormat HEX = HexFormat.of();
  /** Batch header (format 1, time 5, one proposal) and RequestKey.NONE. */
  private static final String HEADER = "01" + "0000000000000005" + "00000001" + "00".repeat(24);

  private static final QuotaSpec SPEC = new QuotaSpec("org/t", "tok", QuotaKind.RATE,
      Window.MINUTE, 1000, "tokens", 800, Overage.ALLOW, 50, 0, 3, "ops", 99, "why");

  private static void command(Command c, String hex) {
    Batch batch = Batch.of(5, List.of(new Proposal(RequestKey.NONE, c)));
    assertEquals(HEADER + hex, HEX.formatHex(BatchCodec.encode(batch)), "encoding of " + c);
    assertEquals(batch, BatchCodec.decode(HEX.parseHex(HEADER + hex)));
    byte[] bytes = HEX.parseHex(HEADER + hex);
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = Arrays.copyOf(bytes, n);
      assertThrows(BatchFormatException.class, () -> BatchCodec.decode(cut), "cut at " + n);
    }
  }

  private static void result(QuotaResult r, String hex) {
    Result wrapped = new Result.Quota(r);
    assertEquals(hex, HEX.formatHex(ResultCodec.encode(wrapped)), "encoding of " + r);
    assertEquals(wrapped, ResultCodec.decode(HEX.parseHex(hex)));
    byte[] bytes = HEX.parseHex(hex);
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = Arrays.copyOf(bytes, n);
      assertThrows(IllegalArgumentException.class, () -> ResultCodec.decode(cut), "cut at " + n);
    }
  }

  @Test
  void commands() {
    command(new SetQuota(new QuotaSpec("org/t", "tok", QuotaKind.RATE, Window.MINUTE, 1000, "tokens", 800,
            Overage.ALLOW, 50, 0, 3, "ops", 0, "why")),
        "28" + "00056f72672f74" + "0003746f6b" + "01" + "02" + "00000000000003e8"
            + "0006746f6b656e73" + "0000000000000320" + "02" + "0000000000000032"
            + "0000000000000000" + "0000000000000003" + "00036f7073" + "0003776879");
    command(new Reserve("org/t", List.of(new Reserve.Item("tok", 10), new Reserve.Item("req", 1)),
            4, 30000),
        "29" + "00056f72672f74" + "0000000000000004" + "0000000000007530" + "0002"
            + "0003746f6b" + "000000000000000a" + "0003726571" + "0000000000000001");
    command(new CompleteReservation(7, List.of(9L, 1L)),
        "2a" + "0000000000000007" + "0002" + "0000000000000009" + "0000000000000001");
    command(new CancelReservation(7), "2b" + "0000000000000007");
    command(new IngestUsage("e1", 1234, "org/t", "tok", 5, "tokens", 0, false),
        "2c" + "00026531" + "00000000000004d2" + "00056f72672f74" + "0003746f6b"
            + "0000000000000005" + "0006746f6b656e73" + "0000000000000000");
    command(new IngestUsage("e1", 1234, "org/t", "tok", 5, "tokens", 0),
        "30" + "00026531" + "00000000000004d2" + "00056f72672f74" + "0003746f6b"
            + "0000000000000005" + "0006746f6b656e73" + "0000000000000000");
    command(new AckUsage("billing", 12), "2d" + "000762696c6c696e67" + "000000000000000c");
    command(new Reconcile("org", "tok", 0, 3600000, "ops", "nightly"),
        "2e" + "00036f7267" + "0003746f6b" + "0000000000000000" + "000000000036ee80"
            + "00036f7073" + "00076e696768746c79");
  }

  @Test
  void budgetCommandsAndResults() {
    command(new GrantBudget("h", "org/t", "tok", 10, 30000),
        "31" + "000168" + "00056f72672f74" + "0003746f6b" + "000000000000000a" + "0000000000007530");
    command(new ReportBudget(7, 3, 1, 8, 30000),
        "32" + "0000000000000007" + "0000000000000003" + "0000000000000001" + "0000000000000008"
            + "0000000000007530");
    command(new ReturnBudget(7, 3, 2),
        "33" + "0000000000000007" + "0000000000000003" + "0000000000000002");
    command(new dev.ration.statemachine.command.QuotaCommand.ReserveBatch(List.of(
            new dev.ration.statemachine.command.QuotaCommand.Reserve("o", List.of(
                new dev.ration.statemachine.command.QuotaCommand.Reserve.Item("s", 2)), 0, 1000,
                "k"))),
        "35" + "0001" + "00016f" + "0000000000000000" + "00000000000003e8" + "0001" + "000173"
            + "0000000000000002" + "00016b");
    command(new ReportBudgets(List.of(new ReportBudget(7, 3, 1, 8, 30000))),
        "34" + "0001" + "0000000000000007" + "0000000000000003" + "0000000000000001"
            + "0000000000000008" + "0000000000007530");
    QuotaResult.BudgetReported reported =
        new QuotaResult.BudgetReported(7, 8, 3, 35000, 60000, false, true, 0, 5000);
    String reportedHex = "0000000000000007" + "0000000000000008" + "0000000000000003"
        + "00000000000088b8" + "000000000000ea60" + "00" + "01" + "0000000000000000"
        + "0000000000001388";
    result(new QuotaResult.BudgetGranted(7, "org/t", "tok", 10, 35000, 60000, 3, 5000, 4),
        "01" + "2f" + "0000000000000007" + "00056f72672f74" + "0003746f6b" + "000000000000000a"
            + "00000000000088b8" + "000000000000ea60" + "0000000000000003" + "0000000000001388"
            + "0000000000000004");
    result(reported, "01" + "30" + reportedHex);
    result(new QuotaResult.ReservedBatch(List.of(
            new QuotaResult.ReserveAnswer(null, new QuotaResult.QuotaRejected(
                Outcome.LIMIT_EXHAUSTED, "m", "o", "s", 5, 0)))),
        "01" + "33" + "0001" + "00" + "01" + "02" + "00016d" + "00016f" + "000173"
            + "0000000000000005" + "0000000000000000");
    result(new QuotaResult.BudgetReturned(7, 3, 5, 21),
        "01" + "31" + "0000000000000007" + "0000000000000003" + "0000000000000005"
            + "0000000000000015");
    result(new QuotaResult.BudgetsReported(List.of(
            new QuotaResult.BudgetReport(Outcome.SUCCESS, "", reported),
            new QuotaResult.BudgetReport(Outcome.BUDGET_UNKNOWN, "m", null))),
        "01" + "32" + "0002" + "00" + "0000" + "01" + reportedHex + "29" + "00016d" + "00");
  }

  @Test
  void results() {
    result(new QuotaResult.QuotaSet(SPEC),
        "01" + "28" + "00056f72672f74" + "0003746f6b" + "01" + "02" + "00000000000003e8"
            + "0006746f6b656e73" + "0000000000000320" + "02" + "0000000000000032"
            + "0000000000000000" + "0000000000000003" + "00036f7073" + "0000000000000063"
            + "0003776879");
    result(new QuotaResult.Reserved(7, "org/t", 40000, 3,
            List.of(new QuotaResult.Reserved.Item("tok", 10, 2, "tokens"))),
        "01" + "29" + "0000000000000007" + "00056f72672f74" + "0000000000009c40"
            + "0000000000000003" + "0001" + "0003746f6b" + "000000000000000a"
            + "0000000000000002" + "0006746f6b656e73");
    result(new QuotaResult.ReservationSettled(7, EventType.COMPLETED, List.of(9L),
            List.of(21L, 22L), false),
        "01" + "2a" + "0000000000000007" + "01" + "0001" + "0000000000000009" + "0002"
            + "0000000000000015" + "0000000000000016" + "00");
    result(new QuotaResult.UsageIngested(21, true), "01" + "2b" + "0000000000000015" + "01");
    result(new QuotaResult.UsageAcked("billing", 12),
        "01" + "2c" + "000762696c6c696e67" + "000000000000000c");
    result(new QuotaResult.Reconciled(
            List.of(new Drift(Drift.RESERVATION, "org/t", "tok", 7, 0, 9, 8, 23))),
        "01" + "2d" + "0001" + "000b7265736572766174696f6e" + "00056f72672f74" + "0003746f6b"
            + "0000000000000007" + "0000000000000000" + "0000000000000009"
            + "0000000000000008" + "0000000000000017");
    result(new QuotaResult.QuotaRejected(Outcome.STALE_CONFIG, "stale", "org", "tok", 0, 4),
        "01" + "2e" + "06" + "00057374616c65" + "00036f7267" + "0003746f6b"
            + "0000000000000000" + "0000000000000004");
  }

  @Test
  void badEnumerationsAndCountsAreRefused() {
    // SetQuota with kind code 9
    assertThrows(BatchFormatException.class, () -> BatchCodec.decode(HEX.parseHex(HEADER
        + "28" + "00056f72672f74" + "0003746f6b" + "09" + "02" + "00000000000003e8"
        + "0006746f6b656e73" + "0000000000000320" + "02" + "0000000000000032"
        + "0000000000000000" + "0000000000000003" + "00036f7073" + "0003776879")));
    // Reserve declaring 65535 items with none present
    assertThrows(BatchFormatException.class, () -> BatchCodec.decode(HEX.parseHex(HEADER
        + "29" + "00056f72672f74" + "0000000000000004" + "0000000000007530" + "ffff")));
    // an unknown quota command and result code
    assertThrows(BatchFormatException.class,
        () -> BatchCodec.decode(HEX.parseHex(HEADER + "3b")));
    assertThrows(IllegalArgumentException.class, () -> ResultCodec.decode(HEX.parseHex("013b")));
    // a settlement whose event type is 0
    assertThrows(IllegalArgumentException.class, () -> ResultCodec.decode(HEX.parseHex(
        "01" + "2a" + "0000000000000007" + "00" + "0000" + "0000" + "00")));
  }
}
