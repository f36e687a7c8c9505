/**
 * An in-process cache whose entries expire at absolute instants of an injected monotonic clock:
 * {@link dev.ration.client.ttl.cache.TtlCache}. It needs nothing but the JDK and no connection to
 * a cluster. Expiry is judged at read time with the rule of the replicated TTL entries (an entry
 * is expired once {@code now >= expiresAt}), capacity is bounded by entries and by bytes, and
 * full means eviction by least recent use, least frequent use or soonest expiry.
 */
package dev.ration.client.ttl.cache;
