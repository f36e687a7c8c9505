package dev.ration.protocol;

import dev.ration.wire.ErrorCode;

import dev.ration.wire.lease.LimitStatus;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import dev.ration.wire.quota.QuotaSpec;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * Builds valid protocol messages (every request and response record, nested structs and lists
 * included) from a stream of choices, by reflection over the record components, so a field or
 * a kind added to the protocol is generated without touching this class. "Valid" means what the
 * encoder accepts: codes named {@code ...Code} and {@code protocolVersion} fit in a u8, strings
 * are well-formed UTF-16, an error response has a non-OK code, a TTL_GET reply is found exactly
 * when it has an entry. The choices come from the fuzzer (round-trip fuzzing) or from a seeded
 * {@link Random} (seed corpus files).
 */
final class MessageGenerator {
  /** Where choices come from. */
  interface Choices {
    long nextLong();

    int nextInt(int min, int max);

    boolean nextBoolean();

    String nextString(int maxChars);

    byte[] nextBytes(int maxBytes);
  }

  /** The reply record each request kind decodes to when its error code is 0. */
  static final Map<Kind, Class<?>> REPLY_CLASS = new EnumMap<>(Kind.class);

  static {
    REPLY_CLASS.put(Kind.HELLO, Response.HelloReply.class);
    REPLY_CLASS.put(Kind.SET_LIMIT, Response.SetLimitReply.class);
    REPLY_CLASS.put(Kind.RENEW_LEASES, Response.RenewalsReply.class);
    REPLY_CLASS.put(Kind.GET_LIMIT, Response.GetLimitReply.class);
    REPLY_CLASS.put(Kind.LIST_LIMITS, Response.LimitList.class);
    REPLY_CLASS.put(Kind.ACQUIRE_LEASE, Response.LeaseReply.class);
    REPLY_CLASS.put(Kind.RENEW_LEASE, Response.LeaseReply.class);
    REPLY_CLASS.put(Kind.RETURN_LEASE, Response.ReturnReply.class);
    REPLY_CLASS.put(Kind.LIST_LEASES, Response.LeaseList.class);
    REPLY_CLASS.put(Kind.CLUSTER_STATUS, Response.ClusterStatusReply.class);
    REPLY_CLASS.put(Kind.CANCEL, Response.CancelReply.class);
    REPLY_CLASS.put(Kind.SET_LIMIT_CONCURRENCY, Response.SlotLimitReply.class);
    REPLY_CLASS.put(Kind.ACQUIRE_SLOTS, Response.SlotLeaseReply.class);
    REPLY_CLASS.put(Kind.RENEW_SLOTS, Response.SlotRenewalsReply.class);
    REPLY_CLASS.put(Kind.GET_SLOTS, Response.SlotsReply.class);
    REPLY_CLASS.put(Kind.TTL_PUT, TtlResponse.WriteReply.class);
    REPLY_CLASS.put(Kind.TTL_CAS, TtlResponse.WriteReply.class);
    REPLY_CLASS.put(Kind.TTL_REFRESH, TtlResponse.WriteReply.class);
    REPLY_CLASS.put(Kind.TTL_UPDATE, TtlResponse.WriteReply.class);
    REPLY_CLASS.put(Kind.TTL_DELETE, TtlResponse.DeleteReply.class);
    REPLY_CLASS.put(Kind.TTL_GET, TtlResponse.GetReply.class);
    REPLY_CLASS.put(Kind.TTL_LIST, TtlResponse.ListReply.class);
    REPLY_CLASS.put(Kind.TTL_NAMESPACE_SET, TtlResponse.NamespaceReply.class);
    REPLY_CLASS.put(Kind.TTL_NAMESPACE_GET, TtlResponse.NamespaceList.class);
    REPLY_CLASS.put(Kind.TTL_WATCH, TtlResponse.WatchReply.class);
    REPLY_CLASS.put(Kind.QUOTA_SET, QuotaResponse.QuotaSetReply.class);
    REPLY_CLASS.put(Kind.QUOTA_GET, QuotaResponse.QuotaFound.class);
    REPLY_CLASS.put(Kind.QUOTA_LIST, QuotaResponse.QuotaList.class);
    REPLY_CLASS.put(Kind.QUOTA_HISTORY, QuotaResponse.QuotaList.class);
    REPLY_CLASS.put(Kind.RESERVE, QuotaResponse.ReserveReply.class);
    REPLY_CLASS.put(Kind.RESERVE_KEYED, QuotaResponse.ReserveReply.class);
    REPLY_CLASS.put(Kind.RESERVATION_COMPLETE, QuotaResponse.SettleReply.class);
    REPLY_CLASS.put(Kind.RESERVATION_CANCEL, QuotaResponse.SettleReply.class);
    REPLY_CLASS.put(Kind.RESERVATION_LIST, QuotaResponse.ReservationList.class);
    REPLY_CLASS.put(Kind.USAGE_INGEST, QuotaResponse.IngestReply.class);
    REPLY_CLASS.put(Kind.USAGE_READ, QuotaResponse.UsageBatch.class);
    REPLY_CLASS.put(Kind.USAGE_ACK, QuotaResponse.AckReply.class);
    REPLY_CLASS.put(Kind.USAGE_AGGREGATE, QuotaResponse.AggregateReply.class);
    REPLY_CLASS.put(Kind.USAGE_RECONCILE, QuotaResponse.ReconcileReply.class);
    REPLY_CLASS.put(Kind.AUDIT_READ, QuotaResponse.AuditList.class);
    REPLY_CLASS.put(Kind.BUDGET_GRANT, QuotaResponse.BudgetGrantReply.class);
    REPLY_CLASS.put(Kind.BUDGET_REPORT, QuotaResponse.BudgetReportsReply.class);
    REPLY_CLASS.put(Kind.BUDGET_RETURN, QuotaResponse.BudgetReturnReply.class);
    REPLY_CLASS.put(Kind.BUDGET_LIST, QuotaResponse.BudgetList.class);
    REPLY_CLASS.put(Kind.RESERVE_BATCH, QuotaResponse.ReserveBatchReply.class);
    REPLY_CLASS.put(Kind.TOKEN_CREATE, Response.SecurityChangeReply.class);
    REPLY_CLASS.put(Kind.TOKEN_REVOKE, Response.SecurityChangeReply.class);
    REPLY_CLASS.put(Kind.TOKEN_LIST, Response.TokenList.class);
    REPLY_CLASS.put(Kind.ROLE_GRANT, Response.SecurityChangeReply.class);
    REPLY_CLASS.put(Kind.ROLE_REVOKE, Response.SecurityChangeReply.class);
    REPLY_CLASS.put(Kind.ROLE_LIST, Response.GrantList.class);
    REPLY_CLASS.put(Kind.SECURITY_AUDIT_READ, Response.SecurityAuditList.class);
    REPLY_CLASS.put(Kind.WHOAMI, Response.WhoAmIReply.class);
    // A kind added without its reply here fails every run at once, not one input in a thousand.
    for (Kind kind : Kind.values()) {
      if (!REPLY_CLASS.containsKey(kind)) {
        throw new IllegalStateException("no reply class for " + kind + " in MessageGenerator");
      }
    }
  }

