package dev.ration.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameError;
import dev.ration.protocol.Kind;
import dev.ration.protocol.Response;
import dev.ration.server.consensus.CoordinatorException;
import dev.ration.server.consensus.CoordinatorException.Reason;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How every coordinator failure reaches the wire: one row per reason, each tried proposed and
 * not proposed, wrapped in the futures' exception types and bare. The definite column is what
 * the client concludes from the code, so a changed row changes what clients may retry safely.
 */
class ErrorRepliesTest {
  private static final String LEADER = "10.0.0.2:7000";
  private static final int RETRY_AFTER = 35;

  /** What a reason becomes: its code, whether the leader and the retry-after travel with it. */
  record Row(Reason reason, ErrorCode code, boolean carriesLeader, boolean carriesRetryAfter, boolean definite) {}

  static final List<Row> TABLE = List.of(
      new Row(Reason.NOT_LEADER, ErrorCode.NOT_LEADER, true, true, true),
      new Row(Reason.OVERLOADED, ErrorCode.OVERLOADED, false, true, true),
      new Row(Reason.DEADLINE_EXCEEDED, ErrorCode.DEADLINE_EXCEEDED, false, false, false),
      new Row(Reason.UNAVAILABLE, ErrorCode.UNAVAILABLE, true, true, false),
      new Row(Reason.CANCELLED, ErrorCode.CANCELLED, false, false, true));

  static Stream<Object[]> cases() {
    return TABLE.stream().flatMap(row -> Stream.of(false, true).flatMap(proposed -> {
      CoordinatorException ce = new CoordinatorException(row.reason(), "why " + row.reason(), LEADER, RETRY_AFTER, proposed);
      return Stream.of(
          new Object[] {row, ce, ce},
          new Object[] {row, ce, new CompletionException(ce)},
          new Object[] {row, ce, new ExecutionException(ce)},
          new Object[] {row, ce, new CompletionException(new ExecutionException(ce))});
    }));
  }

  @Test
  void theTableHasEveryReasonOnce() {
    Set<Reason> covered = TABLE.stream().map(Row::reason).collect(Collectors.toCollection(() -> EnumSet.noneOf(Reason.class)));
    assertEquals(EnumSet.allOf(Reason.class), covered);
    assertEquals(Reason.values().length, TABLE.size());
  }

  @ParameterizedTest(name = "{0} from {2}")
  @MethodSource("cases")
  void everyReasonMapsToItsCode(Row row, CoordinatorException ce, Throwable failure) {
    Response.Error e = ErrorReplies.forFailure(failure);
    // Leadership lost after proposing may still commit: never a definite NOT_LEADER.
    boolean lostAfterProposing = row.reason() == Reason.NOT_LEADER && ce.proposed();
    assertEquals(lostAfterProposing ? ErrorCode.UNAVAILABLE : row.code(), e.code());
    assertEquals("why " + row.reason(), e.message());
    assertEquals(row.carriesLeader() ? LEADER : "", e.leaderAddress());
    // A removed node's "not again" is about that node; once proposed, the answer is a retry.
    assertEquals(row.carriesRetryAfter() && !lostAfterProposing ? RETRY_AFTER : 0, e.retryAfterMillis());
    assertEquals(row.definite() && !lostAfterProposing, e.code().definite(), "definite on the wire");
  }

  @Test
  void aReasonWithoutMessageIsNamed() {
    for (Reason r : Reason.values()) {
      Response.Error e = ErrorReplies.forFailure(new CoordinatorException(r, null, null, 0, false));
      assertEquals(r.name(), e.message());
      assertEquals("", e.leaderAddress(), "a null leader travels as empty");
    }
  }

  @Test
  void anyOtherExceptionIsAnIndeterminateInternalError() {
    for (Throwable t : List.of(
        new IllegalStateException("bug"),
        new CompletionException(new IllegalStateException("bug")),
        new ExecutionException(new IllegalStateException("bug")))) {
      Response.Error e = ErrorReplies.forFailure(t);
      assertEquals(ErrorCode.INTERNAL, e.code());
      assertEquals("internal: java.lang.IllegalStateException: bug", e.message());
      assertFalse(e.code().definite(), "nobody knows what a failed request did");
    }
    // A wrapper without a cause is itself the failure.
    assertEquals(ErrorCode.INTERNAL, ErrorReplies.forFailure(new CompletionException("lost", null)).code());
  }

