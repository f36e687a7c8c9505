package dev.ration.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.config.ConfigSchema.BoolType;
import dev.ration.server.config.ConfigSchema.ChoiceType;
import dev.ration.server.config.ConfigSchema.DurationType;
import dev.ration.server.config.ConfigSchema.IntegerType;
import dev.ration.server.config.ConfigSchema.ListType;
import dev.ration.server.config.ConfigSchema.PeersType;
import dev.ration.server.config.ConfigSchema.Setting;
import dev.ration.server.config.ConfigSchema.SizeType;
import dev.ration.server.config.ConfigSchema.TextType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Goal: the schema tables of docs/CONFIGURATION.md are {@link ConfigSchema}. Every declared
 * setting has a row with the same type, the same default (or "required", with its condition) and,
 * for numbers, durations, sizes and the peers list, the same range; every row is a declared
 * setting. Values are compared by what they mean, so the page may write {@code 60s} for a
 * default the code declares as one minute, or {@code 1,000,000} for a million. The meaning column
 * is prose and is not compared.
 */
class ConfigSchemaDocTest {
  private static final Path DOC = Path.of("../docs/CONFIGURATION.md");
  private static final String RANGE_DASH = "\u2013";
  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\|.*");
  private static final Pattern BACKTICKED = Pattern.compile("`([^`]*)`");
  private static final Pattern RANGE = Pattern.compile("(\\S+)" + RANGE_DASH + "([^\\s;]+)");

  /** A row of a schema table: its key, type, default and bounds columns. */
  record Row(String key, String type, String defaultText, String bounds) {}

  /** The rows of the tables under "## Schema", by key. */
  static Map<String, Row> rows(String doc) {
    int begin = doc.indexOf("\n## Schema\n");
    assertTrue(begin >= 0, "docs/CONFIGURATION.md lacks its ## Schema section");
    int end = doc.indexOf("\n## ", begin + 1);
    Map<String, Row> rows = new LinkedHashMap<>();
    for (String line : doc.substring(begin, end < 0 ? doc.length() : end).split("\n")) {
      if (ROW.matcher(line).matches()) {
        // Cells split on unescaped pipes; "\|" separates choices within a type.
        String[] cells = line.split("(?<!\\\\)\\|");
        Row row = new Row(cells[1].trim().replace("`", ""), cells[2].trim(), cells[3].trim(), cells[4].trim());
        rows.put(row.key(), row);
      }
    }
    return rows;
  }

