package dev.ration.client.ttl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.client.time.MonotonicClock;
import dev.ration.client.transport.Transport;
import dev.ration.client.ttl.internal.TtlAccess;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.protocol.TtlRequest;
import dev.ration.protocol.TtlResponse;
import dev.ration.wire.ChangeKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The near cache's rules, driven by hand: every poll it sends is answered by the test (or left
 * waiting), on a clock the test moves. Expiry is judged from the answer that brought an entry
 * (sent instant, ledger time read, margin, rate bound); only confirmed answers keep it current;
 * a change replaces a held key and skips others; an answer older than what was applied is not
 * held; a compacted answer drops everything, a stale one is ignored.
 */
class NearCacheTest {
  /** A request the cache sent (a poll, or a plain read), waiting for the test's answer. */
  record Sent(TtlRequest request, CompletableFuture<Response> reply) {
    TtlRequest.Watch watch() {
      return (TtlRequest.Watch) request;
    }

    void answer(TtlResponse r) {
      reply.complete(new Response.Ttl(r));
    }
  }

  /** Hands every request to the test; answers none by itself. */
  static final class HandTransport implements Transport {
    final LinkedBlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    private final AtomicLong ids = new AtomicLong();

    Sent next() throws InterruptedException {
      Sent s = sent.poll(10, TimeUnit.SECONDS);
      assertNotNull(s, "the cache sent a poll");
      return s;
    }

    /** The next poll that asks for keys (a miss), skipping the watch's own polls. */
    Sent nextLoad() throws InterruptedException {
      while (true) {
        Sent s = next();
        if (s.request() instanceof TtlRequest.Watch w && !w.keys().isEmpty()) {
          return s;
        }
      }
    }

    @Override
    public CompletableFuture<Response> call(Request request) {
      CompletableFuture<Response> f = new CompletableFuture<>();
      sent.add(new Sent(((Request.Ttl) request).request(), f));
      return f;
    }

    @Override
    public long nextRequestId() {
      return ids.incrementAndGet();
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(long requestId, Request request, Class<T> type) {
      return call(request).thenApply(type::cast);
    }

    @Override
    public <T extends Response> CompletableFuture<T> call(Request request, Class<T> type) {
      return call(request).thenApply(type::cast);
    }
  }

  static final class HandClock implements MonotonicClock {
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
      return nanos.get();
    }

    void advanceMillis(long ms) {
      nanos.addAndGet(ms * 1_000_000L);
    }
  }

  private final HandTransport transport = new HandTransport();
  private final HandClock clock = new HandClock();
  private NearCache cache;

  @AfterEach
  void close() {
    if (cache != null) {
      cache.close();
    }
  }

  private static TtlResponse.WatchReply reply(long through, List<TtlResponse.ChangeInfo> changes,
      List<TtlResponse.EntryInfo> entries, long readAt, boolean confirmed) {
    return new TtlResponse.WatchReply(changes, through, false, false, entries, readAt, confirmed);
  }

  private static TtlResponse.EntryInfo entry(String key, String value, long version, long expiresAt) {
    return new TtlResponse.EntryInfo("ns", key, value.getBytes(StandardCharsets.UTF_8), version,
        expiresAt);
  }

  private static TtlResponse.ChangeInfo put(long index, String key, String value, long version,
      long expiresAt) {
    return new TtlResponse.ChangeInfo(index, ChangeKind.PUT, key, version, expiresAt,
        value.getBytes(StandardCharsets.UTF_8));
  }

  private static String value(Optional<Entry> e) {
    return e.map(x -> new String(x.value(), StandardCharsets.UTF_8)).orElse("absent");
  }

  /** A started cache at position 10, its first answer confirmed at ledger time 1,000. */
  private Sent started() throws Exception {
    cache = TtlAccess.entries(transport, clock).cached("ns", NearCache.Options.defaults());
    Sent first = transport.next();
    assertEquals(-1, first.watch().fromIndex());
    first.answer(reply(10, List.of(), List.of(), 1_000, true));
    cache.awaitCurrent(10, TimeUnit.SECONDS);
    return transport.next(); // the watch's next poll, from 10: left waiting
  }

