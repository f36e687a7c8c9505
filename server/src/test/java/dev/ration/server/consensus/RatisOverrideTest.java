package dev.ration.server.consensus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;

/** -Dration.ratis.KEY=VALUE reaches Ratis as KEY; other keys are refused. */
class RatisOverrideTest {
  @Test
  void anOverrideReplacesTheSettingRatisReads() {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.valueOf(1, java.util.concurrent.TimeUnit.MILLISECONDS));
    Properties system = new Properties();
    system.setProperty("ration.ratis.raft.server.log.appender.wait-time.min", "0ms");
    system.setProperty("ration.ratis.raft.server.log.append-entries.compose.enabled", "false");
    system.setProperty("unrelated.property", "x");
    ConsensusNode.overrideFromSystemProperties(p, system);
    assertEquals(0, RaftServerConfigKeys.Log.Appender.waitTimeMin(p).toLong(java.util.concurrent.TimeUnit.NANOSECONDS));
    assertEquals("false", p.get("raft.server.log.append-entries.compose.enabled"));
    assertEquals(null, p.get("unrelated.property"));
  }

  @Test
  void aKeyOutsideRaftIsRefused() {
    Properties system = new Properties();
    system.setProperty("ration.ratis.server.log.appender.wait-time.min", "0ms");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ConsensusNode.overrideFromSystemProperties(new RaftProperties(), system));
    assertTrue(e.getMessage().contains("raft.*"), e.getMessage());
  }

  @Test
  void theNettyTransportRunsOnlyInPlaintext() {
    RaftProperties p = new RaftProperties();
    assertEquals("GRPC", ConsensusNode.rpcType(p, null), "gRPC by default");
    p.set("raft.rpc.type", "NETTY");
    assertEquals("NETTY", ConsensusNode.rpcType(p, null));
    GrpcTlsConfig tls = new GrpcTlsConfig((java.io.File) null, null, null, false);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ConsensusNode.rpcType(p, tls));
    assertTrue(e.getMessage().contains("plaintext"), e.getMessage());
    p.set("raft.rpc.type", "GRPC");
    assertEquals("GRPC", ConsensusNode.rpcType(p, tls), "gRPC under TLS is the shipped setting");
  }
}
