package dev.ration.protocol;

/**
 * One decoded frame: {@code u32 length | u8 version | u8 kind | u64 requestId | payload}, where
 * {@code length} counts every byte after itself. The payload is still undecoded: the codec turns
 * it into a {@link Request} or {@link Response}.
 */
public record Frame(int version, int kind, long requestId, byte[] payload) {
  public static final int PROTOCOL_VERSION = 1;
  /** version + kind + request id. */
  public static final int HEADER_BYTES = 1 + 1 + 8;
  public static final int DEFAULT_MAX_FRAME_BYTES = 1 << 20;
}
