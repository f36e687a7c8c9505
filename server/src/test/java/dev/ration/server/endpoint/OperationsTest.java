package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.protocol.Kind;
import dev.ration.protocol.QuotaRequest;
import dev.ration.protocol.Request;
import dev.ration.protocol.TtlRequest;
import dev.ration.server.endpoint.Translation.Action;
import dev.ration.server.endpoint.Translation.Invalid;
import dev.ration.server.endpoint.Translation.Mutation;
import dev.ration.statemachine.command.QuotaCommand;
import dev.ration.statemachine.command.TtlCommand.RefreshEntry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperationsTest {
  private final Translation translation = new Translation(128);

  @Test
  void mutationsWithTheirCommandsComponentsNeedNoHandler() {
    // Building the translation already refused to start if any kind had no handler.
    Map<Kind, Class<?>> derived = Map.copyOf(translation.derivedKinds());
    assertEquals(Map.of(
            Kind.TTL_REFRESH, RefreshEntry.class,
            Kind.RESERVATION_COMPLETE, QuotaCommand.CompleteReservation.class,
            Kind.RESERVATION_CANCEL, QuotaCommand.CancelReservation.class,
            Kind.USAGE_ACK, QuotaCommand.AckUsage.class),
        derived, "mutations served by a copy into their same-component command");
  }

  @Test
  void derivedKindCopiesTheRequestIntoItsCommand() {
    Action a = translation.toAction(new Request.Ttl(new TtlRequest.Refresh("ns", "k", 500, 3)));
    assertEquals(new RefreshEntry("ns", "k", 500, 3), assertInstanceOf(Mutation.class, a).command());
    Action c = translation.toAction(new Request.Quota(new QuotaRequest.CompleteReservation(7,
        List.of(1L, 2L))));
    assertEquals(new QuotaCommand.CompleteReservation(7, List.of(1L, 2L)),
        assertInstanceOf(Mutation.class, c).command());
  }

  @Test
  void explicitHandlersKeepTheirCourtesyChecks() {
    Action a = translation.toAction(new Request.Ttl(new TtlRequest.Delete("", "k", 0)));
    assertEquals("namespace is empty", assertInstanceOf(Invalid.class, a).message());
    Action h = translation.toAction(new Request.Hello(1, 0, 0, new byte[0]));
    assertInstanceOf(Invalid.class, h);
  }

  @Test
  void aTableWithoutAHandlerForAReadRefusesToStartNamingTheKind() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> new Operations().complete());
    assertTrue(e.getMessage().contains("GET_LIMIT"), e.getMessage());
    assertTrue(e.getMessage().contains("TTL_GET"), e.getMessage());
    // Derived mutations are not reported missing.
    assertTrue(!e.getMessage().contains("TTL_REFRESH"), e.getMessage());
  }

  @Test
  void aKindRegisteredTwiceOrWithTheWrongTypeIsRefused() {
    Operations ops = new Operations().on(Kind.LIST_LIMITS, Request.ListLimits.class,
        r -> new Invalid("x"));
    IllegalStateException twice = assertThrows(IllegalStateException.class,
        () -> ops.on(Kind.LIST_LIMITS, Request.ListLimits.class, r -> new Invalid("y")));
    assertEquals("two handlers for LIST_LIMITS", twice.getMessage());
    IllegalStateException wrong = assertThrows(IllegalStateException.class,
        () -> new Operations().on(Kind.GET_LIMIT, Request.ListLimits.class, r -> new Invalid("z")));
    assertTrue(wrong.getMessage().startsWith("GET_LIMIT carries"), wrong.getMessage());
  }
}
