package dev.ration.client.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.testkit.Waits;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Micrometer binder publishes the pool's numbers, and the pool itself loads and runs with
 * no Micrometer on the class path (it is an optional dependency of the client).
 */
class WorkerPoolMetricsTest {
  static final Waits WAIT = Waits.upTo(Duration.ofSeconds(20)).every(Duration.ofMillis(5));

  @Test
  void binderPublishesGaugesCountersAndRunTime() throws Exception {
    WorkerPool pool = new WorkerPool(PoolOptions.of(1, 1), SlotSource.fixed(1));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new WorkerPoolMetrics(pool, "payments").bindTo(registry);
    CountDownLatch gate = new CountDownLatch(1);
    try {
      WorkerPoolTest.accepted(pool.submit(a -> "ok", Instant.now().plusSeconds(30))).result().get(10, TimeUnit.SECONDS);
      WorkerPoolTest.accepted(pool.submit(a -> {
        gate.await();
        return "ok";
      }, Instant.now().plusSeconds(30)));
      WAIT.until("one runs", () -> pool.stats().running(), n -> n == 1);
      WorkerPoolTest.accepted(pool.submit(a -> "queued", Instant.now().plusSeconds(30)));
      pool.submit(a -> "overloaded", Instant.now().plusSeconds(30));
      pool.submit(a -> "rejected", Instant.now().minusSeconds(1));

      assertEquals(1.0, gauge(registry, "ration.pool.queue.depth"));
      assertEquals(1.0, gauge(registry, "ration.pool.workers.active"));
      assertEquals(1.0, gauge(registry, "ration.pool.utilization"));
      assertEquals(1.0, gauge(registry, "ration.pool.slots.held"));
      assertEquals(1.0, gauge(registry, "ration.pool.slots.used"));
      assertTrue(gauge(registry, "ration.pool.queue.oldest.age") >= 0.0);
      assertEquals(3.0, jobs(registry, "accepted"));
      assertEquals(1.0, jobs(registry, "overloaded"));
      assertEquals(1.0, jobs(registry, "rejected"));
      assertEquals(1.0, jobs(registry, "succeeded"));
      assertEquals(1L, registry.get("ration.pool.run").tag("pool", "payments").functionTimer().count());
    } finally {
      gate.countDown();
      pool.shutdown(Instant.now().plusSeconds(10), ShutdownPolicy.DRAIN);
    }
    assertEquals(3.0, jobs(registry, "succeeded"));
    assertEquals(0.0, registry.get("ration.pool.overruns").functionCounter().count());
  }

  private static double gauge(SimpleMeterRegistry registry, String name) {
    return registry.get(name).tag("pool", "payments").gauge().value();
  }

  private static double jobs(SimpleMeterRegistry registry, String outcome) {
    return registry.get("ration.pool.jobs").tag("pool", "payments").tag("outcome", outcome).functionCounter().count();
  }

  /**
   * Loads the pool's classes from the client's compiled classes and its one required
   * dependency the pool uses (the SLF4J API, for the pool's warnings), in a class loader whose
   * parent is the platform loader (no Micrometer, no Netty, nothing else from the test class
   * path), and runs a job through it: using the pool must never touch the optional dependency.
   */
  @Test
  void thePoolRunsWithoutMicrometerOnTheClassPath() throws Exception {
    URL classes = WorkerPool.class.getProtectionDomain().getCodeSource().getLocation();
    URL slf4j = org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader isolated = new URLClassLoader(new URL[] {classes, slf4j}, ClassLoader.getPlatformClassLoader())) {
      assertThrows(ClassNotFoundException.class,
          () -> Class.forName("io.micrometer.core.instrument.MeterRegistry", false, isolated),
          "the isolated loader can see Micrometer, so this test would prove nothing");
      Class<?> poolClass = Class.forName("dev.ration.client.pool.WorkerPool", true, isolated);
      Class<?> optionsClass = Class.forName("dev.ration.client.pool.PoolOptions", true, isolated);
      Class<?> sourceClass = Class.forName("dev.ration.client.pool.SlotSource", true, isolated);
      Class<?> jobClass = Class.forName("dev.ration.client.pool.Job", true, isolated);
      Object options = optionsClass.getMethod("of", int.class, int.class).invoke(null, 2, 2);
      Object source = sourceClass.getMethod("fixed", int.class).invoke(null, 2);
      Object pool = poolClass.getConstructor(optionsClass, sourceClass).newInstance(options, source);
      InvocationHandler returnsHello = (Object proxy, Method m, Object[] args) -> switch (m.getName()) {
        case "run" -> "hello";
        case "hashCode" -> System.identityHashCode(proxy);
        case "equals" -> proxy == args[0];
        default -> "job";
      };
      Object job = Proxy.newProxyInstance(isolated, new Class<?>[] {jobClass}, returnsHello);
      Object submitted = poolClass.getMethod("submit", jobClass, Instant.class)
          .invoke(pool, job, Instant.now().plusSeconds(30));
      Object handle = submitted.getClass().getMethod("handle").invoke(submitted);
      Method result = Class.forName("dev.ration.client.pool.JobHandle", true, isolated).getMethod("result");
      Object jobResult = ((CompletableFuture<?>) result.invoke(handle)).get(10, TimeUnit.SECONDS);
      assertEquals("SUCCEEDED", jobResult.getClass().getMethod("state").invoke(jobResult).toString());
      Class<?> policy = Class.forName("dev.ration.client.pool.ShutdownPolicy", true, isolated);
      poolClass.getMethod("shutdown", Instant.class, policy)
          .invoke(pool, Instant.now().plusSeconds(10), policy.getField("DRAIN").get(null));
      assertEquals(isolated, poolClass.getClassLoader());
    }
  }
}