  /** get(key) on another thread, answered by the test as a load at position {@code from}. */
  private Optional<Entry> load(String key, long through, List<TtlResponse.ChangeInfo> changes,
      List<TtlResponse.EntryInfo> entries, long readAt) throws Exception {
    CompletableFuture<Optional<Entry>> got = CompletableFuture.supplyAsync(() -> cache.get(key));
    Sent load = transport.nextLoad();
    assertEquals(List.of(new TtlRequest.WatchKey(key)), load.watch().keys());
    assertTrue(load.watch().confirm(), "a miss asks for a confirmed answer");
    load.answer(reply(through, changes, entries, readAt, true));
    return got.get(10, TimeUnit.SECONDS);
  }

  @Test
  void anEntryIsServedFromMemoryUntilItsExpiryLessTheMarginAsTheAnswerTold() throws Exception {
    started();
    // Read at ledger 1,000 and sent at t0; expires at 1,600: served until t0 + (600 − 100) / 1.001 ms.
    assertEquals("v1", value(load("k", 12, List.of(), List.of(entry("k", "v1", 5, 1_600)), 1_000)));
    clock.advanceMillis(499);
    assertEquals("v1", value(cache.get("k")));
    assertEquals(1, cache.stats().memoryHits());
    clock.advanceMillis(1);
    // Past the bound: the cache asks the cluster, which judges expiry itself.
    assertEquals("absent", value(load("k", 13, List.of(), List.of(), 1_500)));
    assertEquals(1, cache.stats().memoryHits());
    assertEquals("absent", value(cache.get("k")), "absence is held too");
    assertEquals(2, cache.stats().memoryHits());
  }

  @Test
  void onlyAConfirmedAnswerKeepsTheCacheCurrent() throws Exception {
    Sent watch = started();
    assertEquals("v1", value(load("k", 12, List.of(), List.of(entry("k", "v1", 5, Long.MAX_VALUE)), 1_000)));
    clock.advanceMillis(1_900);
    assertTrue(cache.isCurrent(), "the load's confirmed answer was sent 1.9 s ago, within 2 s");
    // An unconfirmed answer with a change: applied, but it does not extend the bound.
    watch.answer(reply(14, List.of(put(14, "k", "v2", 6, Long.MAX_VALUE)), List.of(), 2_900, false));
    Sent next = transport.next();
    assertTrue(next.watch().confirm(), "past half its bound, the cache asks for confirmation");
    assertEquals("v2", value(cache.get("k")));
    clock.advanceMillis(200);
    assertFalse(cache.isCurrent());
    // Not current: gets go to the cluster until a confirmed answer arrives.
    assertEquals("v2", value(load("k", 14, List.of(), List.of(entry("k", "v2", 6, Long.MAX_VALUE)), 3_100)));
    assertEquals(1, cache.stats().notCurrent());
    assertTrue(cache.isCurrent());
  }

  @Test
  void aChangeReplacesAHeldKeyAndSkipsTheOthers() throws Exception {
    Sent watch = started();
    assertEquals("absent", value(load("k", 12, List.of(), List.of(), 1_000)));
    watch.answer(reply(15, List.of(put(13, "other", "x", 7, Long.MAX_VALUE),
        put(15, "k", "v9", 8, Long.MAX_VALUE)), List.of(), 1_100, false));
    transport.next();
    assertEquals("v9", value(cache.get("k")));
    assertEquals(1, cache.stats().changesApplied(), "the change to 'other' is skipped");
    assertEquals(15, cache.position());
  }

