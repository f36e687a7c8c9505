package dev.ration.cli;

import dev.ration.bench.BenchReport;
import dev.ration.bench.ClientTarget;
import dev.ration.bench.LeaseTarget;
import dev.ration.bench.LoadGenerator;
import dev.ration.bench.NearCacheBench;
import dev.ration.bench.LoadPlan;
import dev.ration.bench.RebalanceBench;
import dev.ration.bench.RenewBatchBench;
import dev.ration.bench.ReserveBench;
import dev.ration.bench.SaturationBench;
import dev.ration.bench.KeyLoopBench;
import dev.ration.bench.WarmStartBench;
import dev.ration.bench.Workload;
import dev.ration.client.SetLimitResult;
import dev.ration.wire.Mode;
import dev.ration.client.LimitSpec;
import dev.ration.client.RationClient;
import dev.ration.client.RationClientOptions;
import dev.ration.client.RationException;
import dev.ration.wire.Outcome;
import dev.ration.protocol.Request;
import dev.ration.protocol.Response;
import dev.ration.server.config.Quantities;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * `ration bench`: creates {@code --limits} limits with a huge R and B (so nothing is refused for
 * capacity), then drives a closed-loop load of acquires, renewals or a mix through the client
 * library, and prints throughput and latency of the measured window (table or JSON on stdout,
 * progress on stderr). Stops by itself after warm-up + duration (+ a bounded drain).
 *
 * <p>Exit codes as the other commands: 0 the run measured at least one success; 1 usage;
 * 2 setup refused (e.g. the limit could not be set) or nothing succeeded; 3 the cluster could
 * not be reached during setup.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Load generator: closed-loop acquires/renewals against a running cluster.")
public final class BenchCommand implements Callable<Integer> {
  static final String DEFAULT_SERVERS = "127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103";
  /** R and B of the bench limits: far above anything the generator can grant. */
  static final long HUGE = 1_000_000_000_000L;

  enum Format { table, json }

  @Spec CommandSpec spec;

  @Option(names = "--servers", paramLabel = "HOST:PORT[,HOST:PORT...]", split = ",",
      defaultValue = "${env:RATION_SERVERS:-" + DEFAULT_SERVERS + "}",
      description = "Client addresses of the servers (default: ${DEFAULT-VALUE}; env RATION_SERVERS).")
  List<String> servers = new ArrayList<>();

  @Option(names = "--ca", paramLabel = "FILE",
      description = "PEM CA certificate to trust (default: ca.crt in $RATION_CERTS_DIR or ~/.ration/certs; none: plaintext).")
  java.nio.file.Path ca;

  @Option(names = "--cert", paramLabel = "FILE", description = "PEM client certificate (default: client.admin.crt there).")
  java.nio.file.Path cert;

  @Option(names = "--key", paramLabel = "FILE", description = "PEM PKCS#8 key of --cert (default: client.admin.key there).")
  java.nio.file.Path key;

  @Option(names = "--insecure", description = "Plaintext, ignoring any certificates.")
  boolean insecure;

  @Option(names = "--op", defaultValue = "acquire", paramLabel = "acquire|renew|mixed|ttl-put|ttl-get|limit-get|quota-get|reserve|quota-reserve|quota-budget|budget-holders|renew-batch|renew-slots|warm-start|saturation|rebalance|near-cache",
      converter = WorkloadConverter.class,
      description = "Workload (default: ${DEFAULT-VALUE}); ttl-put/ttl-get drive TTL entries (docs/TTL.md); "
          + "limit-get reads --ttl-keys limits of tenant --ttl-namespace (set first), linearizably; "
          + "quota-get reads --ttl-keys rate quotas of scope --ttl-namespace (set first), linearizably; "
          + "renew-batch / renew-slots renew many rate / slot leases per frame; "
          + "warm-start times rateLimiter(...) to the first admitted request, --runs times; "
          + "saturation measures capacity with TTL puts, then offers --steps multiples of it, open loop; "
          + "rebalance moves all demand from one region to another and times how fast capacity follows; "
          + "near-cache times a near cache's gets from memory and, --runs times, a put to its notification; "
          + "quota-reserve / quota-budget admit one stream of quota checks (3 levels) through blocking "
          + "tryReserve + complete calls / a QuotaLimiter's budgets (docs/QUOTAS.md); "
          + "budget-holders keeps --holders × --pairs budgets held and renewed by their limiters.")
  Workload workload;

