package dev.ration.examples;

import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.limiter.LimiterOptions;
import dev.ration.client.quota.QuotaRefusedException;
import dev.ration.client.quota.Reservation;
import dev.ration.client.ttl.Lock;
import dev.ration.http.RateLimitFilter;
import dev.ration.http.RateLimitHeaders;
import dev.ration.http.TenantLimiters;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A small HTTP service in front of a Ration cluster (docs/CLIENT.md, "Examples"):
 *
 * <ul>
 *   <li>every {@code /api/*} request is admitted through its tenant's regional limiter on the
 *       limit (tenant, {@code api}); the tenant is the bearer token ("Authorization: Bearer
 *       acme"), a stand-in for real authentication;
 *   <li>{@code POST /api/jobs?jobs=N} with an {@code Idempotency-Key} header reserves N of the
 *       quota {@code jobs} at scope {@code <tenant>/web} under that key, so a client that
 *       retries after a lost answer gets the same reservation, not a second one; a refusal is a
 *       429 with Retry-After;
 *   <li>{@code POST /api/lock?name=X&owner=O} takes the lock X for 30 s and answers its
 *       fencing token (409 when somebody else holds it).
 * </ul>
 *
 * <p>Run it: {@code java -cp ... dev.ration.examples.JobService [port]} with {@code
 * RATION_SERVERS} naming the cluster (default the local 3-node cluster).
 */
public final class JobService implements AutoCloseable {
  private final TenantLimiters limiters;
  private final Server jetty;
  private final int port;

  private JobService(TenantLimiters limiters, Server jetty, int port) {
    this.limiters = limiters;
    this.jetty = jetty;
    this.port = port;
  }

  /** Starts the service on 127.0.0.1:{@code port} (0: any free port) over {@code client}. */
  public static JobService start(RationClient client, int port) throws Exception {
    TenantLimiters limiters = new TenantLimiters(client, "api", "job-service-" + ProcessHandle.current().pid(),
        LimiterOptions.defaults(), 1_000);
    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    Filter bearer = (req, resp, chain) -> {
      String a = ((HttpServletRequest) req).getHeader("Authorization");
      if (a != null && a.startsWith("Bearer ") && a.length() > "Bearer ".length()) {
        req.setAttribute(RateLimitFilter.DEFAULT_TENANT_ATTRIBUTE, a.substring("Bearer ".length()));
      }
      chain.doFilter(req, resp);
    };
    context.addFilter(new FilterHolder(bearer), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addFilter(new FilterHolder(RateLimitFilter.builder(limiters, "api").build()), "/api/*",
        EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(new Hello()), "/api/hello");
    context.addServlet(new ServletHolder(new Jobs(client)), "/api/jobs");
    context.addServlet(new ServletHolder(new Locks(client)), "/api/lock");
    jetty.setHandler(context);
    jetty.start();
    return new JobService(limiters, jetty, connector.getLocalPort());
  }

  /** The port the service listens on. */
  public int port() {
    return port;
  }

  @Override
  public void close() throws Exception {
    jetty.stop();
    limiters.close();
  }

  private static String tenant(HttpServletRequest req) {
    return (String) req.getAttribute(RateLimitFilter.DEFAULT_TENANT_ATTRIBUTE);
  }

  private static final class Hello extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      resp.setContentType("text/plain; charset=utf-8");
      resp.getWriter().println("hello " + tenant(req));
    }
  }

  private static final class Jobs extends HttpServlet {
    private final RationClient client;

    Jobs(RationClient client) {
      this.client = client;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      String key = req.getHeader("Idempotency-Key");
      long jobs;
      try {
        jobs = Long.parseLong(String.valueOf(req.getParameter("jobs")));
      } catch (NumberFormatException e) {
        resp.sendError(400, "jobs=N (a whole number) is required");
        return;
      }
      if (key == null || key.isBlank()) {
        resp.sendError(400, "an Idempotency-Key header is required");
        return;
      }
      try {
        // Held until the job is done; here the job is the request, so it is settled at once.
        Reservation r = client.quotas().reserve(tenant(req) + "/web", "jobs", jobs, Duration.ofMinutes(1), key);
        resp.setStatus(201);
        resp.setContentType("text/plain; charset=utf-8");
        resp.getWriter().println("reservation " + r.reservationId());
      } catch (QuotaRefusedException e) {
        RateLimitHeaders.refuse(resp, e);
      }
    }
  }

  private static final class Locks extends HttpServlet {
    private final RationClient client;

    Locks(RationClient client) {
      this.client = client;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      String name = req.getParameter("name");
      String owner = req.getParameter("owner");
      if (name == null || name.isBlank() || owner == null || owner.isBlank()) {
        resp.sendError(400, "name and owner are required");
        return;
      }
      Optional<Lock> lock = client.ttl().tryLock(tenant(req) + "." + name, owner, Duration.ofSeconds(30));
      if (lock.isEmpty()) {
        resp.sendError(409, "lock " + name + " is held by somebody else");
        return;
      }
      // A writer passes the token along; storage rejects writes with a token older than the last.
      resp.setContentType("text/plain; charset=utf-8");
      resp.getWriter().println("fencing token " + lock.get().fencingToken());
    }
  }

  /** Runs the service until the process is stopped. */
  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
    String servers = Optional.ofNullable(System.getenv("RATION_SERVERS"))
        .orElse("127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103");
    List<String> addresses = Arrays.stream(servers.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    RationClientOptions.Builder options = RationClientOptions.builder().addresses(addresses);
    // The local cluster runs with TLS: trust its CA and present the certificate
    // scripts/cluster.sh made, where the CLI finds them too (docs/SECURITY.md).
    java.nio.file.Path certs = Optional.ofNullable(System.getenv("RATION_CERTS_DIR")).map(java.nio.file.Path::of)
        .orElse(java.nio.file.Path.of(System.getProperty("user.home"), ".ration", "certs"));
    if (java.nio.file.Files.exists(certs.resolve("ca.crt"))) {
      options.tls(dev.ration.client.tls.ClientTls.trusting(certs.resolve("ca.crt"))
          .withKeyPair(certs.resolve("client.admin.crt"), certs.resolve("client.admin.key")));
    }
    RationClient client = new RationClient(options.build());
    JobService service = start(client, port);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        service.close();
      } catch (Exception e) {
        System.err.println("stopping: " + e);
      }
      client.close();
    }));
    System.out.println("job service on http://127.0.0.1:" + service.port() + " (cluster " + servers + ")");
    Thread.currentThread().join();
  }
}
