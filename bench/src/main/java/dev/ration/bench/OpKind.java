package dev.ration.bench;

/**
 * What one request of the load generator was, for accounting. REACQUIRE is an acquire a slot
 * of the renew (or mixed) workload had to send because its lease was lost (expired, unknown,
 * or a renewal ended indeterminate); it is counted apart so it does not inflate the renew rate.
 */
public enum OpKind {
  ACQUIRE("acquire"),
  RENEW("renew"),
  REACQUIRE("reacquire");

  private final String label;

  OpKind(String label) {
    this.label = label;
  }

  /** The name printed in reports (stable: JSON keys use it). */
  public String label() {
    return label;
  }
}
