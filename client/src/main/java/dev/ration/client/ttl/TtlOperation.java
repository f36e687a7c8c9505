package dev.ration.client.ttl;

/** The calls of {@link TtlEntries}, as {@link TtlListener}s and metrics name them. */
public enum TtlOperation {
  /** {@link TtlEntries#put}. */
  PUT,
  /** {@link TtlEntries#compareAndSet}, and {@link TtlEntries#tryLock} which is one. */
  COMPARE_AND_SET,
  /** {@link TtlEntries#refresh}, and {@link Lock#refresh}. */
  REFRESH,
  /** {@link TtlEntries#delete}, and {@link Lock#release}. */
  DELETE,
  /** {@link TtlEntries#get}. */
  GET,
  /** {@link TtlEntries#list}. */
  LIST,
  /** {@link TtlEntries#setNamespace}. */
  SET_NAMESPACE,
  /** {@link TtlEntries#namespaces}. */
  NAMESPACES,
  /** {@link TtlEntries#update}. */
  UPDATE,
  /** A poll of {@link TtlEntries#watch} or of a {@link NearCache}. */
  WATCH
}
