package dev.ration.client.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The worked example in docs/POOL.md, compiled and run: a job that calls a downstream over a
 * real socket, passes its cancellation token to the socket (closing it on cancel), treats I/O
 * errors as retryable, and a caller that honours Overloaded. The tagged region
 * pool-worked-example is what the doc shows (the examples module's DocsSnippetTest checks it).
 */
class PoolExampleTest {
  @Test
  void workedExample() throws Exception {
    try (ServerSocket downstream = new ServerSocket(0)) {
      Thread server = new Thread(() -> serveOneByteAnswers(downstream));
      server.setDaemon(true);
      server.start();
      int port = downstream.getLocalPort();

      // tag::pool-worked-example[]
      WorkerPool pool = new WorkerPool(
          PoolOptions.of(4, 100).withRetries(3, Duration.ofMillis(50), Duration.ofSeconds(2)),
          SlotSource.fixed(4))
          .classifyingFailuresWith(failure -> failure instanceof IOException);

      Job<Integer> callDownstream = attempt -> {
        try (Socket socket = new Socket();
             CancellationToken.Registration onCancel = attempt.token().onCancel(() -> closeQuietly(socket))) {
          socket.connect(new InetSocketAddress("localhost", port), 1_000);
          socket.setSoTimeout(1_000);
          socket.getOutputStream().write(1);
          int answer = socket.getInputStream().read(); // unblocked by close() if cancelled
          attempt.token().throwIfCancelled();
          if (answer < 0) {
            throw new IOException("downstream closed without an answer");
          }
          return answer;
        }
      };

      List<JobHandle<Integer>> handles = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Instant deadline = Instant.now().plusSeconds(10);
        SubmitResult<Integer> r = pool.submit(callDownstream, deadline, Duration.ofMillis(200));
        if (r instanceof SubmitResult.Accepted<Integer> a) {
          handles.add(a.handle());
        } else if (r instanceof SubmitResult.Rejected<Integer> rejected) {
          throw new IllegalStateException(rejected.detail());
        }
        // Overloaded: shed this call, or offer it again after its retryAfter().
      }
      int sum = 0;
      for (JobHandle<Integer> h : handles) {
        JobResult<Integer> result = h.result().get();
        if (result.state() == JobState.SUCCEEDED) {
          sum += result.value().orElseThrow();
        }
      }
      ShutdownReport report = pool.shutdown(Instant.now().plusSeconds(5), ShutdownPolicy.DRAIN);
      // end::pool-worked-example[]

      assertEquals(10, handles.size());
      assertEquals(10 * 42, sum);
      assertEquals(List.of(), report.abandoned());
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Closing is how we abort the read; a failure to close leaves nothing further to do.
    }
  }

  /** The downstream: reads one byte per connection and answers 42. */
  private static void serveOneByteAnswers(ServerSocket server) {
    while (!server.isClosed()) {
      try (Socket s = server.accept()) {
        InputStream in = s.getInputStream();
        if (in.read() >= 0) {
          s.getOutputStream().write(42);
        }
      } catch (IOException e) {
        return;
      }
    }
  }
}