  /** Every concrete request record, the TTL and quota ones unwrapped. */
  private static final List<Class<?>> REQUEST_CLASSES = leaves(Request.class);

  private final Choices choices;

  MessageGenerator(Choices choices) {
    this.choices = choices;
  }

  static MessageGenerator fuzzed(FuzzedDataProvider data) {
    return new MessageGenerator(new Choices() {
      @Override
      public long nextLong() {
        return data.consumeLong();
      }

      @Override
      public int nextInt(int min, int max) {
        if ((long) max - min == Integer.MAX_VALUE) {
          // Jazzer 0.24.0's consumeInt(min, max) skips its modulo when the range equals
          // Integer.MAX_VALUE and can return values below min; mask a full int instead.
          return min + (data.consumeInt() & Integer.MAX_VALUE);
        }
        return data.consumeInt(min, max);
      }

      @Override
      public boolean nextBoolean() {
        return data.consumeBoolean();
      }

      @Override
      public String nextString(int maxChars) {
        return data.consumeString(maxChars);
      }

      @Override
      public byte[] nextBytes(int maxBytes) {
        return data.consumeBytes(maxBytes);
      }
    });
  }

  /** Small, readable values: the corpus seeds should look like real traffic. */
  static MessageGenerator seeded(long seed) {
    Random random = new Random(seed);
    String[] words = {"acme", "api", "eu-west", "n1", "ns", "key/1", "org/tenant", "reqs", "é€"};
    return new MessageGenerator(new Choices() {
      @Override
      public long nextLong() {
        return random.nextInt(8) == 0 ? -1 : random.nextInt(100_000);
      }

      @Override
      public int nextInt(int min, int max) {
        if ((long) max - min > 10_000) {
          return Math.max(min, Math.min(max, random.nextInt(10_000)));
        }
        return min + random.nextInt(max - min + 1);
      }

      @Override
      public boolean nextBoolean() {
        return random.nextBoolean();
      }

      @Override
      public String nextString(int maxChars) {
        return words[random.nextInt(words.length)];
      }

      @Override
      public byte[] nextBytes(int maxBytes) {
        byte[] b = new byte[random.nextInt(Math.min(maxBytes, 12) + 1)];
        random.nextBytes(b);
        return b;
      }
    });
  }

