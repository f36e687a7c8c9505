package dev.ration.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Durations in the client's failure messages read as the CLI and the docs write them. */
class ConnectionMessagesTest {
  @Test
  void durationsAreWrittenAsPeopleWriteThem() {
    assertEquals("3s", Connection.humanDuration(Duration.ofSeconds(3)));
    assertEquals("250ms", Connection.humanDuration(Duration.ofMillis(250)));
    assertEquals("1.5s", Connection.humanDuration(Duration.ofMillis(1500)));
    assertEquals("15s", Connection.humanDuration(Duration.ofSeconds(15)));
    assertEquals("2m", Connection.humanDuration(Duration.ofMinutes(2)));
    assertEquals("90s", Connection.humanDuration(Duration.ofSeconds(90)));
  }
}
