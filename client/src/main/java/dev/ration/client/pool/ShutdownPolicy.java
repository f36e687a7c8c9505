package dev.ration.client.pool;

/** What {@link WorkerPool#shutdown} does with jobs that have not started. */
public enum ShutdownPolicy {
  /** Keep running queued jobs until the deadline; cancel whatever is still queued then. */
  DRAIN,
  /** Cancel every queued job at once; only the running ones may still finish. */
  CANCEL_QUEUED
}
