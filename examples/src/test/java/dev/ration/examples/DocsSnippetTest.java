package dev.ration.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of the service developer's documents is compiled code: each {@code java}
 * block of docs/LIMITER.md, docs/QUOTAS.md, docs/TTL.md, docs/CLIENT.md and docs/POOL.md must
 * equal, line for line and with common indentation removed, a region between {@code
 * // tag::name[]} and {@code // end::name[]} in a source file of this module (compiled by the
 * build) or in the client's PoolExampleTest (compiled and run by the build: POOL.md's worked
 * example). A document that shows an API the code does not have fails here.
 */
class DocsSnippetTest {
  static final List<String> DOCS = List.of("LIMITER.md", "QUOTAS.md", "TTL.md", "CLIENT.md", "POOL.md");
  static final Path POOL_EXAMPLE = Path.of("..", "client", "src", "test", "java", "dev", "ration", "client",
      "pool", "PoolExampleTest.java");
  static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)\\n```", Pattern.DOTALL);
  static final Pattern TAG = Pattern.compile("//\\s*tag::([\\w-]+)\\[\\]");

  @Test
  void everyJavaSnippetOfTheDocsIsATaggedCompiledRegion() throws IOException {
    Map<String, String> regions = taggedRegions(Path.of("src/main/java"));
    regions.putAll(regions(Files.readString(POOL_EXAMPLE)));
    assertFalse(regions.isEmpty(), "no tagged regions found");
    List<String> missing = new ArrayList<>();
    int snippets = 0;
    for (String doc : DOCS) {
      String text = Files.readString(docs().resolve(doc));
      Matcher m = JAVA_BLOCK.matcher(text);
      int inThisDoc = 0;
      while (m.find()) {
        inThisDoc++;
        String snippet = dedent(m.group(1));
        if (!regions.containsValue(snippet)) {
          missing.add(doc + " snippet " + inThisDoc + ":\n" + snippet);
        }
      }
      assertTrue(inThisDoc > 0, doc + " has no java snippet");
      snippets += inThisDoc;
    }
    assertEquals(List.of(), missing, "snippets that are not a tagged region of the examples");
    assertTrue(snippets >= DOCS.size());
  }

  /** The extraction itself: a tagged region comes back without its markers and indentation. */
  @Test
  void regionsAreDedentedWithoutMarkers() {
    Map<String, String> r = regions("""
        class X {
          void f() {
            // tag::a[]
            int x = 1;
              x++;
            // end::a[]
          }
        }
        """);
    assertEquals(Map.of("a", "int x = 1;\n  x++;"), r);
  }

  private static Path docs() {
    Path p = Path.of("..", "docs").toAbsolutePath().normalize();
    assertTrue(Files.isDirectory(p), "no docs directory at " + p);
    return p;
  }

  private static Map<String, String> taggedRegions(Path root) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        out.putAll(regions(Files.readString(f)));
      }
    }
    return out;
  }

  static Map<String, String> regions(String source) {
    Map<String, String> out = new LinkedHashMap<>();
    String[] lines = source.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      Matcher tag = TAG.matcher(lines[i]);
      if (!tag.find()) {
        continue;
      }
      String name = tag.group(1);
      StringBuilder body = new StringBuilder();
      int j = i + 1;
      while (j < lines.length && !lines[j].contains("end::" + name + "[]")) {
        body.append(lines[j]).append('\n');
        j++;
      }
      if (j == lines.length) {
        throw new IllegalStateException("tag::" + name + "[] has no end");
      }
      out.put(name, dedent(body.toString()));
      i = j;
    }
    return out;
  }

  /** Removes the indentation common to the non-blank lines, trailing spaces and blank ends. */
  static String dedent(String text) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    while (!lines.isEmpty() && lines.get(0).isBlank()) {
      lines.remove(0);
    }
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
      lines.remove(lines.size() - 1);
    }
    int indent = lines.stream().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    StringBuilder out = new StringBuilder();
    for (String l : lines) {
      out.append(l.isBlank() ? "" : l.substring(indent).stripTrailing()).append('\n');
    }
    return out.toString().stripTrailing();
  }
}