  @Test
  void unwrappingIsBounded() {
    Throwable t = new CoordinatorException(Reason.OVERLOADED, "deep", "", 1, false);
    for (int i = 0; i < 5; i++) {
      t = new CompletionException(t);
    }
    assertEquals(ErrorCode.INTERNAL, ErrorReplies.forFailure(t).code(), "five wrappers are past the bound");
  }

  @Test
  void longMessagesAreCut() {
    char[] chars = new char[ErrorReplies.MESSAGE_CHARS_MAX + 50];
    Arrays.fill(chars, 'x');
    Response.Error e = ErrorReplies.error(ErrorCode.INVALID_ARGUMENT, new String(chars), null, 0);
    assertEquals(ErrorReplies.MESSAGE_CHARS_MAX + 3, e.message().length());
    assertTrue(e.message().endsWith("..."));
    assertEquals("", e.leaderAddress());
    String exact = new String(chars, 0, ErrorReplies.MESSAGE_CHARS_MAX);
    assertEquals(exact, ErrorReplies.error(ErrorCode.INVALID_ARGUMENT, exact, "", 0).message());
  }

  /** The endpoint's own errors: code, message and whether the client may treat them as definite. */
  @Test
  void theEndpointsOwnErrors() {
    record Own(Response.Error error, ErrorCode code, String message) {}
    List<Own> own = List.of(
        new Own(ErrorReplies.helloRequired(Kind.ACQUIRE_LEASE), ErrorCode.HELLO_REQUIRED,
            "the first frame must be HELLO, got ACQUIRE_LEASE"),
        new Own(ErrorReplies.helloRepeated(), ErrorCode.HELLO_REQUIRED, "HELLO was already sent on this connection"),
        new Own(ErrorReplies.unsupportedVersion(7), ErrorCode.UNSUPPORTED_VERSION,
            "HELLO protocol version 7 unsupported; this server speaks protocol version " + Frame.PROTOCOL_VERSION),
        new Own(ErrorReplies.reservedClientId(), ErrorCode.INVALID_ARGUMENT,
            "client id 0:0 is reserved; use a random 128-bit id"),
        new Own(ErrorReplies.invalidArgument("tenant is empty"), ErrorCode.INVALID_ARGUMENT, "tenant is empty"),
        new Own(ErrorReplies.deadlineExceeded(1_500_000_000L), ErrorCode.DEADLINE_EXCEEDED, "deadline of 1500 ms passed"),
        new Own(ErrorReplies.replyTooLarge(Kind.LIST_LEASES, 5000, 4096), ErrorCode.INVALID_ARGUMENT,
            "reply to LIST_LEASES is 5000 bytes, over the max frame of 4096; narrow the query (list one tenant and resource)"),
        new Own(ErrorReplies.noAnswer(Kind.GET_LIMIT), ErrorCode.INTERNAL, "internal: no answer for GET_LIMIT"),
        new Own(ErrorReplies.translationFailed(new IllegalArgumentException("x")), ErrorCode.INTERNAL,
            "internal: java.lang.IllegalArgumentException: x"),
        new Own(ErrorReplies.notEncoded(Kind.LIST_LIMITS), ErrorCode.INTERNAL, "internal: reply to LIST_LIMITS did not encode"));
    for (Own o : own) {
      assertEquals(o.code(), o.error().code(), o.message());
      assertEquals(o.message(), o.error().message());
      assertEquals("", o.error().leaderAddress());
      assertEquals(0, o.error().retryAfterMillis());
    }
    // Refusals before any effect are definite; a passed deadline and a bug are not.
    assertTrue(ErrorReplies.invalidArgument("x").code().definite());
    assertFalse(ErrorReplies.deadlineExceeded(1).code().definite());
    assertFalse(ErrorReplies.noAnswer(Kind.GET_LIMIT).code().definite());
  }

  @Test
  void anUnknownKindKeepsTheConnection() {
    FrameError e = ErrorReplies.unknownKind(new Frame(Frame.PROTOCOL_VERSION, 0x3F, 140, new byte[0]));
    assertEquals(ErrorCode.UNKNOWN_KIND, e.code());
    assertEquals("unknown request kind 63", e.message());
    assertEquals(140, e.requestId());
    assertFalse(e.fatal());
  }
}
