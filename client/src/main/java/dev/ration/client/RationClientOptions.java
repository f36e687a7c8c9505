package dev.ration.client;

import dev.ration.protocol.Frame;
import dev.ration.client.time.MonotonicClock;
import dev.ration.client.tls.ClientTls;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Client settings, validated at construction with messages that show the bad value.
 *
 * <p>{@code requestDeadline} bounds a whole call including retries; {@code maxRetries} bounds
 * the number of resends after a lost connection or OVERLOADED. Resends after NOT_LEADER (a
 * member answered while the cluster elects, or pointed at the leader) are bounded by the
 * deadline alone, so a call made during an election finds the new leader if one is elected
 * within its deadline. Backoff is exponential with full jitter:
 * attempt n waits uniform [0, min(backoffMax, backoffBase * 2^n)], or the server's
 * retry-after if longer. {@code clientIdHigh/Low} identify this client instance in HELLO (the
 * server's idempotency key is (client id, request id)). Left unset (0, 0), each
 * {@link RationClient} built from these options mints its own random 128-bit id, so one options
 * value can be shared by several clients without them sharing an idempotency namespace (two
 * clients with one id would be refused each other's request ids, or handed each other's answers
 * when the requests happen to be equal).
 *
 * <p>A fixed client id is rarely appropriate: a random id per client is the default and the
 * safe choice. Fix one only to resend requests of another client on purpose (a test, or a tool
 * replaying its own journal), and never in two live processes at once. A client with a fixed id
 * takes its request ids from the wall clock in microseconds (each the larger of the previous
 * id + 1 and the clock), so a restarted process does not reuse the request ids of the one before
 * it within the server's idempotency retention (docs/PROTOCOL.md, "Request ids"). A retry that
 * must survive a restart of the application needs an application key instead (reservations:
 * {@code QuotaClient.reserve} with an idempotency key, docs/QUOTAS.md).
 *
 * <p>{@code tls} null means plaintext; otherwise every connection is TLS 1.3, trusting the CA
 * certificates named there and presenting its client certificate, if it names one
 * (docs/CLIENT.md, "TLS").
 *
 * <p>{@code clock} is the monotonic clock every deadline, timer and latency of the client is
 * judged by ({@link MonotonicClock#SYSTEM} unless set): a test moves a manual one instead of
 * sleeping. The event loop's own timers (retry delays, the connection's reply timeout) still
 * run on real time; they schedule work, and what they schedule judges time by this clock.
 */
public record RationClientOptions(
    List<String> addresses,
    Duration connectTimeout,
    Duration requestDeadline,
    int maxRetries,
    Duration backoffBase,
    Duration backoffMax,
    int maxInFlightPerConnection,
    int maxFrameBytes,
    long clientIdHigh,
    long clientIdLow,
    ClientTls tls,
    String token,
    MonotonicClock clock) {

  /**
   * Options without TLS settings or a bearer token (the form before they existed).
   *
   * @param addresses the nodes' client endpoints, host:port
   * @param connectTimeout how long a connection attempt may take
   * @param requestDeadline how long a call may take, retries included
   * @param maxRetries the most retries of one call
   * @param backoffBase the first retry delay
   * @param backoffMax the longest retry delay
   * @param maxInFlightPerConnection the most requests awaiting replies on one connection
   * @param maxFrameBytes the largest frame sent or accepted
   * @param clientIdHigh the client id's high 64 bits (0 with 0: mint one)
   * @param clientIdLow the client id's low 64 bits
   */
  public RationClientOptions(
      List<String> addresses, Duration connectTimeout, Duration requestDeadline, int maxRetries,
      Duration backoffBase, Duration backoffMax, int maxInFlightPerConnection, int maxFrameBytes,
      long clientIdHigh, long clientIdLow) {
    this(addresses, connectTimeout, requestDeadline, maxRetries, backoffBase, backoffMax,
        maxInFlightPerConnection, maxFrameBytes, clientIdHigh, clientIdLow, null, "");
  }

  /**
   * Options on the system's monotonic clock (the form before the clock could be set).
   *
   * @param addresses the nodes' client endpoints, host:port
   * @param connectTimeout how long a connection attempt may take
   * @param requestDeadline how long a call may take, retries included
   * @param maxRetries the most retries of one call
   * @param backoffBase the first retry delay
   * @param backoffMax the longest retry delay
   * @param maxInFlightPerConnection the most requests awaiting replies on one connection
   * @param maxFrameBytes the largest frame sent or accepted
   * @param clientIdHigh the client id's high 64 bits (0 with 0: mint one)
   * @param clientIdLow the client id's low 64 bits
   * @param tls TLS settings, or null for plaintext
   * @param token the bearer token presented in HELLO, or empty for none
   */
  public RationClientOptions(
      List<String> addresses, Duration connectTimeout, Duration requestDeadline, int maxRetries,
      Duration backoffBase, Duration backoffMax, int maxInFlightPerConnection, int maxFrameBytes,
      long clientIdHigh, long clientIdLow, ClientTls tls, String token) {
    this(addresses, connectTimeout, requestDeadline, maxRetries, backoffBase, backoffMax,
        maxInFlightPerConnection, maxFrameBytes, clientIdHigh, clientIdLow, tls, token,
        MonotonicClock.SYSTEM);
  }

  /** The token is a secret: never printed, only whether one is set. */
  @Override
  public String toString() {
    return "RationClientOptions[addresses=" + addresses + ", connectTimeout=" + connectTimeout
        + ", requestDeadline=" + requestDeadline + ", maxRetries=" + maxRetries
        + ", backoffBase=" + backoffBase + ", backoffMax=" + backoffMax
        + ", maxInFlightPerConnection=" + maxInFlightPerConnection + ", maxFrameBytes="
        + maxFrameBytes + ", clientIdHigh=" + clientIdHigh + ", clientIdLow=" + clientIdLow
        + ", tls=" + tls + ", token=" + (token.isEmpty() ? "none" : "(set)")
        + (clock == MonotonicClock.SYSTEM ? "" : ", clock=" + clock) + "]";
  }

  /**
   * True when the caller fixed the client id; otherwise each client mints its own.
   *
   * @return whether a client id was given
   */
  public boolean clientIdFixed() {
    return clientIdHigh != 0 || clientIdLow != 0;
  }

  /**
   * These options with a fresh random client id (unless one was fixed).
   *
   * @return these options, with a client id
   */
  public RationClientOptions withMintedClientId() {
    if (clientIdFixed()) {
      return this;
    }
    SecureRandom r = new SecureRandom();
    long hi = r.nextLong();
    long lo = r.nextLong();
    if (hi == 0 && lo == 0) {
      lo = 1;
    }
    return new RationClientOptions(addresses, connectTimeout, requestDeadline, maxRetries,
        backoffBase, backoffMax, maxInFlightPerConnection, maxFrameBytes, hi, lo, tls, token, clock);
  }

  /**
   * Options, validated.
   *
   * @param addresses the nodes' client endpoints, host:port
   * @param connectTimeout how long a connection attempt may take
   * @param requestDeadline how long a call may take, retries included
   * @param maxRetries the most retries of one call
   * @param backoffBase the first retry delay
   * @param backoffMax the longest retry delay
   * @param maxInFlightPerConnection the most requests awaiting replies on one connection
   * @param maxFrameBytes the largest frame sent or accepted
   * @param clientIdHigh the client id's high 64 bits (0 with 0: mint one)
   * @param clientIdLow the client id's low 64 bits
   * @param tls TLS settings, or null for plaintext
   * @param token the bearer token presented in HELLO, or empty for none
   * @param clock the monotonic clock deadlines and timers are judged by; null for
   *     {@link MonotonicClock#SYSTEM}
   * @throws IllegalArgumentException on no address, an address that is not host:port, or a
   *     bound out of range
   */
  public RationClientOptions {
    addresses = List.copyOf(addresses);
    token = token == null ? "" : token.strip();
    clock = clock == null ? MonotonicClock.SYSTEM : clock;
    if (token.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
        > dev.ration.protocol.MessageCodec.CREDENTIAL_BYTES_MAX) {
      throw new IllegalArgumentException("token is longer than "
          + dev.ration.protocol.MessageCodec.CREDENTIAL_BYTES_MAX + " bytes");
    }
    if (addresses.isEmpty()) {
      throw new IllegalArgumentException("addresses is empty: need at least one host:port");
    }
    for (String a : addresses) {
      HostPort.parse(a);
    }
    positive("connectTimeout", connectTimeout);
    positive("requestDeadline", requestDeadline);
    positive("backoffBase", backoffBase);
    positive("backoffMax", backoffMax);
    if (backoffMax.compareTo(backoffBase) < 0) {
      throw new IllegalArgumentException("backoffMax " + backoffMax + " < backoffBase " + backoffBase);
    }
    if (maxRetries < 0 || maxRetries > 1000) {
      throw new IllegalArgumentException("maxRetries " + maxRetries + " not in [0, 1000]");
    }
    if (maxInFlightPerConnection < 1) {
      throw new IllegalArgumentException("maxInFlightPerConnection " + maxInFlightPerConnection + " < 1");
    }
    if (maxFrameBytes < Frame.HEADER_BYTES + 4) {
      throw new IllegalArgumentException("maxFrameBytes " + maxFrameBytes + " too small");
    }
  }

  private static void positive(String name, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " " + d + " must be > 0");
    }
  }

  /**
   * A builder with the defaults.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds {@link RationClientOptions}; not thread-safe. */
  public static final class Builder {
    private final List<String> addresses = new ArrayList<>();
    private String token = "";
    private Duration connectTimeout = Duration.ofSeconds(3);
    private Duration requestDeadline = Duration.ofSeconds(10);
    private int maxRetries = 10;
    private Duration backoffBase = Duration.ofMillis(20);
    private Duration backoffMax = Duration.ofSeconds(1);
    private int maxInFlightPerConnection = 1024;
    private int maxFrameBytes = Frame.DEFAULT_MAX_FRAME_BYTES;
    private long clientIdHigh;
    private long clientIdLow;
    private boolean clientIdSet;
    private ClientTls tls;
    private MonotonicClock clock = MonotonicClock.SYSTEM;

    /**
     * Adds a node to connect to.
     *
     * @param hostPort the node's client endpoint, host:port
     * @return this builder
     */
    public Builder address(String hostPort) {
      addresses.add(hostPort);
      return this;
    }

    /**
     * Adds nodes to connect to.
     *
     * @param hostPorts the nodes' client endpoints, host:port
     * @return this builder
     */
    public Builder addresses(List<String> hostPorts) {
      addresses.addAll(hostPorts);
      return this;
    }

    /**
     * How long a connection attempt may take (3 s).
     *
     * @param v positive
     * @return this builder
     */
    public Builder connectTimeout(Duration v) {
      connectTimeout = v;
      return this;
    }

    /**
     * How long a call may take, retries included (10 s).
     *
     * @param v positive
     * @return this builder
     */
    public Builder requestDeadline(Duration v) {
      requestDeadline = v;
      return this;
    }

    /**
     * The most retries of one call (10).
     *
     * @param v 0 to 1000
     * @return this builder
     */
    public Builder maxRetries(int v) {
      maxRetries = v;
      return this;
    }

    /**
     * The first retry delay, doubled per retry (20 ms).
     *
     * @param v positive
     * @return this builder
     */
    public Builder backoffBase(Duration v) {
      backoffBase = v;
      return this;
    }

    /**
     * The longest retry delay (1 s).
     *
     * @param v at least the base
     * @return this builder
     */
    public Builder backoffMax(Duration v) {
      backoffMax = v;
      return this;
    }

    /**
     * The most requests awaiting replies on one connection (1024).
     *
     * @param v positive
     * @return this builder
     */
    public Builder maxInFlightPerConnection(int v) {
      maxInFlightPerConnection = v;
      return this;
    }

    /**
     * The largest frame sent or accepted (1 MiB).
     *
     * @param v positive
     * @return this builder
     */
    public Builder maxFrameBytes(int v) {
      maxFrameBytes = v;
      return this;
    }

    /**
     * A fixed client id, for resending another client's requests on purpose (tests, replay
     * tools); see the class comment for when it is appropriate and how request ids then follow
     * the wall clock. Left unset, every client mints a random id, which is the safe default.
      *
      * @param high the id's high 64 bits
      * @param low the id's low 64 bits
      * @return this builder
     */
    public Builder clientId(long high, long low) {
      clientIdHigh = high;
      clientIdLow = low;
      clientIdSet = true;
      return this;
    }

    /**
     * TLS for every connection; see {@link ClientTls}.
     *
     * @param v the TLS settings, or null for plaintext
     * @return this builder
     */
    public Builder tls(ClientTls v) {
      tls = v;
      return this;
    }

    /**
     * The bearer token ({@code rtn_<id>_<secret>}, printed once by {@code ration token create})
     * this client presents in HELLO. Empty: none (a cluster without security, or one that
     * knows this client by its TLS certificate).
     *
     * @param v the token
     * @return this builder
     */
    public Builder token(String v) {
      token = v;
      return this;
    }

    /**
     * The monotonic clock every deadline, timer and latency of the client is judged by
     * ({@link MonotonicClock#SYSTEM}); tests set a manual one and move it instead of sleeping.
     *
     * @param v the clock
     * @return this builder
     */
    public Builder clock(MonotonicClock v) {
      clock = v;
      return this;
    }

    /**
     * The options.
     *
     * @return the options
     * @throws IllegalArgumentException when one is out of range
     */
    public RationClientOptions build() {
      long hi = clientIdSet ? clientIdHigh : 0;
      long lo = clientIdSet ? clientIdLow : 0;
      return new RationClientOptions(
          addresses, connectTimeout, requestDeadline, maxRetries, backoffBase, backoffMax,
          maxInFlightPerConnection, maxFrameBytes, hi, lo, tls, token, clock);
    }
  }
}
