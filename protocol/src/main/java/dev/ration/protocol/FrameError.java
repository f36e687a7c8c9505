package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

/**
 * A framing problem found by {@link FrameDecoder}, emitted downstream as a message instead of
 * an exception so the endpoint can answer it.
 *
 * <p>{@code requestId} is 0 when unknown (the header was not readable); clients never use 0.
 * {@code fatal} means the byte stream can no longer be trusted: the decoder discards
 * everything after it, and the endpoint should write {@link #toFrame()} and close the channel.
 * A non-fatal error (an unknown kind in an intact frame) leaves the connection usable.
 */
public record FrameError(ErrorCode code, String message, long requestId, boolean fatal) {

  /**
   * Kind byte of a response to a frame whose kind is unknown or unreadable: the response bit
   * with no request kind. Clients decode its payload as an error.
   */
  public static final int ERROR_RESPONSE_KIND = Kind.RESPONSE_BIT;

  public FrameError {
    if (code == null || code == ErrorCode.OK) {
      throw new IllegalArgumentException("FrameError needs a non-OK code, got " + code);
    }
    if (message == null) {
      throw new IllegalArgumentException("FrameError message is null for " + code);
    }
  }

  /** The error response the peer should receive, echoing {@link #requestId}. */
  public Frame toFrame() {
    return new Frame(
        Frame.PROTOCOL_VERSION,
        ERROR_RESPONSE_KIND,
        requestId,
        MessageCodec.encodeResponse(new Response.Error(code, message, "", 0)));
  }
}