  /** Any request of any kind. */
  Request request() {
    return request(REQUEST_CLASSES.get(choices.nextInt(0, REQUEST_CLASSES.size() - 1)));
  }

  /** A request of the given record class (a leaf of {@link Request}, TTL and quota included). */
  Request request(Class<?> type) {
    Object value = record(type);
    if (value instanceof TtlRequest t) {
      return new Request.Ttl(t);
    }
    if (value instanceof QuotaRequest q) {
      return new Request.Quota(q);
    }
    return (Request) value;
  }

  static List<Class<?>> requestClasses() {
    return REQUEST_CLASSES;
  }

  int timeoutMillis() {
    return choices.nextInt(0, Integer.MAX_VALUE);
  }

  /** The reply to {@code kind} (error code 0). */
  Response reply(Kind kind) {
    Object value = record(REPLY_CLASS.get(kind));
    if (value instanceof TtlResponse t) {
      return new Response.Ttl(t);
    }
    if (value instanceof QuotaResponse q) {
      return new Response.Quota(q);
    }
    return (Response) value;
  }

  /** An error response; the code is one this version knows, so it decodes to itself. */
  Response.Error error() {
    ErrorCode[] codes = ErrorCode.values();
    ErrorCode code = codes[choices.nextInt(1, codes.length - 1)];
    return new Response.Error(code, string(), string(), choices.nextInt(Integer.MIN_VALUE, Integer.MAX_VALUE));
  }

  Kind kind() {
    Kind[] kinds = Kind.values();
    return kinds[choices.nextInt(0, kinds.length - 1)];
  }

