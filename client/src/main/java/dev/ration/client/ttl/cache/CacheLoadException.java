package dev.ration.client.ttl.cache;

/**
 * A {@link Loader} failed (threw, or returned null). Thrown to the caller that ran the load and
 * to every caller that waited on it, each with its own stack and the loader's failure as cause.
 * Nothing was stored: the next call for the key loads again.
 */
public final class CacheLoadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * A failed load.
   *
   * @param key the key being loaded, shown in the message
   * @param cause what the loader threw
   */
  public CacheLoadException(Object key, Throwable cause) {
    super("loading key " + key + " failed: " + cause, cause);
  }
}
