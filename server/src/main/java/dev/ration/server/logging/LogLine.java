package dev.ration.server.logging;

import dev.ration.server.observability.JsonStrings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.slf4j.event.Level;

/**
 * One log event as one line: text ({@code 2026-12-02T04:06:26.123Z INFO  node=n1 term=3
 * commit=1234 [main] dev.ration.server.RationNode - event=node_started ...}) or a JSON object
 * with the same fields ({@code time, level, node, term, commit, thread, logger, message, error}).
 * A stack trace follows a text line on its own lines; in JSON it is the {@code error} string.
 */
final class LogLine {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private LogLine() {}

  static String format(boolean json, long epochMillis, Level level, String node, long[] raft,
      String thread, String logger, String message, Throwable error) {
    String time = TIME.format(Instant.ofEpochMilli(epochMillis));
    StringBuilder b = new StringBuilder(160);
    if (json) {
      b.append("{\"time\":\"").append(time).append("\",\"level\":\"").append(level.name()).append('"');
      if (!node.isEmpty()) {
        b.append(",\"node\":");
        JsonStrings.quote(b, node);
      }
      if (raft != null) {
        b.append(",\"term\":").append(raft[0]).append(",\"commit\":").append(raft[1]);
      }
      b.append(",\"thread\":");
      JsonStrings.quote(b, thread);
      b.append(",\"logger\":");
      JsonStrings.quote(b, logger);
      b.append(",\"message\":");
      JsonStrings.quote(b, message);
      if (error != null) {
        b.append(",\"error\":");
        JsonStrings.quote(b, stackTrace(error));
      }
      b.append("}\n");
    } else {
      b.append(time).append(' ').append(level.name());
      b.append(level.name().length() == 4 ? "  " : " ");
      if (!node.isEmpty()) {
        b.append("node=").append(node).append(' ');
      }
      if (raft != null) {
        b.append("term=").append(raft[0]).append(" commit=").append(raft[1]).append(' ');
      }
      b.append('[').append(thread).append("] ").append(logger).append(" - ").append(message).append('\n');
      if (error != null) {
        b.append(stackTrace(error));
      }
    }
    return b.toString();
  }

  private static String stackTrace(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return w.toString();
  }
}
