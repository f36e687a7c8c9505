package dev.ration.server.observability;

import dev.ration.server.consensus.NodeStatus;
import dev.ration.server.consensus.Peer;

/** Renders {@link NodeStatus} as JSON for /status, without a JSON library. Stateless. */
public final class StatusJson {
  private StatusJson() {}

  public static String render(NodeStatus s) {
    StringBuilder b = new StringBuilder(256);
    b.append('{');
    field(b, "nodeId", s.nodeId()).append(',');
    field(b, "role", s.role()).append(',');
    field(b, "term", s.term()).append(',');
    field(b, "commitIndex", s.commitIndex()).append(',');
    field(b, "appliedIndex", s.appliedIndex()).append(',');
    field(b, "leaderId", s.leaderId()).append(',');
    field(b, "leaderClientAddress", s.leaderClientAddress()).append(',');
    field(b, "ledgerNowMillis", s.ledgerNowMillis()).append(',');
    field(b, "epoch", s.epoch()).append(',');
    field(b, "queueDepth", s.queueDepth()).append(',');
    b.append("\"peers\":[");
    for (int i = 0; i < s.peers().size(); i++) {
      Peer p = s.peers().get(i);
      if (i > 0) {
        b.append(',');
      }
      b.append('{');
      field(b, "id", p.id()).append(',');
      field(b, "raftAddress", p.raftAddress()).append(',');
      field(b, "clientAddress", p.clientAddress()).append(',');
      field(b, "adminAddress", p.adminAddress());
      b.append('}');
    }
    b.append("],");
    strings(b, "listeners", s.listeners()).append(',');
    field(b, "configMismatch", s.configMismatch()).append(',');
    strings(b, "upToDate", s.upToDate());
    b.append('}');
    return b.toString();
  }

  private static StringBuilder strings(StringBuilder b, String name, java.util.List<String> values) {
    b.append('"').append(name).append("\":[");
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      string(b, values.get(i));
    }
    return b.append(']');
  }

  private static StringBuilder field(StringBuilder b, String name, long value) {
    return b.append('"').append(name).append("\":").append(value);
  }

  private static StringBuilder field(StringBuilder b, String name, String value) {
    b.append('"').append(name).append("\":");
    return string(b, value == null ? "" : value);
  }

  static StringBuilder string(StringBuilder b, String v) {
    return JsonStrings.quote(b, v);
  }
}
