package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ration.protocol.QuotaResponse;
import dev.ration.wire.EventType;
import dev.ration.wire.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Goal: settle replies print as JSON, lists of numbers included, refused ones without a type. */
class FieldsJsonTest {

  @Test
  void listsOfNumbersAreJsonArrays() {
    String json = new Fields().put("quantities", List.of(3L, 4L)).put("ids", List.of()).toJson();
    assertEquals("{\"quantities\":[3,4],\"ids\":[]}", json);
  }

  @Test
  void aSettleReplyPrintsWithAndWithoutItsEventType() {
    String done = QuotaViews.settleReply(new QuotaResponse.SettleReply(Outcome.SUCCESS, "", 7,
        EventType.COMPLETED, List.of(5L), List.of(11L), false)).toJson();
    assertEquals("{\"outcome\":\"SUCCESS\",\"message\":\"\",\"reservationId\":7,\"how\":\"completed\","
        + "\"quantities\":[5],\"eventSequences\":[11],\"alreadySettled\":false}", done);
    String refused = QuotaViews.settleReply(new QuotaResponse.SettleReply(
        Outcome.RESERVATION_UNKNOWN, "no reservation 8", 8, null, List.of(), List.of(), false))
        .toJson();
    assertEquals("{\"outcome\":\"RESERVATION_UNKNOWN\",\"message\":\"no reservation 8\","
        + "\"reservationId\":8,\"how\":null,\"quantities\":[],\"eventSequences\":[],"
        + "\"alreadySettled\":false}", refused);
  }
}
