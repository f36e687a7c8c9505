package dev.ration.server.consensus;

import dev.ration.statemachine.ttl.TtlChange;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The TTL changes this node applied most recently, by log index: what a watch is answered from.
 * Every node keeps one (followers apply the same entries), so a watch resumes at whichever node
 * leads next. It holds every change with index above its {@link #floorIndex()}: a watch
 * resuming below the floor is told "compacted, resync". The floor rises when the buffer drops
 * its oldest changes (at {@code maxChanges} changes or {@code maxBytes} bytes) and jumps to the
 * applied index when the state is opened (start, snapshot install, restore), since the changes
 * before it were never seen here.
 *
 * <p>Written by the applying thread under the state machine's write lock; read under its read
 * lock, so a read sees every change up to the applied index it reads with. Waiters are woken on
 * {@code wakeups}, never on the applying thread.
 */
public final class TtlChangeLog {
  /** A change and the log index of the entry that made it. */
  public record Indexed(long index, TtlChange change) {}

  /**
   * What a read found: the namespace's changes with index in (from, through], in order;
   * {@code compacted} when changes after {@code from} are no longer held (then no changes).
   */
  public record Slice(List<Indexed> changes, long throughIndex, boolean compacted) {}

  private final int maxChanges;
  private final long maxBytes;
  private final Executor wakeups;
  private final ArrayDeque<Indexed> held = new ArrayDeque<>();
  /** Waiting polls by namespace: an entry wakes only its namespaces' polls. */
  private final java.util.HashMap<String, List<Waiter>> waiters = new java.util.HashMap<>();
  /** The index of each namespace's newest change held or dropped since the last reset. */
  private final java.util.HashMap<String, Long> newestByNamespace = new java.util.HashMap<>();
  private long bytes;
  private long floorIndex;
  private long dropped;

  public TtlChangeLog(int maxChanges, long maxBytes, Executor wakeups) {
    if (maxChanges < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("maxChanges " + maxChanges + " and maxBytes " + maxBytes
          + " must be positive");
    }
    this.maxChanges = maxChanges;
    this.maxBytes = maxBytes;
    this.wakeups = wakeups;
  }

  /** A watcher waiting for a namespace's next change. */
  private record Waiter(String namespace, long afterIndex, CompletableFuture<Void> woken) {}

  /** The state was opened at {@code appliedIndex}: nothing before it is known here. */
  public void reset(long appliedIndex) {
    List<Waiter> wake;
    synchronized (this) {
      held.clear();
      newestByNamespace.clear();
      bytes = 0;
      floorIndex = appliedIndex;
      wake = new ArrayList<>();
      waiters.values().forEach(wake::addAll);
      waiters.clear();
    }
    wakeAll(wake);
  }

  /** The changes of the entry at {@code index}, applied just now. */
  public void appended(long index, List<TtlChange> changes) {
    if (changes.isEmpty()) {
      return;
    }
    List<Waiter> wake = new ArrayList<>();
    synchronized (this) {
      for (TtlChange c : changes) {
        held.addLast(new Indexed(index, c));
        bytes += c.weight();
        newestByNamespace.put(c.namespace(), index);
      }
      long floorBefore = floorIndex;
      while (held.size() > maxChanges || (bytes > maxBytes && held.size() > 1)) {
        Indexed gone = held.removeFirst();
        bytes -= gone.change().weight();
        floorIndex = Math.max(floorIndex, gone.index());
        dropped++;
      }
      for (TtlChange c : changes) {
        List<Waiter> ofNamespace = waiters.remove(c.namespace());
        if (ofNamespace != null) {
          wake.addAll(ofNamespace);
        }
      }
      if (floorIndex > floorBefore) {
        // Polls whose index fell below the floor are answered "compacted" now, not at their wait.
        for (Iterator<List<Waiter>> lists = waiters.values().iterator(); lists.hasNext(); ) {
          List<Waiter> list = lists.next();
          for (Iterator<Waiter> it = list.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.afterIndex() < floorIndex) {
              wake.add(w);
              it.remove();
            }
          }
          if (list.isEmpty()) {
            lists.remove();
          }
        }
      }
    }
    wakeAll(wake);
  }

  private void wakeAll(List<Waiter> wake) {
    if (wake.isEmpty()) {
      return;
    }
    try {
      wakeups.execute(() -> wake.forEach(w -> w.woken().complete(null)));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // The node is shutting down: its clients' requests were already answered. This runs on
      // the applying thread, which must never fail for a watch's sake.
      wake.forEach(w -> w.woken().cancel(false));
    }
  }

  /**
   * Completes when the namespace has a change after {@code afterIndex} (at once if it already
   * has one, or if the changes after it are no longer held). {@link #cancel} withdraws it.
   */
  public synchronized CompletableFuture<Void> awaitChange(String namespace, long afterIndex) {
    if (afterIndex < floorIndex || newestIndexOf(namespace) > afterIndex) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> woken = new CompletableFuture<>();
    waiters.computeIfAbsent(namespace, n -> new ArrayList<>()).add(new Waiter(namespace, afterIndex, woken));
    return woken;
  }

  /** Withdraws a wait that is no longer wanted (its watch answered on a timer). */
  public synchronized void cancel(String namespace, CompletableFuture<Void> woken) {
    List<Waiter> list = waiters.get(namespace);
    if (list != null) {
      list.removeIf(w -> w.woken() == woken);
      if (list.isEmpty()) {
        waiters.remove(namespace);
      }
    }
  }

  /** O(1): a poll of a quiet namespace must not walk a buffer other namespaces filled. */
  private long newestIndexOf(String namespace) {
    return newestByNamespace.getOrDefault(namespace, Long.MIN_VALUE);
  }

  /**
   * The namespace's changes with index in ({@code fromIndex}, {@code appliedIndex}], oldest
   * first, at most {@code limit} (cut after a whole entry's changes, so {@code throughIndex}
   * is exact; an entry with more changes than the limit is returned whole).
   * {@code appliedIndex} must be the state's applied index, read under the same lock.
   */
  public synchronized Slice read(String namespace, long fromIndex, long appliedIndex, int limit) {
    if (fromIndex < floorIndex) {
      return new Slice(List.of(), appliedIndex, true);
    }
    List<Indexed> newestFirst = new ArrayList<>();
    for (Iterator<Indexed> it = held.descendingIterator(); it.hasNext(); ) {
      Indexed i = it.next();
      if (i.index() <= fromIndex) {
        break;
      }
      if (i.index() <= appliedIndex && i.change().namespace().equals(namespace)) {
        newestFirst.add(i);
      }
    }
    Collections.reverse(newestFirst);
    if (newestFirst.size() <= limit) {
      return new Slice(newestFirst, Math.max(fromIndex, appliedIndex), false);
    }
    int end = limit;
    long cutIndex = newestFirst.get(end - 1).index();
    while (end < newestFirst.size() && newestFirst.get(end).index() == cutIndex) {
      end++;
    }
    return new Slice(List.copyOf(newestFirst.subList(0, end)), cutIndex, false);
  }

  /** Every change with index above this is held. */
  public synchronized long floorIndex() {
    return floorIndex;
  }

  /** Changes held now. */
  public synchronized int size() {
    return held.size();
  }

  /** Changes dropped to stay within the bounds since start. */
  public synchronized long dropped() {
    return dropped;
  }

  /** Watches waiting for a change now. */
  public synchronized int waiting() {
    return waiters.values().stream().mapToInt(List::size).sum();
  }
}
