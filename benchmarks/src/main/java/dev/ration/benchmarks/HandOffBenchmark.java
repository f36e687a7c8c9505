package dev.ration.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What one thread hand-off costs on this machine: the floor under every step of a replicated
 * command that moves work from one thread to another (endpoint, proposer, Raft log worker,
 * appenders, gRPC event loops and executors, state-machine updater, reply). Two shapes, each a
 * round trip of two hand-offs between the benchmark thread and a partner thread that sleeps
 * between messages, as Ratis's threads do at low load:
 * <ul>
 *   <li>{@code parkUnpark}: wake the partner with {@link LockSupport#unpark}, park until it wakes
 *       us back (the futex path of every Java queue and future);
 *   <li>{@code loopbackTcp}: one byte over a loopback TCP connection and one back, blocking reads
 *       (the kernel path of a message between two processes on one host).
 * </ul>
 * Each iteration also prints the process CPU (user + system, all threads) per round trip, because
 * on a virtual machine a context switch can cost far more CPU than its wall time suggests.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HandOffBenchmark {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private volatile Thread caller;
  private volatile boolean running;
  // Sequence numbers rather than flags: a spurious wake-up of park must not count as an answer.
  private volatile long asked;
  private volatile long answered;
  private Thread parkPartner;

  private Socket client;
  private InputStream clientIn;
  private OutputStream clientOut;
  private Thread tcpPartner;
  private ServerSocket listener;

  private long roundTrips;
  private long cpuAtStart;

  @Setup(Level.Trial)
  public void start() throws IOException {
    running = true;
    caller = null;
    parkPartner = new Thread(this::echoByUnpark, "handoff-park-partner");
    parkPartner.setDaemon(true);
    parkPartner.start();

    listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    tcpPartner = new Thread(this::echoOverTcp, "handoff-tcp-partner");
    tcpPartner.setDaemon(true);
    tcpPartner.start();
    client = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    client.setTcpNoDelay(true);
    clientIn = client.getInputStream();
    clientOut = client.getOutputStream();
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException, InterruptedException {
    running = false;
    LockSupport.unpark(parkPartner);
    client.close();
    listener.close();
    parkPartner.join(5_000);
    tcpPartner.join(5_000);
  }

  @Setup(Level.Iteration)
  public void startCpuWindow() {
    roundTrips = 0;
    cpuAtStart = OS.getProcessCpuTime();
  }

  @TearDown(Level.Iteration)
  public void reportCpu() {
    long cpu = OS.getProcessCpuTime() - cpuAtStart;
    if (roundTrips > 0) {
      System.out.printf("%n  process CPU per round trip: %.1f µs (%,d round trips)%n",
          cpu / 1_000.0 / roundTrips, roundTrips);
    }
  }

  @Benchmark
  public long parkUnpark() {
    caller = Thread.currentThread();
    long ask = asked + 1;
    asked = ask;
    LockSupport.unpark(parkPartner);
    while (answered != ask) {
      LockSupport.park(this);
    }
    roundTrips++;
    return ask;
  }

  @Benchmark
  public int loopbackTcp() throws IOException {
    clientOut.write(1);
    int b = clientIn.read();
    if (b != 1) {
      throw new IOException("partner closed the connection");
    }
    roundTrips++;
    return b;
  }

  private void echoByUnpark() {
    long seen = 0;
    while (running) {
      long ask = asked;
      if (ask == seen) {
        LockSupport.park(this);
        continue;
      }
      seen = ask;
      answered = ask;
      LockSupport.unpark(caller);
    }
  }

  private void echoOverTcp() {
    try (Socket s = listener.accept()) {
      s.setTcpNoDelay(true);
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        out.write(b);
      }
    } catch (IOException e) {
      if (running) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
