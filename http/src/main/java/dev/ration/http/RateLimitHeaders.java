package dev.ration.http;

import dev.ration.client.limiter.Decision;
import dev.ration.client.limiter.RateLimiter;
import dev.ration.client.quota.QuotaRefusedException;
import dev.ration.client.limiter.LeaseInfo;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The HTTP face of a refusal: status 429 with {@code Retry-After}, and the IETF rate-limit
 * header fields (draft-ietf-httpapi-ratelimit-headers) {@code RateLimit-Policy} and {@code
 * RateLimit}. For a limiter the policy describes what this instance enforces, its lease's share:
 * {@code q} = the burst share, {@code w} = the seconds the share's rate takes to refill it; the
 * {@code RateLimit} field gives the tokens left ({@code r}) and the seconds until a retry may
 * succeed ({@code t}). Without a lease there is no policy to state, and only {@code RateLimit}
 * and {@code Retry-After} are sent.
 */
public final class RateLimitHeaders {
  /** The status of a refusal for rate or quota. */
  public static final int TOO_MANY_REQUESTS = 429;

  private RateLimitHeaders() {
  }

  /**
   * Adds {@code RateLimit-Policy} (when a lease is held) and {@code RateLimit} to an admitted
   * response, so a client sees its budget before it runs out.
   */
  public static void describe(HttpServletResponse response, String policyName, RateLimiter limiter) {
    policy(response, policyName, limiter);
    response.setHeader("RateLimit", item(policyName) + ";r=" + limiter.available() + ";t=0");
  }

  /**
   * Answers 429 for a limiter's refusal {@code decision}: {@code Retry-After} in whole seconds
   * (rounded up, at least 1), the policy and {@code RateLimit} with nothing remaining.
   */
  public static void refuse(HttpServletResponse response, String policyName, RateLimiter limiter,
      Decision decision) throws IOException {
    long retryAfterSeconds = decision.retryAfterSeconds();
    policy(response, policyName, limiter);
    response.setHeader("RateLimit", item(policyName) + ";r=0;t=" + retryAfterSeconds);
    writeRefusal(response, retryAfterSeconds, "rate limited (" + decision.reason() + ")");
  }

  /**
   * Answers 429 for a reservation the coordinator refused: {@code Retry-After} from its hint
   * (whole seconds, rounded up; 1 when it gave none) and {@code RateLimit} with nothing
   * remaining at the level that refused, which names the policy.
   */
  public static void refuse(HttpServletResponse response, QuotaRefusedException refusal)
      throws IOException {
    long millis = refusal.retryAfter().toMillis();
    long retryAfterSeconds = millis > 0 ? Math.max(1, (millis + 999) / 1000) : 1;
    String level = refusal.levelScope().isEmpty() ? "quota" : refusal.levelScope();
    response.setHeader("RateLimit", item(level + " " + refusal.reply().resource()) + ";r=0;t=" + retryAfterSeconds);
    writeRefusal(response, retryAfterSeconds, "quota refused (" + refusal.outcome() + ")");
  }

  private static void policy(HttpServletResponse response, String policyName, RateLimiter limiter) {
    Optional<LeaseInfo> lease = limiter.lease();
    if (lease.isEmpty() || lease.get().burstShare() <= 0) {
      return;
    }
    long quota = lease.get().burstShare();
    long rate = lease.get().rateShare();
    long windowSeconds = rate <= 0 ? 0 : Math.max(1, (quota + rate - 1) / rate);
    response.setHeader("RateLimit-Policy", item(policyName) + ";q=" + quota
        + (windowSeconds > 0 ? ";w=" + windowSeconds : ""));
  }

  private static void writeRefusal(HttpServletResponse response, long retryAfterSeconds, String text)
      throws IOException {
    response.setStatus(TOO_MANY_REQUESTS);
    response.setHeader("Retry-After", Long.toString(retryAfterSeconds));
    response.setContentType("text/plain; charset=utf-8");
    byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** A structured-field string item: quoted, with backslash and quote escaped. */
  static String item(String name) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : name.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\');
      }
      // Structured-field strings allow printable ASCII only.
      b.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return b.append('"').toString();
  }
}
