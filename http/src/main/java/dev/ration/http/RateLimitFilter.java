package dev.ration.http;

import dev.ration.client.limiter.Decision;
import dev.ration.client.limiter.RateLimiter;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Admits each HTTP request through the {@link RateLimiter} of its tenant, in the request thread
 * and without waiting on the network: admitted requests go on with {@code RateLimit-Policy} /
 * {@code RateLimit} headers; refused ones are answered 429 with {@code Retry-After} (see {@link
 * RateLimitHeaders}) and never reach the application.
 *
 * <p>The tenant is read from a request attribute (set by the service's authentication filter,
 * which runs before this one) and, only if configured, from a header, which a client can set to
 * anything: use a header only behind a proxy that sets it. A request with no tenant is answered
 * 400. The cost of a request (permits) is 1 unless a cost function says otherwise; a cost below
 * 1 is the service's bug and fails the request.
 */
public final class RateLimitFilter implements Filter {
  /** The request attribute read for the tenant unless another is configured. */
  public static final String DEFAULT_TENANT_ATTRIBUTE = "dev.ration.tenant";

  private final Function<String, RateLimiter> limiters;
  private final String policyName;
  private final String tenantAttribute;
  private final String tenantHeader;
  private final ToLongFunction<HttpServletRequest> cost;

  private RateLimitFilter(Builder b) {
    this.limiters = b.limiters;
    this.policyName = b.policyName;
    this.tenantAttribute = b.tenantAttribute;
    this.tenantHeader = b.tenantHeader;
    this.cost = b.cost;
  }

  /**
   * A filter taking each tenant's limiter from {@code limiters} (for example a {@link
   * TenantLimiters}); {@code policyName} names the policy in the rate-limit headers.
   */
  public static Builder builder(Function<String, RateLimiter> limiters, String policyName) {
    return new Builder(limiters, policyName);
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) resp;
    String tenant = tenantOf(request);
    if (tenant == null) {
      response.sendError(HttpServletResponse.SC_BAD_REQUEST, "no tenant: the request has no attribute '"
          + tenantAttribute + "'" + (tenantHeader == null ? "" : " and no header '" + tenantHeader + "'"));
      return;
    }
    long permits = cost.applyAsLong(request);
    if (permits < 1) {
      throw new ServletException("cost " + permits + " of " + request.getMethod() + " "
          + request.getRequestURI() + " must be >= 1");
    }
    RateLimiter limiter = limiters.apply(tenant);
    Decision decision = limiter.decide(permits);
    if (!decision.allowed()) {
      RateLimitHeaders.refuse(response, policyName, limiter, decision);
      return;
    }
    RateLimitHeaders.describe(response, policyName, limiter);
    chain.doFilter(request, response);
  }

  private String tenantOf(HttpServletRequest request) {
    Object attribute = request.getAttribute(tenantAttribute);
    if (attribute instanceof String s && !s.isBlank()) {
      return s;
    }
    if (tenantHeader != null) {
      String header = request.getHeader(tenantHeader);
      if (header != null && !header.isBlank()) {
        return header.trim();
      }
    }
    return null;
  }

  /** Settings of a {@link RateLimitFilter}. */
  public static final class Builder {
    private final Function<String, RateLimiter> limiters;
    private final String policyName;
    private String tenantAttribute = DEFAULT_TENANT_ATTRIBUTE;
    private String tenantHeader;
    private ToLongFunction<HttpServletRequest> cost = r -> 1;

    private Builder(Function<String, RateLimiter> limiters, String policyName) {
      if (limiters == null || policyName == null || policyName.isEmpty()) {
        throw new IllegalArgumentException("limiters and a policy name are required");
      }
      this.limiters = limiters;
      this.policyName = policyName;
    }

    /** The request attribute holding the tenant (default {@value RateLimitFilter#DEFAULT_TENANT_ATTRIBUTE}). */
    public Builder tenantAttribute(String name) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("tenant attribute name must be non-empty");
      }
      tenantAttribute = name;
      return this;
    }

    /** Also read the tenant from this header when the attribute is absent (trusted proxies only). */
    public Builder tenantHeader(String name) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("tenant header name must be non-empty");
      }
      tenantHeader = name;
      return this;
    }

    /** The permits a request costs (default 1), e.g. by route or body size. */
    public Builder cost(ToLongFunction<HttpServletRequest> cost) {
      if (cost == null) {
        throw new IllegalArgumentException("cost function is required");
      }
      this.cost = cost;
      return this;
    }

    /** The filter. */
    public RateLimitFilter build() {
      return new RateLimitFilter(this);
    }
  }
}
