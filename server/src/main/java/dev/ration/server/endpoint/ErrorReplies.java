package dev.ration.server.endpoint;

import dev.ration.wire.ErrorCode;
import dev.ration.protocol.Frame;
import dev.ration.protocol.FrameError;
import dev.ration.protocol.Kind;
import dev.ration.protocol.MalformedMessageException;
import dev.ration.protocol.Response;
import dev.ration.server.consensus.CoordinatorException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every error the endpoint answers, in one place: which wire {@link ErrorCode} a failure
 * becomes and with which message, leader address and retry-after.
 *
 * <p>The code decides what the client may conclude: a definite code ({@link
 * ErrorCode#definite()}) tells it the request certainly had no effect, an indeterminate one that
 * a mutation may have been applied, so it must retry under the same request id or report the
 * outcome as unknown. A coordinator failure therefore keeps its reason's code; anything the
 * endpoint does not recognise is a bug and becomes INTERNAL, which is indeterminate, because
 * nobody can say what the request did.
 *
 * <p>Stateless and thread-safe: static methods only. Invariant: every message fits the
 * protocol's u16 string bound, since {@link #error} cuts it to {@link #MESSAGE_CHARS_MAX}.
 */
final class ErrorReplies {
  private static final Logger log = LoggerFactory.getLogger(ErrorReplies.class);

  /** Error messages are for people; keep them well within the u16 string bound. */
  static final int MESSAGE_CHARS_MAX = 1_000;

  private ErrorReplies() {}

  /** An error reply; the message is cut to {@link #MESSAGE_CHARS_MAX}, a null leader is "". */
  static Response.Error error(ErrorCode code, String message, String leaderAddress, int retryAfterMillis) {
    String m = message.length() > MESSAGE_CHARS_MAX ? message.substring(0, MESSAGE_CHARS_MAX) + "..." : message;
    return new Response.Error(code, m, leaderAddress == null ? "" : leaderAddress, retryAfterMillis);
  }

  /**
   * Maps a failed coordinator future to the wire. Future wrappers are unwrapped; a {@link
   * CoordinatorException} keeps its reason, its leader address (NOT_LEADER, UNAVAILABLE) and its
   * retry-after (NOT_LEADER from a removed node, OVERLOADED, UNAVAILABLE); anything else is a bug reported as INTERNAL.
   */
  static Response.Error forFailure(Throwable failure) {
    Throwable t = failure;
    // Bounded: unwrap at most a few layers of future wrappers.
    for (int i = 0; i < 4 && (t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null; i++) {
      t = t.getCause();
    }
    if (t instanceof CoordinatorException ce) {
      String message = ce.getMessage() == null ? ce.reason().name() : ce.getMessage();
      return switch (ce.reason()) {
        // NOT_LEADER tells the client nothing happened. Leadership lost after the command
        // reached Raft is not that: the entry may still commit under the new leader, so the
        // answer is indeterminate (UNAVAILABLE, with the leader hint) and a retry must reuse
        // the request id.
        case NOT_LEADER -> ce.proposed()
            ? error(ErrorCode.UNAVAILABLE, message, ce.leaderClientAddress(), 0)
            : error(ErrorCode.NOT_LEADER, message, ce.leaderClientAddress(), ce.retryAfterMillis());
        case OVERLOADED -> error(ErrorCode.OVERLOADED, message, "", ce.retryAfterMillis());
        case DEADLINE_EXCEEDED -> error(ErrorCode.DEADLINE_EXCEEDED, message, "", 0);
        case UNAVAILABLE ->
            error(ErrorCode.UNAVAILABLE, message, ce.leaderClientAddress(), ce.retryAfterMillis());
        case CANCELLED -> error(ErrorCode.CANCELLED, message, "", 0);
      };
    }
    log.warn("event=request_failed error={}", t.toString(), t);
    return internal(t.toString());
  }

  /** A request withdrawn by CANCEL before it had an effect. */
  static Response.Error cancelled(String message) {
    return error(ErrorCode.CANCELLED, message, "", 0);
  }

  // ---------------------------------------------------------------- framing and HELLO

  /** A frame of a kind this server does not know; the connection stays usable. */
  static FrameError unknownKind(Frame f) {
    return new FrameError(ErrorCode.UNKNOWN_KIND, "unknown request kind " + f.kind(), f.requestId(), false);
  }

  static Response.Error helloRequired(Kind got) {
    return error(ErrorCode.HELLO_REQUIRED, "the first frame must be HELLO, got " + got, "", 0);
  }

  static Response.Error helloRepeated() {
    return error(ErrorCode.HELLO_REQUIRED, "HELLO was already sent on this connection", "", 0);
  }

  static Response.Error unsupportedVersion(int protocolVersion) {
    return error(
        ErrorCode.UNSUPPORTED_VERSION,
        "HELLO protocol version " + protocolVersion + " unsupported; this server speaks protocol version "
            + Frame.PROTOCOL_VERSION,
        "",
        0);
  }

  /** (0, 0) with request id 0 is the state machine's "no key", which it never deduplicates. */
  static Response.Error reservedClientId() {
    return invalidArgument("client id 0:0 is reserved; use a random 128-bit id");
  }

  static Response.Error malformed(MalformedMessageException e) {
    return error(ErrorCode.MALFORMED, e.getMessage(), "", 0);
  }

  // ---------------------------------------------------------------- requests and replies

  static Response.Error invalidArgument(String message) {
    return error(ErrorCode.INVALID_ARGUMENT, message, "", 0);
  }

  /** The endpoint's own timer fired: the coordinator may still apply the request. */
  static Response.Error deadlineExceeded(long timeoutNanos) {
    return error(
        ErrorCode.DEADLINE_EXCEEDED, "deadline of " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms passed", "", 0);
  }

  /** A reply that would not fit a frame; reads are the only replies that can grow that large. */
  static Response.Error replyTooLarge(Kind kind, int length, int maxFrameBytes) {
    return invalidArgument(
        "reply to " + kind + " is " + length + " bytes, over the max frame of " + maxFrameBytes
            + "; narrow the query (list one tenant and resource)");
  }

  /** The coordinator completed with a value that is neither a result nor a query result. */
  static Response.Error noAnswer(Kind kind) {
    return internal("no answer for " + kind);
  }

  static Response.Error translationFailed(RuntimeException e) {
    return internal(e.toString());
  }

  static Response.Error notEncoded(Kind kind) {
    return internal("reply to " + kind + " did not encode");
  }

  private static Response.Error internal(String what) {
    return error(ErrorCode.INTERNAL, "internal: " + what, "", 0);
  }
}
