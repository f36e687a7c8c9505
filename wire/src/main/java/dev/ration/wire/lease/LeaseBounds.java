package dev.ration.wire.lease;

/** Bounds of the lease messages that the protocol and the log share. */
public final class LeaseBounds {
  /**
   * Most renewals one RENEW_LEASES frame or log command carries. A renewal is 56 bytes, so a
   * full batch (229 KiB) fits a frame and a log entry with room to spare.
   */
  public static final int MAX_RENEWALS_PER_BATCH = 4_096;

  private LeaseBounds() {}
}