  @Option(names = "--steps", defaultValue = "0.5,1,1.5,2", split = ",", paramLabel = "M[,M...]",
      description = "saturation: offered load of each step, as multiples of the measured capacity, "
          + "each step --duration long (default: ${DEFAULT-VALUE}).")
  List<Double> steps;

  @Option(names = "--namespaces", defaultValue = "32", paramLabel = "N",
      description = "saturation: TTL namespaces (tenants) the puts go round-robin over, 1..1024 (default: ${DEFAULT-VALUE}).")
  int namespaces;

  @Option(names = "--batch-size", defaultValue = "1000", paramLabel = "N",
      description = "renew-batch, renew-slots: renewals per RENEW_LEASES / RENEW_SLOTS frame, 1..4096 (default: ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(names = "--leases", defaultValue = "20000", paramLabel = "N",
      description = "renew-batch, renew-slots: leases acquired first and renewed in turn (default: ${DEFAULT-VALUE}).")
  int leases;

  @Option(names = "--runs", paramLabel = "N",
      description = "warm-start, rebalance: runs, one after another (default: 10 for warm-start, 3 for rebalance).")
  Integer runsGiven;

  @Option(names = "--rebalance-kinds", defaultValue = "rate,slots", split = ",", paramLabel = "rate|slots",
      description = "rebalance: what to move, rate shares, concurrency slots or both (default: ${DEFAULT-VALUE}).")
  List<String> rebalanceKinds;

  @Option(names = "--holders", defaultValue = "100", paramLabel = "H",
      description = "budget-holders: quota limiters, 1..1000 (default: ${DEFAULT-VALUE}).")
  int budgetHolders;

  @Option(names = "--pairs", defaultValue = "100", paramLabel = "P",
      description = "budget-holders: projects (budgets) per holder, 1..1000 (default: ${DEFAULT-VALUE}).")
  int budgetPairs;

  @Option(names = "--checks-per-second", defaultValue = "1000", paramLabel = "N",
      description = "budget-holders: quota checks per second over all budgets, 1..1000000 (default: ${DEFAULT-VALUE}).")
  long budgetChecks;

  @Option(names = "--rate", defaultValue = "1000", paramLabel = "R",
      description = "rebalance: the limit's rate per second (default: ${DEFAULT-VALUE}).")
  long rebalanceRate;

  @Option(names = "--burst", defaultValue = "1000", paramLabel = "B",
      description = "rebalance: the limit's burst (default: ${DEFAULT-VALUE}).")
  long rebalanceBurst;

  @Option(names = "--concurrency", defaultValue = "20", paramLabel = "C",
      description = "rebalance: the slot limit's concurrency cap, also each pool's workers (default: ${DEFAULT-VALUE}).")
  long rebalanceConcurrency;

  @Option(names = "--job", defaultValue = "50ms", paramLabel = "DURATION",
      description = "rebalance: how long one slot job runs (default: ${DEFAULT-VALUE}).")
  String jobText;

  @Option(names = "--settle", paramLabel = "DURATION",
      description = "rebalance: how long region A is hot before the move (default: 4 lease durations).")
  String settleText;

  @Option(names = "--observe", paramLabel = "DURATION",
      description = "rebalance: how long the run watches after the move (default: 4 lease durations).")
  String observeText;

  @Option(names = "--ttl-keys", defaultValue = "10000", paramLabel = "N",
      description = "ttl-put/ttl-get/limit-get/quota-get: keys cycled through (default: ${DEFAULT-VALUE}).")
  int ttlKeys;

