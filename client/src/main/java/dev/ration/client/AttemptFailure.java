package dev.ration.client;

import dev.ration.wire.ErrorCode;

/**
 * Why one attempt got no reply: the connection failed or was lost, the attempt's deadline
 * passed, or the local in-flight cap was full. {@code written} is true when the request may
 * have reached a server (so a mutation may have been applied).
 */
final class AttemptFailure extends Exception {
  final ErrorCode code;
  final boolean written;

  AttemptFailure(ErrorCode code, String message, boolean written, Throwable cause) {
    super(message, cause);
    this.code = code;
    this.written = written;
  }
}
