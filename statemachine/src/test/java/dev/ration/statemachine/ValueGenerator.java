package dev.ration.statemachine;

import dev.ration.wire.Outcome;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import dev.ration.statemachine.command.Batch;
import dev.ration.statemachine.command.Command;
import dev.ration.statemachine.command.Proposal;
import dev.ration.statemachine.command.RequestKey;
import dev.ration.statemachine.result.QuotaResult;
import dev.ration.statemachine.result.Result;
import dev.ration.wire.Bytes;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Builds valid replicated values (log-entry batches of every command, results of every kind,
 * nested limits, leases, quota specs and lists included) from a stream of choices, by
 * reflection over the record components, so a field or a command added to the state machine is
 * generated without touching this class. "Valid" means what the encoders accept: well-formed
 * UTF-16 strings and short lists. The choices come from the fuzzer (round-trip fuzzing) or from
 * a seeded {@link Random} (seed corpus files).
 */
public final class ValueGenerator {
  /** Where choices come from. */
  public interface Choices {
    long nextLong();

    int nextInt(int min, int max);

    boolean nextBoolean();

    String nextString(int maxChars);

    byte[] nextBytes(int maxBytes);
  }

  private static final List<Class<?>> COMMAND_CLASSES = leaves(Command.class);
  private static final List<Class<?>> RESULT_CLASSES = leaves(Result.class);

  private final Choices choices;

  public ValueGenerator(Choices choices) {
    this.choices = choices;
  }

  public static ValueGenerator fuzzed(FuzzedDataProvider data) {
    return new ValueGenerator(new Choices() {
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

  /** Small, readable values: the corpus seeds should look like real log entries. */
  public static ValueGenerator seeded(long seed) {
    Random random = new Random(seed);
    String[] words = {"acme", "api", "eu-west", "n1", "ns", "key/1", "org/tenant", "reqs", "é€"};
    return new ValueGenerator(new Choices() {
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

  public static List<Class<?>> commandClasses() {
    return COMMAND_CLASSES;
  }

  public static List<Class<?>> resultClasses() {
    return RESULT_CLASSES;
  }

  public Command command() {
    return command(COMMAND_CLASSES.get(choices.nextInt(0, COMMAND_CLASSES.size() - 1)));
  }

  public Command command(Class<?> type) {
    return (Command) record(type);
  }

  /** A batch of up to {@code maxProposals} proposals of any commands. */
  public Batch batch(int maxProposals) {
    int n = choices.nextInt(0, maxProposals);
    List<Proposal> proposals = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      RequestKey key = choices.nextBoolean() ? RequestKey.NONE
          : new RequestKey(choices.nextLong(), choices.nextLong(), choices.nextLong());
      proposals.add(new Proposal(key, command()));
    }
    return Batch.of(choices.nextLong(), proposals);
  }

  public Result result() {
    return result(RESULT_CLASSES.get(choices.nextInt(0, RESULT_CLASSES.size() - 1)));
  }

  /** A result of the given record class (a leaf of {@link Result}, quota results included). */
  public Result result(Class<?> type) {
    Object value = record(type);
    return value instanceof QuotaResult q ? new Result.Quota(q) : (Result) value;
  }

  /** Any record the generator can build: store records, nested structs. */
  public <T> T of(Class<T> type) {
    return type.cast(record(type));
  }

  private Object record(Class<?> type) {
    RecordComponent[] components = type.getRecordComponents();
    Object[] args = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      args[i] = value(components[i].getGenericType(), components[i].getName());
    }
    if ((type == dev.ration.statemachine.result.Result.Renewal.class
        || type == dev.ration.statemachine.result.Result.SlotRenewalAnswer.class)
        && args[0] != Outcome.SUCCESS) {
      // A renewal carries its lease exactly when it succeeded.
      args[4] = null;
    }
    if (type == dev.ration.statemachine.result.QuotaResult.BudgetReport.class
        && args[0] != Outcome.SUCCESS) {
      // A report's answer carries the budget exactly when it succeeded.
      args[2] = null;
    }
    if (type == dev.ration.statemachine.result.QuotaResult.ReserveAnswer.class) {
      // A reservation's answer is the reservation or the refusal, exactly one.
      if (args[0] != null) {
        args[1] = null;
      } else if (args[1] == null) {
        args[1] = value(components[1].getGenericType(), components[1].getName());
      }
    }
    if (type == dev.ration.statemachine.command.QuotaCommand.SetQuota.class) {
      // A proposal does not carry the change time: the ledger stamps it.
      dev.ration.wire.quota.QuotaSpec spec = (dev.ration.wire.quota.QuotaSpec) args[0];
      args[0] = spec.stored(spec.version(), 0);
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

  private Object value(Type generic, String name) {
    if (generic instanceof ParameterizedType p) {
      if (p.getRawType() == List.class) {
        int n = choices.nextInt(0, 3);
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          list.add(value(p.getActualTypeArguments()[0], name));
        }
        return list;
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
      return choices.nextInt(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }
    if (type == boolean.class) {
      return choices.nextBoolean();
    }
    if (type == Bytes.class) {
      return new Bytes(choices.nextBytes(64));
    }
    if (type == Outcome.class) {
      // Outcomes in the log are rejections: a rejection never carries SUCCESS.
      Outcome[] all = Outcome.values();
      return all[choices.nextInt(1, all.length - 1)];
    }
    if (type.isEnum()) {
      Object[] all = type.getEnumConstants();
      return all[choices.nextInt(0, all.length - 1)];
    }
    if (type.isRecord()) {
      return record(type);
    }
    throw new IllegalStateException("no generator for " + type.getName() + " " + name);
  }

  /** Well-formed UTF-16 only: the encoders refuse an unpaired surrogate. */
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
      if (c == Result.Quota.class) {
        out.addAll(leaves(QuotaResult.class));
      } else if (c.isSealed()) {
        out.addAll(leaves(c));
      } else {
        out.add(c);
      }
    }
    return List.copyOf(out);
  }
}
