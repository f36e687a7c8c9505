package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Goal: the backoff cap doubles per retry up to the max, and a retry-after hint wins when longer. */
class BackoffTest {
  @Test
  void capDoublesThenSaturates() {
    Backoff top = new Backoff(10, 1000, bound -> bound); // always the cap
    assertEquals(10, top.delayMillis(0, 0));
    assertEquals(20, top.delayMillis(1, 0));
    assertEquals(640, top.delayMillis(6, 0));
    assertEquals(1000, top.delayMillis(7, 0));
    assertEquals(1000, top.delayMillis(200, 0));
    Backoff zero = new Backoff(10, 1000, bound -> 0); // full jitter may pick 0
    assertEquals(0, zero.delayMillis(5, 0));
    assertEquals(250, zero.delayMillis(5, 250));
  }
}