  private Object record(Class<?> type) {
    RecordComponent[] components = type.getRecordComponents();
    Object[] args = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      // A limit inside a limit status or a SET_LIMIT, and a spec inside a quota info or a
      // SET_QUOTA, are written flat, with no presence byte: they are never absent.
      boolean flat = (type == LimitStatus.class && components[i].getName().equals("limit"))
          || (type == Request.SetLimit.class && components[i].getName().equals("limit"))
          || (type == Request.SetLimitConcurrency.class && components[i].getName().equals("limit"))
          || (type == QuotaResponse.QuotaInfo.class && components[i].getName().equals("spec"))
          || (type == QuotaRequest.SetQuota.class && components[i].getName().equals("spec"));
      args[i] = value(components[i].getGenericType(), components[i].getName(), !flat);
    }
    if (type == QuotaRequest.SetQuota.class) {
      // A proposal does not carry the change time: the ledger stamps it.
      QuotaSpec spec = (QuotaSpec) args[0];
      args[0] = spec.stored(spec.version(), 0);
    }
    if (type == TtlResponse.GetReply.class) {
      // The wire has one presence byte for both: found is true exactly when there is an entry.
      args[0] = args[1] != null;
    }
    try {
      Constructor<?> constructor = type.getDeclaredConstructor(types);
      constructor.setAccessible(true);
      return constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("cannot build " + type.getSimpleName(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build " + type.getSimpleName(), e);
    }
  }

  private Object value(Type generic, String name, boolean mayBeAbsent) {
    if (generic instanceof ParameterizedType p) {
      Class<?> raw = (Class<?>) p.getRawType();
      Type element = p.getActualTypeArguments()[0];
      if (raw == List.class) {
        int n = choices.nextInt(0, 3);
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(value(element, name, false));
        }
        return list;
      }
      if (raw == Optional.class) {
        return choices.nextBoolean() ? Optional.of(value(element, name, false)) : Optional.empty();
      }
      throw new IllegalStateException("no generator for " + generic + " " + name);
    }
    Class<?> type = (Class<?>) generic;
    if (type == String.class) {
      return string();
    }
    if (type == long.class || type == Long.class) {
      return choices.nextLong();
    }
    if (type == int.class) {
      boolean u8 = name.endsWith("Code") || name.equals("protocolVersion");
      return u8 ? choices.nextInt(0, 0xFF) : choices.nextInt(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }
    if (type == boolean.class) {
      return choices.nextBoolean();
    }
    if (type == byte[].class) {
      return choices.nextBytes(64);
    }
    if (type.isEnum()) {
      Object[] all = type.getEnumConstants();
      return all[choices.nextInt(0, all.length - 1)];
    }
    if (type.isRecord()) {
      // A nested struct outside a list is sent with a presence byte and may be absent.
      return mayBeAbsent && choices.nextBoolean() ? null : record(type);
    }
    throw new IllegalStateException("no generator for " + type.getName() + " " + name);
  }

  /** Well-formed UTF-16 only: an unpaired surrogate has no UTF-8 encoding. */
  private String string() {
    String s = choices.nextString(24);
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      out.appendCodePoint(cp <= 0xFFFF && Character.isSurrogate((char) cp) ? 'x' : cp);
      i += Character.charCount(cp);
    }
    return out.toString();
  }

  private static List<Class<?>> leaves(Class<?> sealed) {
    List<Class<?>> out = new ArrayList<>();
    for (Class<?> c : sealed.getPermittedSubclasses()) {
      if (c == Request.Ttl.class) {
        out.addAll(leaves(TtlRequest.class));
      } else if (c == Request.Quota.class) {
        out.addAll(leaves(QuotaRequest.class));
      } else if (c.isSealed()) {
        out.addAll(leaves(c));
      } else {
        out.add(c);
      }
    }
    return List.copyOf(out);
  }

  /**
   * Structural equality that compares arrays by content: records with a {@code byte[]} component
   * (HELLO's credential, a TTL value) are equal only by identity under {@code equals}.
   */
  static boolean deepEquals(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      // The codec returns immutable copies; the list class is not part of the value.
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!deepEquals(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a == null || b == null || a.getClass() != b.getClass()) {
      return false;
    }
    if (a instanceof byte[] x) {
      return Arrays.equals(x, (byte[]) b);
    }
    if (a instanceof Optional<?> x) {
      Optional<?> y = (Optional<?>) b;
      return x.isPresent() == y.isPresent() && (x.isEmpty() || deepEquals(x.get(), y.get()));
    }
    if (a.getClass().isRecord()) {
      for (RecordComponent c : a.getClass().getRecordComponents()) {
        try {
          c.getAccessor().setAccessible(true);
          if (!deepEquals(c.getAccessor().invoke(a), c.getAccessor().invoke(b))) {
            return false;
          }
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
      }
      return true;
    }
    if (a.getClass().isArray()) {
      int n = Array.getLength(a);
      if (n != Array.getLength(b)) {
        return false;
      }
      for (int i = 0; i < n; i++) {
        if (!deepEquals(Array.get(a, i), Array.get(b, i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }
}
