package dev.ration.examples;

import dev.ration.client.RationClient;
import dev.ration.client.pool.PoolOptions;
import dev.ration.client.pool.ShutdownPolicy;
import dev.ration.client.pool.SlotSource;
import dev.ration.client.pool.WorkerPool;
import dev.ration.client.slots.LeasedSlots;
import java.time.Instant;

/**
 * The short Java snippets of docs/POOL.md, compiled (tagged regions, checked by
 * {@code DocsSnippetTest}). The worked example there is a tagged region of the client's
 * {@code PoolExampleTest}, which also runs it against a real socket.
 */
public final class PoolSnippets {
  private PoolSnippets() {}

  static WorkerPool fixedPool() {
    // tag::pool-fixed[]
    WorkerPool pool = new WorkerPool(PoolOptions.of(20, 200), SlotSource.fixed(20));
    // end::pool-fixed[]
    return pool;
  }

  static void leasedPool() throws InterruptedException {
    // tag::pool-leased[]
    // once, by an operator: C = 40 jobs at once against the database, over every pool
    //   bin/ration limit set --tenant acme --resource db --rate 0 --burst 0 --policy fair-share --concurrency 40
    RationClient client = RationClient.connect("10.0.0.1:7101", "10.0.0.2:7101", "10.0.0.3:7101");
    LeasedSlots slots = client.leasedSlots("acme", "db", "billing-7f9c", 20); // W = 20
    WorkerPool pool = new WorkerPool(PoolOptions.of(20, 200), slots);
    // ... submit jobs as with any pool ...
    pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.DRAIN);
    slots.close();   // returns the lease: its slots are free for the other pools at once
    // end::pool-leased[]
    client.close();
  }
}