  @Option(names = "--ttl-value-bytes", defaultValue = "64", paramLabel = "N",
      description = "ttl-put/ttl-get: value size (default: ${DEFAULT-VALUE}).")
  int ttlValueBytes;

  @Option(names = "--ttl", defaultValue = "30s", paramLabel = "DURATION",
      description = "ttl-put: TTL of each put, e.g. 30s, 10m (-1 = no expiry; a bare number is "
          + "milliseconds; default: ${DEFAULT-VALUE}).")
  String ttlText;

  @Option(names = "--ttl-namespace", defaultValue = "bench", description = "ttl-put/ttl-get namespace, limit-get tenant, quota-get scope (default: ${DEFAULT-VALUE}).")
  String ttlNamespace;

  @Option(names = "--renew-ratio", defaultValue = "0.8", paramLabel = "P",
      description = "Mixed workload: fraction of requests that are renewals (default: ${DEFAULT-VALUE}).")
  double renewRatio;

  @Option(names = "--in-flight", defaultValue = "64", paramLabel = "N",
      description = "Requests outstanding at once; each completion issues the next (default: ${DEFAULT-VALUE}).")
  int inFlight;

  @Option(names = "--connections", paramLabel = "C",
      description = "Client instances (one connection and event-loop thread each); default ceil(in-flight/16) capped to 1..4.")
  Integer connections;

  @Option(names = "--duration", defaultValue = "60s", paramLabel = "DURATION",
      description = "Measured window (default: ${DEFAULT-VALUE}).")
  String durationText;

  @Option(names = "--warmup", defaultValue = "60s", paramLabel = "DURATION",
      description = "Warm-up before the window, not measured: the JIT dominates the first minute (default: ${DEFAULT-VALUE}).")
  String warmupText;

  @Option(names = "--limits", defaultValue = "16", paramLabel = "K",
      description = "Number of limits the load is spread over (default: ${DEFAULT-VALUE}).")
  int limits;

  @Option(names = "--reserve-projects", defaultValue = "8", paramLabel = "P",
      description = "reserve, quota-reserve, quota-budget: projects bench/t<slot mod P>/p the slots check; 1 puts every slot on one hot project (default: ${DEFAULT-VALUE}).")
  int reserveProjects;

  @Option(names = "--renewal-frames", defaultValue = "0", paramLabel = "W",
      description = "renew, mixed: 0 sends each renewal in its own RENEW_LEASE frame, as RationClient.renewLease "
          + "does; W > 0 coalesces the renewals of concurrent slots as the limiters' are, sent at once while "
          + "fewer than W frames are outstanding (the limiters use 1) (default: ${DEFAULT-VALUE}).")
  int renewalFrames;

  @Option(names = "--tenant", defaultValue = "bench", description = "Tenant of the bench limits (default: ${DEFAULT-VALUE}).")
  String tenant;

  @Option(names = "--lease-duration", paramLabel = "DURATION",
      description = "Lease duration of the bench limits (default: 2s for acquire, so leases expire and the ledger stays bounded; 60s for renew-batch and renew-slots, so acquiring many leases first leaves them live; 10s otherwise).")
  String leaseDurationText;

  @Option(names = "--grace", paramLabel = "DURATION", description = "Grace of the bench limits (default: 500ms for acquire, 1s otherwise).")
  String graceText;

  @Option(names = "--timeout", defaultValue = "5s", paramLabel = "DURATION",
      description = "Deadline of one request including the client's bounded retries (default: ${DEFAULT-VALUE}).")
  String timeoutText;

  @Option(names = "--progress-interval", defaultValue = "5s", paramLabel = "DURATION",
      description = "How often a progress line goes to stderr (default: ${DEFAULT-VALUE}).")
  String progressText;

  @Option(names = "--output", defaultValue = "table", paramLabel = "table|json",
      description = "Output format (default: ${DEFAULT-VALUE}).")
  Format output;

