package dev.ration.statemachine;

/** An operating error of the RocksDB store (open, write, checkpoint), wrapped with context. */
public final class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }
}
