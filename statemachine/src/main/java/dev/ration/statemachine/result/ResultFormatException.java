package dev.ration.statemachine.result;

/**
 * Bytes that are not a stored {@link Result}: wrong format version, an unknown result or enum
 * code, a length that runs past the end, invalid UTF-8, trailing bytes. The message names the
 * field, the offset and the numbers. An {@link IllegalArgumentException}, as the decoder has
 * always documented, so callers that catch that keep working; its own type tells a corrupt
 * record apart from any other argument error.
 */
public final class ResultFormatException extends IllegalArgumentException {
  public ResultFormatException(String message) {
    super(message);
  }
}
