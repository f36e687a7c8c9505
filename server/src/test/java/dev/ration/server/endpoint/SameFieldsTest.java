package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.TtlRequest;
import dev.ration.statemachine.command.TtlCommand.DeleteEntry;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import org.junit.jupiter.api.Test;

class SameFieldsTest {
  /** Goal: a refresh request becomes the refresh command with every field in its place. */
  @Test
  void copiesEveryComponentInOrder() {
    assertEquals(new RefreshEntry("n", "k", 500, 3),
        SameFields.copy(new TtlRequest.Refresh("n", "k", 500, 3), RefreshEntry.class));
  }

  /** Goal: records that do not carry the same fields are refused, naming the difference. */
  @Test
  void refusesRecordsWhoseFieldsDiffer() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> SameFields.copy(new TtlRequest.Refresh("n", "k", 500, 3), DeleteEntry.class));
    assertTrue(e.getMessage().contains("components"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> SameFields.copy(new TtlRequest.Delete("n", "k", 3), RefreshEntry.class));
    assertTrue(e.getMessage().contains("components"), e.getMessage());
  }

  public record Names(java.util.List<String> values) {}

  public record Numbers(java.util.List<Long> values) {}

  /** Goal: a list of one element type is never copied into a list of another (heap pollution). */
  @Test
  void refusesListsOfAnotherElementType() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> SameFields.copy(new Names(java.util.List.of("a")), Numbers.class));
    assertTrue(e.getMessage().contains("java.util.List<java.lang.String> values"), e.getMessage());
    assertEquals(new Numbers(java.util.List.of(1L)),
        SameFields.copy(new Numbers(java.util.List.of(1L)), Numbers.class));
  }
}
