package dev.ration.server.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * Goal: a log line says when, how bad, which node and where in the log, in text or JSON; the
 * settings come from the documented places in the documented order, and a bad value is
 * reported, not silently used.
 */
class LogFormatTest {
  static final long T = 1_764_648_386_123L; // 2025-12-02T04:06:26.123Z

  @Test
  void textLineHasTimeLevelNodeTermAndCommit() {
    String line = LogLine.format(false, T, Level.INFO, "n1", new long[] {3, 1234}, "main",
        "dev.ration.server.RationNode", "event=node_started node=n1", null);
    assertEquals("2025-12-02T04:06:26.123Z INFO  node=n1 term=3 commit=1234 [main] dev.ration.server.RationNode"
        + " - event=node_started node=n1\n", line);
    assertEquals("2025-12-02T04:06:26.123Z ERROR [main] x - boom\n",
        LogLine.format(false, T, Level.ERROR, "", null, "main", "x", "boom", null));
  }

  @Test
  void jsonLineHasTheSameFieldsEscaped() {
    String line = LogLine.format(true, T, Level.WARN, "n2", new long[] {5, 9}, "t\"1", "x.Y",
        "a \"quoted\"\nline\\", new IllegalStateException("bad"));
    assertTrue(line.startsWith("{\"time\":\"2025-12-02T04:06:26.123Z\",\"level\":\"WARN\",\"node\":\"n2\","
        + "\"term\":5,\"commit\":9,\"thread\":\"t\\\"1\",\"logger\":\"x.Y\",\"message\":\"a \\\"quoted\\\"\\nline\\\\\","
        + "\"error\":\"java.lang.IllegalStateException: bad\\n"), line);
    assertTrue(line.endsWith("}\n"), line);
    assertEquals(1, line.chars().filter(c -> c == '\n').count(), "one physical line: " + line);
  }

  @Test
  void settingsComeFromPropertiesThenEnvironmentThenFile() {
    Properties file = new Properties();
    file.setProperty("format", "json");
    file.setProperty("level", "warn");
    LogSettings fromFile = LogSettings.resolve(Map.of(), new Properties(), file);
    assertTrue(fromFile.json());
    assertEquals(Level.WARN, fromFile.rootLevel());

    LogSettings fromEnv = LogSettings.resolve(
        Map.of("RATION_LOG_FORMAT", "text", "RATION_LOG_LEVEL", "info,org.apache.ratis=warn,dev.ration.server.endpoint=debug"),
        new Properties(), file);
    assertFalse(fromEnv.json());
    assertEquals(Level.INFO, fromEnv.levelOf("dev.ration.server.RationNode"));
    assertEquals(Level.WARN, fromEnv.levelOf("org.apache.ratis.server.impl.RaftServerImpl"));
    assertEquals(Level.DEBUG, fromEnv.levelOf("dev.ration.server.endpoint.ConnectionHandler"));
    assertEquals(Level.INFO, fromEnv.levelOf("org.apache.ratisfoo.X"), "a prefix matches whole name segments");

    Properties system = new Properties();
    system.setProperty("ration.log.format", "json");
    assertTrue(LogSettings.resolve(Map.of("RATION_LOG_FORMAT", "text"), system, new Properties()).json());

    LogSettings none = LogSettings.resolve(Map.of(), new Properties(), new Properties());
    assertFalse(none.json());
    assertEquals(Level.INFO, none.rootLevel());
    assertEquals("", none.error());
  }

  @Test
  void aBadValueIsReportedByName() {
    LogSettings s = LogSettings.resolve(Map.of("RATION_LOG_FORMAT", "yaml", "RATION_LOG_LEVEL", "loud"),
        new Properties(), new Properties());
    assertTrue(s.error().contains("log format must be text or json, not 'yaml'"), s.error());
    assertTrue(s.error().contains("log level must be trace, debug, info, warn or error, not 'loud'"), s.error());
  }
}
