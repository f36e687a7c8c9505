package dev.ration.statemachine.command;

/**
 * A log entry whose bytes are not a valid {@link Batch}: wrong format version, a length that
 * runs past the end, an unknown command code, invalid UTF-8, trailing bytes. The message names
 * the field, the offset and the numbers.
 */
public final class BatchFormatException extends RuntimeException {
  public BatchFormatException(String message) {
    super(message);
  }
}