  /** Every way the page and the schema disagree, one line each. */
  static List<String> disagreements(String doc) {
    Map<String, Row> rows = rows(doc);
    Map<String, Setting<?>> declared = ConfigSchema.declared();
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, Setting<?>> e : declared.entrySet()) {
      Row row = rows.get(e.getKey());
      if (row == null) {
        out.add(e.getKey() + ": declared but not documented");
      } else {
        compare(e.getKey(), e.getValue(), row, out);
      }
    }
    for (String key : rows.keySet()) {
      if (!declared.containsKey(key)) {
        out.add(key + ": documented but not declared");
      }
    }
    return out;
  }

  private static void compare(String key, Setting<?> setting, Row row, List<String> out) {
    ConfigSchema.Type<?> type = setting.type();
    if (type instanceof ChoiceType<?> choice) {
      List<String> documented = backticked(row.type());
      if (!documented.equals(List.copyOf(choice.choices().keySet()))) {
        out.add(key + ": documented choices " + documented + ", declared " + choice.choices().keySet());
      }
    } else if (!row.type().equals(type.docName()) && !row.type().startsWith(type.docName() + " (")) {
      out.add(key + ": documented type '" + row.type() + "', declared " + type.docName());
    }

    if (setting.defaultValue().isPresent()) {
      Object declaredDefault = setting.defaultValue().get();
      List<String> documented = backticked(row.defaultText());
      Object documentedDefault = documented.isEmpty() ? null : parse(type, documented.get(0), key, out);
      if (!Objects.equals(documentedDefault, declaredDefault)) {
        out.add(key + ": documented default '" + row.defaultText() + "', declared " + show(declaredDefault));
      }
    } else {
      String when = setting.required().when();
      if (!row.defaultText().contains("required") || !row.defaultText().contains(when)) {
        out.add(key + ": documented default '" + row.defaultText() + "', declared required"
            + (when.isEmpty() ? "" : " " + when));
      }
    }

    List<Object> declaredRange = range(type);
    if (declaredRange != null) {
      // The range is the start of the bounds column; cross-checks may follow after a semicolon.
      Matcher m = RANGE.matcher(row.bounds());
      List<Object> documentedRange = m.lookingAt()
          ? Arrays.asList(parseBound(type, m.group(1), key, out), parseBound(type, m.group(2), key, out))
          : null;
      if (!declaredRange.equals(documentedRange)) {
        out.add(key + ": documented bounds '" + row.bounds() + "', declared " + show(declaredRange.get(0))
            + RANGE_DASH + show(declaredRange.get(1)));
      }
    }
  }

  /** [min, max] of a bounded type, or null if the type has no range. */
  private static List<Object> range(ConfigSchema.Type<?> type) {
    if (type instanceof DurationType d) {
      return List.of(d.min(), d.max());
    } else if (type instanceof IntegerType i) {
      return List.of(i.min(), i.max());
    } else if (type instanceof SizeType s) {
      return List.of(s.min(), s.max());
    } else if (type instanceof PeersType p) {
      return List.of(1L, (long) p.max());
    }
    return null;
  }

  private static Object parseBound(ConfigSchema.Type<?> type, String text, String key, List<String> out) {
    return type instanceof PeersType ? parseInteger(text) : parse(type, text, key, out);
  }

  /** The documented text as a value of the type; null (with a disagreement) if it is not one. */
  private static Object parse(ConfigSchema.Type<?> type, String text, String key, List<String> out) {
    Function<String, Object> parser;
    if (type instanceof DurationType) {
      parser = Quantities::parseDuration;
    } else if (type instanceof IntegerType) {
      parser = ConfigSchemaDocTest::parseInteger;
    } else if (type instanceof SizeType) {
      parser = Quantities::parseSize;
    } else if (type instanceof BoolType) {
      parser = t -> switch (t) {
        case "true" -> true;
        case "false" -> false;
        default -> throw new IllegalArgumentException("not true or false");
      };
    } else if (type instanceof ChoiceType<?> choice) {
      parser = choice.choices()::get;
    } else if (type instanceof ListType<?>) {
      parser = t -> {
        if (!t.equals("[]")) {
          throw new IllegalArgumentException("only the empty list [] is a list default");
        }
        return List.of();
      };
    } else if (type instanceof TextType<?>) {
      parser = t -> t;
    } else {
      throw new AssertionError(key + ": no documented form for " + type);
    }
    try {
      return parser.apply(text);
    } catch (IllegalArgumentException e) {
      out.add(key + ": cannot read documented '" + text + "': " + e.getMessage());
      return null;
    }
  }

  private static String show(Object value) {
    return value instanceof Duration d ? Quantities.formatDuration(d) : String.valueOf(value);
  }

  private static Long parseInteger(String text) {
    // The page groups digits with commas; YAML (and so the examples) with underscores.
    return Long.parseLong(text.replace(",", "").replace("_", ""));
  }

  private static List<String> backticked(String text) {
    List<String> out = new ArrayList<>();
    Matcher m = BACKTICKED.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String doc() throws IOException {
    return Files.readString(DOC, StandardCharsets.UTF_8);
  }

  @Test
  void theDocumentedSchemaIsTheDeclaredOne() throws IOException {
    List<String> d = disagreements(doc());
    assertTrue(d.isEmpty(), "docs/CONFIGURATION.md and ConfigSchema disagree:\n  " + String.join("\n  ", d));
  }

  @Test
  void everySectionAndSettingOfTheTableIsFound() throws IOException {
    // Guards the parser: a table it silently skipped would agree vacuously.
    Map<String, Row> rows = rows(doc());
    assertEquals(ConfigSchema.declared().keySet(), rows.keySet());
    assertEquals(Duration.ofSeconds(60), ConfigSchema.Ledger.IDEMPOTENCY_RETENTION.defaultValue().orElseThrow());
    assertEquals("`60s`", rows.get("ledger.idempotency-retention").defaultText());
  }

  @Test
  void aDriftedDefaultRangeTypeOrKeyIsNamed() throws IOException {
    String doc = doc();
    assertEquals(List.of("raft.request-timeout: documented default '`4s`', declared 3s"),
        disagreements(doc.replace("| `raft.request-timeout` | duration | `3s` |", "| `raft.request-timeout` | duration | `4s` |")));
    assertEquals(List.of("ledger.quota.max-scan-records: documented bounds '1,000" + RANGE_DASH + "1,000,000', declared 1000"
            + RANGE_DASH + "10000000"),
        disagreements(doc.replace("| `100000` | 1,000" + RANGE_DASH + "10,000,000 |", "| `100000` | 1,000" + RANGE_DASH + "1,000,000 |")));
    assertEquals(List.of("endpoint.tenant-fairness: documented choices [all, quota], declared [all, quota, none]"),
        disagreements(doc.replace("`all`, `quota` or `none`", "`all` or `quota`")));
    assertEquals(List.of("tls.cert: documented default '— (required)', declared required when secure"),
        disagreements(doc.replace("| `tls.cert` | path | — (required when secure) |", "| `tls.cert` | path | — (required) |")));
    assertEquals(List.of("shutdown.grace: declared but not documented", "shutdown.graces: documented but not declared"),
        disagreements(doc.replace("| `shutdown.grace` |", "| `shutdown.graces` |")));
  }
}
