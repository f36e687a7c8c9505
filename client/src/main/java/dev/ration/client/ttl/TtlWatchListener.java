package dev.ration.client.ttl;

import java.util.List;

/**
 * What a {@link TtlWatch} tells, on the watch's own thread, one call at a time and in log
 * order. A listener that blocks holds the watch back (changes wait in the cluster's buffer, and
 * a watch that falls behind it is told {@link #onCompacted}).
 */
public interface TtlWatchListener {
  /**
   * Changes of the namespace, oldest first.
   *
   * @param changes one or more changes, in log order
   * @param throughIndex the watch's position after them: every change up to it was told
   */
  void onChanges(List<Change> changes, long throughIndex);

  /**
   * The cluster no longer holds the changes after the watch's position (the node that answers
   * restarted, installed a snapshot, or the watch fell too far behind): changes were missed.
   * Whatever was built from earlier changes must be read again; the watch continues from
   * {@code throughIndex}.
   *
   * @param throughIndex the watch's new position
   */
  default void onCompacted(long throughIndex) {}

  /**
   * A poll failed after the client's own retries (the client's {@code RationException}); the
   * watch tries again from the same position after a pause.
   *
   * @param failure why
   */
  default void onError(RuntimeException failure) {}
}