  @Test
  void aLoadOlderThanWhatTheWatchAppliedIsNotHeldAndReadsThroughTheCluster() throws Exception {
    Sent watch = started();
    assertEquals("absent", value(load("k", 11, List.of(), List.of(), 1_000)));
    CompletableFuture<Optional<Entry>> got = CompletableFuture.supplyAsync(() -> cache.get("j"));
    Sent load = transport.nextLoad();
    // Meanwhile the watch applies (and tells) changes up to 20, j's among them...
    watch.answer(reply(20, List.of(put(18, "j", "new", 9, Long.MAX_VALUE)), List.of(), 1_200, false));
    Sent nextPoll = transport.next();
    assertEquals(20, nextPoll.watch().fromIndex());
    assertEquals(20, cache.position());
    // ...so the load's answer, read at 16, is older than index 18: its entry is not taken and
    // the get reads through the cluster.
    load.answer(reply(16, List.of(), List.of(entry("j", "old", 4, Long.MAX_VALUE)), 1_100, true));
    Sent plain = transport.next();
    assertEquals(new TtlRequest.Get("ns", "j", false), plain.request());
    plain.answer(new TtlResponse.GetReply(true, entry("j", "new", 9, Long.MAX_VALUE), 1_250));
    assertEquals("new", value(got.get(10, TimeUnit.SECONDS)));
    // j was not held: the next get of it loads again rather than answering from memory.
    assertEquals("new", value(load("j", 21, List.of(), List.of(entry("j", "new", 9, Long.MAX_VALUE)), 1_300)));
  }

  @Test
  void aCompactedAnswerDropsEverythingAndAStaleOneIsIgnored() throws Exception {
    Sent watch = started();
    assertEquals("v1", value(load("k", 12, List.of(), List.of(entry("k", "v1", 5, Long.MAX_VALUE)), 1_000)));
    CompletableFuture<Optional<Entry>> got = CompletableFuture.supplyAsync(() -> cache.get("m"));
    Sent load = transport.nextLoad();
    // The watch's poll was sent from 10, before the load moved the position to 12: its
    // "compacted" says nothing about 12, so it is ignored and the watch asks again from 12.
    watch.answer(new TtlResponse.WatchReply(List.of(), 40, true, false, List.of(), 1_300, true));
    Sent again = transport.next();
    assertEquals(12, again.watch().fromIndex());
    assertEquals(0, cache.stats().resyncs());
    again.answer(new TtlResponse.WatchReply(List.of(), 40, true, false, List.of(), 1_300, true));
    Sent next = transport.next();
    assertEquals(40, next.watch().fromIndex());
    assertEquals(1, cache.stats().resyncs());
    assertEquals(0, cache.stats().entries(), "everything dropped");
    // The load, sent before the resync, answered "compacted" at a lower index: ignored.
    load.answer(new TtlResponse.WatchReply(List.of(), 30, true, false, List.of(), 1_200, true));
    Sent plain = transport.next();
    assertEquals(new TtlRequest.Get("ns", "m", false), plain.request());
    plain.answer(new TtlResponse.GetReply(false, null, 1_350));
    assertEquals("absent", value(got.get(10, TimeUnit.SECONDS)));
    assertEquals(1, cache.stats().resyncs());
    assertEquals(40, cache.position());
    // k must be loaded again after the resync.
    assertEquals("v2", value(load("k", 41, List.of(), List.of(entry("k", "v2", 11, Long.MAX_VALUE)), 1_400)));
  }

  @Test
  void aCompactedAnswerBelowThePositionStartsAgainThere() throws Exception {
    Sent watch = started();
    assertEquals("v1", value(load("k", 12, List.of(), List.of(entry("k", "v1", 5, Long.MAX_VALUE)), 1_000)));
    watch.answer(reply(12, List.of(), List.of(), 1_050, true)); // the watch's poll from 10
    Sent fromTwelve = transport.next();
    assertEquals(12, fromTwelve.watch().fromIndex());
    // The cluster was restored to an older backup: it never reached 12.
    fromTwelve.answer(new TtlResponse.WatchReply(List.of(), 7, true, false, List.of(), 1_100, true));
    Sent next = transport.next();
    assertEquals(7, next.watch().fromIndex());
    assertEquals(1, cache.stats().resyncs());
    assertEquals(0, cache.stats().entries(), "v1 of the lost history is not served");
  }
}