  @Override
  public Integer call() throws InterruptedException {
    Duration duration = duration("--duration", durationText, Duration.ofSeconds(1), Duration.ofHours(24));
    Duration warmup = duration("--warmup", warmupText, Duration.ZERO, Duration.ofHours(24));
    Duration timeout = duration("--timeout", timeoutText, Duration.ofMillis(1), Duration.ofHours(1));
    Duration progressInterval = duration("--progress-interval", progressText, Duration.ofMillis(100), Duration.ofHours(1));
    boolean acquire = workload == Workload.ACQUIRE;
    Duration leaseDuration = duration("--lease-duration",
        leaseDurationText != null ? leaseDurationText
            : acquire ? "2s" : workload == Workload.RENEW_BATCH || workload == Workload.RENEW_SLOTS ? "60s"
                : workload == Workload.REBALANCE ? "3s" : "10s", Duration.ofMillis(100), Duration.ofHours(1));
    Duration grace = duration("--grace", graceText != null ? graceText : acquire ? "500ms" : "1s", Duration.ZERO, leaseDuration);
    if (inFlight < 1 || inFlight > LoadPlan.IN_FLIGHT_MAX) {
      throw usage("--in-flight " + inFlight + " not in [1, " + LoadPlan.IN_FLIGHT_MAX + "]");
    }
    if (limits < 1 || limits > 10_000) {
      throw usage("--limits " + limits + " not in [1, 10000]");
    }
    if (!(renewRatio >= 0 && renewRatio <= 1)) {
      throw usage("--renew-ratio " + renewRatio + " not in [0, 1]");
    }
    int clients = connections != null ? connections : defaultConnections(inFlight);
    if (clients < 1 || clients > 64) {
      throw usage("--connections " + clients + " not in [1, 64]");
    }
    List<String> addresses = servers.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (addresses.isEmpty()) {
      throw usage("--servers: name at least one host:port");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();

    java.util.Optional<dev.ration.client.tls.ClientTls> tls;
    try {
      tls = ClientCredentials.resolve(ca, cert, key, insecure);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
    List<RationClient> opened = new ArrayList<>();
    try {
      for (int i = 0; i < clients; i++) {
        RationClientOptions options;
        try {
          RationClientOptions.Builder b = clientOptions(addresses, timeout, tls)
              .maxInFlightPerConnection(Math.max(1024, inFlight));
          if (workload == Workload.SATURATION) {
            // Every refusal is a figure of the step: a retry would hide it and add load.
            b.maxRetries(0).maxInFlightPerConnection(SaturationBench.MAX_OUTSTANDING);
          }
          options = b.build();
        } catch (IllegalArgumentException e) {
          throw usage("--servers: " + e.getMessage());
        }
        opened.add(new RationClient(options));
      }
      if (workload.isKeyLoop()) {
        long ttlMillis = ttlMillis();
        if (ttlKeys < 1 || ttlKeys > 10_000_000 || ttlValueBytes < 0 || ttlValueBytes > 65_536) {
          throw usage("--ttl-keys 1..10000000, --ttl-value-bytes 0..65536");
        }
        if ((workload == Workload.LIMIT_GET || workload == Workload.QUOTA_GET) && ttlKeys > 10_000) {
          throw usage(workload.option() + ": --ttl-keys 1..10000 (one limit or quota per key)");
        }
        err.printf(Locale.ROOT, "bench: %s, %d in flight over %d connection(s), %d keys, warm-up %s, window %s%n",
            workload.option(), inFlight, clients, ttlKeys,
            Quantities.formatDuration(warmup), Quantities.formatDuration(duration));
        err.flush();
        KeyLoopBench.Result r = new KeyLoopBench(opened, workload, ttlNamespace, inFlight,
            ttlKeys, ttlValueBytes, ttlMillis, System::nanoTime)
            .run(warmup.toNanos(), duration.toNanos(), timeout.plusSeconds(5).toNanos(), err);
        out.print(output == Format.json ? KeyLoopBench.json(r) + "\n" : KeyLoopBench.table(r));
        out.flush();
        return r.ok() == 0 ? Exit.FAILED : Exit.OK;
      }
      if (workload == Workload.SATURATION) {
        if (namespaces < 1 || namespaces > 1024 || steps.isEmpty()
            || steps.stream().anyMatch(m -> !(m > 0 && m <= 10))) {
          throw usage("--namespaces 1..1024, --steps multiples in (0, 10]");
        }
        err.printf(Locale.ROOT, "bench: saturation, capacity probe with %d in flight over %d connection(s), "
                + "then steps %s, each %s, warm-up %s%n", inFlight, clients, steps,
            Quantities.formatDuration(duration), Quantities.formatDuration(warmup));
        err.flush();
        // Set-up goes through a client that follows the leader and retries like any caller's.
        RationClient setup = new RationClient(clientOptions(addresses, timeout.plusSeconds(10), tls).build());
        opened.add(0, setup);
        SaturationBench.Result r = new SaturationBench(setup, opened.subList(1, opened.size()),
            namespaces, inFlight, System::nanoTime).run(steps.stream().mapToDouble(Double::doubleValue).toArray(), warmup.toNanos(),
                duration.toNanos(), timeout.plusSeconds(5).toNanos(), err);
        out.print(output == Format.json ? SaturationBench.json(r) + "\n" : SaturationBench.table(r));
        out.flush();
        // A step in which nothing was applied is a collapse, not a figure: scripts must see it.
        List<String> collapsed = r.steps().stream().filter(s -> s.ok() == 0)
            .map(s -> String.format(Locale.ROOT, "%.2fx", s.multiple())).toList();
        if (!collapsed.isEmpty()) {
          err.println("error: no put applied at offered load " + String.join(", ", collapsed)
              + " of capacity: the server stopped making progress");
          err.flush();
          return Exit.FAILED;
        }
        return Exit.OK;
      }
      if (workload == Workload.RENEW_BATCH || workload == Workload.RENEW_SLOTS) {
        // RENEW_LEASES and RENEW_SLOTS share their bound (LeaseBounds.MAX_RENEWALS_PER_BATCH).
        if (batchSize < 1 || batchSize > Request.RenewLeases.MAX_RENEWALS
            || leases < inFlight || leases > 1_000_000) {
          throw usage("--batch-size 1.." + Request.RenewLeases.MAX_RENEWALS
              + ", --leases from --in-flight to 1000000");
        }
        RenewBatchBench.Leased leased = workload == Workload.RENEW_SLOTS
            ? RenewBatchBench.Leased.SLOTS : RenewBatchBench.Leased.RATE;
        err.printf(Locale.ROOT, "bench: %s, %d batch(es) of %d in flight over %d connection(s), "
                + "%d leases, warm-up %s, window %s%n", leased.op(), inFlight, batchSize, clients, leases,
            Quantities.formatDuration(warmup), Quantities.formatDuration(duration));
        err.flush();
        RenewBatchBench.Result r;
        try {
          r = new RenewBatchBench(leased, opened, tenant, inFlight, leases, batchSize, leaseDuration, grace,
              System::nanoTime).run(warmup.toNanos(), duration.toNanos(), timeout.plusSeconds(5).toNanos(), err);
        } catch (RationException | IllegalStateException | java.util.concurrent.CompletionException e) {
          // Setting the limits or acquiring the leases was refused or failed.
          err.println("error: " + (e instanceof java.util.concurrent.CompletionException && e.getCause() != null
              ? e.getCause().getMessage() : e.getMessage()));
          err.flush();
          return Exit.FAILED;
        }
        out.print(output == Format.json ? RenewBatchBench.json(r) + "\n" : RenewBatchBench.table(r));
        out.flush();
        return r.renewed() == 0 ? Exit.FAILED : Exit.OK;
      }
      if (workload == Workload.REBALANCE) {
        int runs = runsGiven != null ? runsGiven : 3;
        Duration settle = duration("--settle", settleText != null ? settleText
            : (leaseDuration.toMillis() * 4) + "ms", Duration.ofMillis(100), Duration.ofMinutes(10));
        Duration observe = duration("--observe", observeText != null ? observeText
            : (leaseDuration.toMillis() * 4) + "ms", Duration.ofMillis(200), Duration.ofMinutes(10));
        Duration job = duration("--job", jobText, Duration.ofMillis(1), Duration.ofMinutes(1));
        boolean doRate = rebalanceKinds.contains("rate");
        boolean doSlots = rebalanceKinds.contains("slots");
        if (runs < 1 || runs > 100 || rebalanceRate < 1 || rebalanceBurst < 0 || rebalanceConcurrency < 1
            || rebalanceConcurrency > 1_000 || !(doRate || doSlots)
            || rebalanceKinds.stream().anyMatch(k -> !k.equals("rate") && !k.equals("slots"))) {
          throw usage("--runs 1..100, --rate >= 1, --burst >= 0, --concurrency 1..1000, "
              + "--rebalance-kinds rate and/or slots");
        }
        err.printf(Locale.ROOT, "bench: rebalance (%s), %d run(s), R %d/s, B %d, C %d, lease %s, move after %s, watch %s%n",
            String.join(",", rebalanceKinds), runs, rebalanceRate, rebalanceBurst, rebalanceConcurrency,
            Quantities.formatDuration(leaseDuration), Quantities.formatDuration(settle),
            Quantities.formatDuration(observe));
        err.flush();
        // Each region has a client (a connection and event loop) of its own, as two services would.
        RationClient setup = opened.get(0);
        RationClient a = new RationClient(clientOptions(addresses, timeout, tls).build());
        opened.add(a);
        RationClient b = new RationClient(clientOptions(addresses, timeout, tls).build());
        opened.add(b);
        RebalanceBench.Result r;
        try {
          r = new RebalanceBench(setup, a, b, tenant, rebalanceRate, rebalanceBurst, rebalanceConcurrency,
              leaseDuration, job.toMillis(), System::nanoTime).run(runs, settle, observe, doRate, doSlots, err);
        } catch (RationException | IllegalStateException e) {
          err.println("error: " + e.getMessage());
          err.flush();
          return Exit.FAILED;
        }
        out.print(output == Format.json ? RebalanceBench.json(r) + "\n" : RebalanceBench.table(r));
        out.flush();
        return Exit.OK;
      }
      if (workload == Workload.WARM_START) {
        int runs = runsGiven != null ? runsGiven : 10;
        if (runs < 1 || runs > 1_000) {
          throw usage("--runs " + runs + " not in [1, 1000]");
        }
        err.printf(Locale.ROOT, "bench: warm-start, %d run(s), each wait bounded by %s%n", runs,
            Quantities.formatDuration(timeout));
        err.flush();
        WarmStartBench.Result r;
        try {
          r = new WarmStartBench(opened.get(0), tenant, System::nanoTime).run(runs, timeout, err);
        } catch (RationException | IllegalStateException e) {
          err.println("error: " + e.getMessage());
          err.flush();
          return Exit.FAILED;
        }
        out.print(output == Format.json ? WarmStartBench.json(r) + "\n" : WarmStartBench.table(r));
        out.flush();
        return r.admitted() == 0 ? Exit.FAILED : Exit.OK;
      }
      if (workload == Workload.NEAR_CACHE) {
        int runs = runsGiven != null ? runsGiven : 200;
        if (runs < 1 || runs > 100_000) {
          throw usage("--runs " + runs + " not in [1, 100000]");
        }
        err.printf(Locale.ROOT, "bench: near-cache, %d put(s) timed to their notification, each"
            + " wait bounded by %s%n", runs, Quantities.formatDuration(timeout));
        err.flush();
        NearCacheBench.Result r;
        try {
          r = new NearCacheBench(opened.get(0), opened.get(opened.size() - 1), System::nanoTime)
              .run(runs, timeout, err);
        } catch (RationException | IllegalStateException e) {
          err.println("error: " + e.getMessage());
          err.flush();
          return Exit.FAILED;
        }
        out.print(output == Format.json ? NearCacheBench.json(r) + "\n" : NearCacheBench.table(r));
        out.flush();
        return Exit.OK;
      }
      if (workload == Workload.BUDGET_HOLDERS) {
        if (budgetHolders < 1 || budgetHolders > 1000 || budgetPairs < 1 || budgetPairs > 1000
            || budgetChecks < 1 || budgetChecks > 1_000_000) {
          throw usage("--holders and --pairs must be 1..1000 and --checks-per-second 1..1000000");
        }
        err.printf(Locale.ROOT, "bench: budget-holders, %d holders × %d pairs over %d connection(s), %d checks/s, warm-up %s, window %s%n",
            budgetHolders, budgetPairs, clients, budgetChecks, Quantities.formatDuration(warmup),
            Quantities.formatDuration(duration));
        err.flush();
        dev.ration.bench.BudgetHoldersBench.Result r;
        try {
          r = new dev.ration.bench.BudgetHoldersBench(opened, budgetHolders, budgetPairs,
              budgetChecks, System::nanoTime).run(warmup.toNanos(), duration.toNanos(),
                  Duration.ofSeconds(300), err);
        } catch (RationException | IllegalStateException e) {
          err.println("error: " + e.getMessage());
          err.flush();
          return Exit.FAILED;
        }
        out.print(output == Format.json ? dev.ration.bench.BudgetHoldersBench.json(r) + "\n"
            : dev.ration.bench.BudgetHoldersBench.table(r));
        out.flush();
        return r.ok() == 0 ? Exit.FAILED : Exit.OK;
      }
      if (workload == Workload.QUOTA_RESERVE || workload == Workload.QUOTA_BUDGET) {
        if (reserveProjects < 1 || reserveProjects > 1024) {
          throw usage("--reserve-projects must be 1..1024, not " + reserveProjects);
        }
        err.printf(Locale.ROOT, "bench: %s, %d caller(s) over %d connection(s), %d project(s), warm-up %s, window %s%n",
            workload.option(), inFlight, clients, reserveProjects, Quantities.formatDuration(warmup),
            Quantities.formatDuration(duration));
        err.flush();
        dev.ration.bench.QuotaBudgetBench.Result r;
        try {
          r = new dev.ration.bench.QuotaBudgetBench(opened, inFlight, reserveProjects, System::nanoTime)
              .run(workload == Workload.QUOTA_BUDGET, warmup.toNanos(), duration.toNanos(), err);
        } catch (RationException | IllegalStateException e) {
          err.println("error: " + e.getMessage());
          err.flush();
          return Exit.FAILED;
        }
        out.print(output == Format.json ? dev.ration.bench.QuotaBudgetBench.json(r) + "\n"
            : dev.ration.bench.QuotaBudgetBench.table(r));
        out.flush();
        return r.ok() == 0 ? Exit.FAILED : Exit.OK;
      }
      if (workload == Workload.RESERVE) {
        if (reserveProjects < 1 || reserveProjects > 1024) {
          throw usage("--reserve-projects must be 1..1024, not " + reserveProjects);
        }
        err.printf(Locale.ROOT, "bench: reserve, %d in flight over %d connection(s), %d project(s), warm-up %s, window %s%n",
            inFlight, clients, reserveProjects, Quantities.formatDuration(warmup), Quantities.formatDuration(duration));
        err.flush();
        ReserveBench.Result r = new ReserveBench(opened, inFlight, reserveProjects, System::nanoTime)
            .run(warmup.toNanos(), duration.toNanos(), timeout.plusSeconds(5).toNanos(), err);
        out.print(output == Format.json ? ReserveBench.json(r) + "\n" : ReserveBench.table(r));
        out.flush();
        return r.ok() == 0 ? Exit.FAILED : Exit.OK;
      }
      List<String> resources = new ArrayList<>();
      for (int i = 0; i < limits; i++) {
        resources.add(workload.label() + "-" + i);
      }
      int setupFailure = createLimits(opened.get(0), resources, leaseDuration, grace, err);
      if (setupFailure != Exit.OK) {
        return setupFailure;
      }
      if (renewalFrames < 0 || renewalFrames > 64) {
        throw usage("--renewal-frames must be 0..64, not " + renewalFrames);
      }
      List<LeaseTarget> targets = opened.stream().<LeaseTarget>map(c -> ClientTarget.of(c, tenant, renewalFrames)).toList();
      LoadPlan plan = new LoadPlan(workload, renewRatio, inFlight, warmup, duration, resources,
          "bench-" + ProcessHandle.current().pid(), progressInterval, timeout.plusSeconds(5), timeout.plusSeconds(5));
      err.printf(Locale.ROOT, "bench: %s, %d in flight over %d connection(s), %d limit(s), warm-up %s, window %s%n",
          workload.label(), inFlight, clients, limits, Quantities.formatDuration(warmup), Quantities.formatDuration(duration));
      err.flush();
      LoadGenerator.Run run = new LoadGenerator(targets, plan, System::nanoTime, err).run();
      BenchReport.Settings settings = new BenchReport.Settings(workload.label(), renewRatio, inFlight, clients, limits,
          warmup.toMillis() / 1000.0, duration.toMillis() / 1000.0, String.join(",", addresses),
          leaseDuration.toMillis(), grace.toMillis());
      out.print(output == Format.json ? BenchReport.json(settings, run) + "\n" : BenchReport.table(settings, run));
      out.flush();
      if (run.results().succeeded() == 0) {
        err.println("error: no request succeeded in the measured window");
        err.flush();
        return Exit.FAILED;
      }
      return Exit.OK;
    } finally {
      for (RationClient c : opened) {
        c.close();
      }
    }
  }

  /** The options every client of a run starts from: the servers, a deadline and TLS if any. */
  private static RationClientOptions.Builder clientOptions(List<String> addresses, Duration deadline,
      java.util.Optional<dev.ration.client.tls.ClientTls> tls) {
    return RationClientOptions.builder().addresses(addresses).requestDeadline(deadline).tls(tls.orElse(null));
  }

  /** ceil(inFlight / 16), within 1..4: one connection per 16 outstanding requests. */
  /** Parses --op: a name (any case) or its label with '-' for '_' ("ttl-put"). */
  static final class WorkloadConverter implements picocli.CommandLine.ITypeConverter<Workload> {
    @Override
    public Workload convert(String value) {
      return Workload.valueOf(value.trim().replace('-', '_').toUpperCase(Locale.ROOT));
    }
  }

  static int defaultConnections(int inFlight) {
    return Math.max(1, Math.min(4, (inFlight + 15) / 16));
  }

  private int createLimits(RationClient client, List<String> resources, Duration leaseDuration, Duration grace,
      PrintWriter err) {
    for (String resource : resources) {
      LimitSpec spec = LimitSpec.builder(tenant, resource).ratePerSecond(HUGE).burst(HUGE).mode(Mode.HARD)
          .leaseDuration(leaseDuration).grace(grace).build();
      try {
        SetLimitResult reply = client.setLimit(spec);
        if (reply.outcome() != Outcome.SUCCESS) {
          err.println("error: setting limit " + tenant + "/" + resource + ": " + reply.outcome() + " " + reply.message());
          err.flush();
          return Exit.FAILED;
        }
      } catch (RationException e) {
        err.println("error: setting limit " + tenant + "/" + resource + ": " + e.getMessage());
        err.flush();
        return e.definite() ? Exit.FAILED : Exit.INDETERMINATE;
      }
    }
    return Exit.OK;
  }

  private Duration duration(String option, String text, Duration min, Duration max) {
    Duration d;
    try {
      d = Quantities.parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw usage(option + ": " + e.getMessage());
    }
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw usage(option + ": " + text + " is outside " + Quantities.formatDuration(min) + ".." + Quantities.formatDuration(max));
    }
    return d;
  }

  /** --ttl as `ttl put --ttl` takes it: a duration, a bare number of milliseconds, or -1. */
  long ttlMillis() {
    try {
      return AdminCommand.parseTtlMillis(ttlText, true);
    } catch (IllegalArgumentException e) {
      throw usage("--ttl: " + e.getMessage());
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
