package dev.ration.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documents cite only what exists. Over README.md and docs/*.md (and, for section
 * citations, every Java source of the repository):
 *
 * <ul>
 *   <li>every link to a section anchor, {@code [text](FILE.md#anchor)} or {@code (#anchor)},
 *       names a heading of that file (GitHub's slugs: lowercase, punctuation but '-' and '_'
 *       removed, spaces to '-', repeated slugs numbered);
 *   <li>every quoted section citation, {@code FILE.md "Heading"} or {@code FILE.md, "Heading"}
 *       (also with a directory, broken across comment lines, or escaped inside a Java string),
 *       names a heading of that file at any level: the same text, ignoring case, backticks and
 *       trailing punctuation, or the heading's title before its qualifier (a heading
 *       {@code Retention: what grows} is cited as {@code "Retention"}; the qualifier starts at
 *       ':', ';', ',', ' (' or ' —');
 *   <li>the wire kinds of docs/PROTOCOL.md's kind tables are exactly the codes and names of the
 *       {@code Kind} enum (read from its source, wherever the protocol package lives), every hex
 *       kind docs/QUOTAS.md mentions is one, and a range of kinds there ends at the last one;
 *   <li>the log command codes of docs/ARCHITECTURE.md's "Log command codes" table and of
 *       BatchCodec's javadoc are exactly the {@code CODE} constants of the statemachine's
 *       commands, with their record names, and every "log code N" the docs mention exists (a
 *       range "log codes N–M" ends at the last code of its run).
 * </ul>
 *
 * A failure lists each offending file, line and citation.
 */
class DocsConsistencyTest {
  static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  static final Pattern ANCHOR_LINK = Pattern.compile("\\]\\(([^)\\s#]*)#([^)\\s]+)\\)");
  /**
   * FILE.md "Heading" / FILE.md, "Heading", optionally with a directory, a line break inside a
   * comment between them, and escaped quotes (a citation inside a Java string). A name that is
   * itself quoted ({@code "QUOTAS.md", "TTL.md"}) is a string literal, not a citation.
   */
  static final Pattern CITATION = Pattern.compile(
      "(?<![\\w\"/.-])((?:[\\w.-]+/)*[A-Za-z_]+\\.md),?[ \\t]*(?:\\n\\s*(?:\\*|//)?\\s*)?\\\\?\"([^\"\\\\\\n]+)\\\\?\"");
  static final Pattern QUALIFIER = Pattern.compile("^(:|;|,| \\(| —)");
  static final Pattern KIND_CONSTANT =
      Pattern.compile("\\b([A-Z][A-Z0-9_]*)\\(\\s*0x([0-9A-Fa-f]{2})\\b");
  static final Pattern KIND_ROW =
      Pattern.compile("^\\|\\s*0x([0-9A-Fa-f]{2})\\s*\\|\\s*([A-Z][A-Z0-9_]*)\\s*\\|");
  static final Pattern HEX = Pattern.compile("\\b0x([0-9A-Fa-f]{2})\\b(?:\\s*[–-]\\s*0x([0-9A-Fa-f]{2})\\b)?");
  static final Pattern RECORD = Pattern.compile("\\brecord\\s+(\\w+)\\s*[(<]");
  static final Pattern CODE_CONSTANT =
      Pattern.compile("static\\s+final\\s+int\\s+((?:\\w+_)?CODE)\\s*=\\s*(\\d+)\\s*;");
  static final Pattern CODE_ROW = Pattern.compile("^\\|\\s*(\\d+)\\s*\\|\\s*`(\\w+)`");
  static final Pattern JAVADOC_CODE =
      Pattern.compile("^\\s*\\*\\s+(\\w+)(?:, [a-z ]+)?\\s+\\((\\d+)\\)");
  static final Pattern LOG_CODE_MENTION =
      Pattern.compile("\\blog codes? (\\d+)(?:\\s*[–-]\\s*(\\d+))?");
  static final String LOG_CODE_SECTION = "Log command codes";

  @Test
  void theRepositorysDocumentsCiteOnlyWhatExists() {
    Path root = repositoryRoot();
    List<String> problems = check(root);
    problems.forEach(System.out::println);
    assertEquals("", String.join("\n", problems),
        problems.size() + " broken citations in the documents (file:line: problem)");
  }

  /** The checker reports each kind of break, with the file and line, on a small repository. */
  @Test
  void eachKindOfBreakIsReportedWithItsFileAndLine(@TempDir Path root) throws IOException {
    write(root, "README.md", """
        # Project

        See [the guide](docs/GUIDE.md#first-steps) and [nowhere](docs/GUIDE.md#no-such-part),
        docs/GUIDE.md "First steps", docs/GUIDE.md "Retention" and docs/GUIDE.md "Gone".
        """);
    write(root, "docs/GUIDE.md", """
        # Guide

        ## First steps

        ## Retention: what grows

        Back to [the top](#guide), [missing](#missing).
        """);
    write(root, "docs/PROTOCOL.md", """
        | code | kind |
        |---|---|
        | 0x01 | HELLO |
        | 0x03 | GONE |
        """);
    write(root, "docs/QUOTAS.md", "Kinds 0x01–0x01 and 0x09.\n");
    write(root, "docs/ARCHITECTURE.md", """
        ### Log command codes

        | code | command |
        |---|---|
        | 1 | `SetLimit` |
        | 9 | `Missing` |
        """);
    write(root, "client/src/main/java/x/protocol/Kind.java", """
        enum Kind {
          HELLO(0x01, false),
          SET_LIMIT(
              0x02, true);
        }
        """);
    write(root, "statemachine/src/main/java/x/command/LeaseCommand.java", """
        interface LeaseCommand {
          /** docs/GUIDE.md, "Nothing like it" */
          record SetLimit(long limit) implements LeaseCommand {
            public static final int CODE = 1;
          }
          record Other(long x) implements LeaseCommand {
            public static final int CODE = 2;
          }
        }
        """);
    write(root, "statemachine/src/main/java/x/command/BatchCodec.java", """
        /**
         *   SetLimit (1)  i64 limit
         *   Other (2)     i64 x
         */
        final class BatchCodec {}
        """);

    String report = String.join("\n", check(root));
    assertTrue(report.contains("README.md:3: link to docs/GUIDE.md#no-such-part"), report);
    assertFalse(report.contains("#first-steps"), report);
    assertTrue(report.contains("README.md:4: citation docs/GUIDE.md \"Gone\""), report);
    assertFalse(report.contains("\"First steps\""), report);
    assertFalse(report.contains("\"Retention\""), report);
    assertTrue(report.contains("docs/GUIDE.md:7: link to #missing"), report);
    assertFalse(report.contains("#guide"), report);
    assertTrue(report.contains("LeaseCommand.java:2: citation docs/GUIDE.md \"Nothing like it\""),
        report);
    assertTrue(report.contains("docs/PROTOCOL.md:4: kind 0x03 GONE"), report);
    assertTrue(report.contains("kind 0x02 SET_LIMIT"), report);
    assertTrue(report.contains("docs/QUOTAS.md:1: 0x09"), report);
    assertTrue(report.contains("docs/QUOTAS.md:1: the range 0x01–0x01 ends before kind 0x02"),
        report);
    assertTrue(report.contains("docs/ARCHITECTURE.md:6: log code 9"), report);
    assertTrue(report.contains("log code 2 (Other)"), report);
  }

  @Test
  void slugsFollowGitHub() {
    assertEquals("retention-what-grows-and-what-bounds-it",
        slug("Retention: what grows and what bounds it"));
    assertEquals("tls-per-node-docssecuritymd", slug("`tls` (per node; docs/SECURITY.md)"));
    assertEquals("the-cost-of-tls--authorization", slug("The cost of TLS + authorization"));
    assertEquals("http-ration-http", slug("HTTP: [ration-http](x.md)"));
  }

  // ------------------------------------------------------------------ the checks

  static List<String> check(Path root) {
    List<String> problems = new ArrayList<>();
    List<Path> docs = new ArrayList<>();
    if (Files.isRegularFile(root.resolve("README.md"))) {
      docs.add(root.resolve("README.md"));
    }
    try (Stream<Path> s = Files.list(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<Path, List<String>> headings = new HashMap<>();
    for (Path doc : docs) {
      checkAnchors(root, doc, headings, problems);
      checkCitations(root, doc, headings, problems);
    }
    for (Path java : javaSources(root)) {
      checkCitations(root, java, headings, problems);
    }
    checkKinds(root, problems);
    checkLogCodes(root, docs, problems);
    return problems;
  }

  static void checkAnchors(Path root, Path doc, Map<Path, List<String>> headings,
      List<String> problems) {
    List<String> lines = lines(doc);
    boolean fenced = false;
    for (int i = 0; i < lines.size(); i++) {
      if (FENCE.matcher(lines.get(i)).find()) {
        fenced = !fenced;
        continue;
      }
      if (fenced) {
        continue;
      }
      Matcher m = ANCHOR_LINK.matcher(lines.get(i));
      while (m.find()) {
        String file = m.group(1);
        if (file.contains("://")) {
          continue;
        }
        Path target = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        String where = rel(root, doc) + ":" + (i + 1) + ": link to " + file + "#" + m.group(2);
        if (!Files.isRegularFile(target)) {
          problems.add(where + ": no file " + rel(root, target));
        } else if (!slugs(headings(target, headings)).contains(m.group(2))) {
          problems.add(where + ": no heading with that anchor in " + rel(root, target));
        }
      }
    }
  }

  static void checkCitations(Path root, Path file, Map<Path, List<String>> headings,
      List<String> problems) {
    String text = read(file);
    Matcher m = CITATION.matcher(text);
    while (m.find()) {
      String cited = m.group(2);
      String where = rel(root, file) + ":" + lineOf(text, m.start()) + ": citation " + m.group(1)
          + " \"" + cited + "\"";
      Path target = resolveDoc(root, file, m.group(1));
      if (target == null) {
        problems.add(where + ": no such file");
      } else if (!names(cited, headings(target, headings))) {
        problems.add(where + ": no such heading in " + rel(root, target));
      }
    }
  }

  static void checkKinds(Path root, List<String> problems) {
    Path kindFile = kindSource(root);
    if (kindFile == null) {
      problems.add("no Kind.java under a protocol package in " + root);
      return;
    }
    Map<Integer, String> kinds = new TreeMap<>();
    Matcher m = KIND_CONSTANT.matcher(read(kindFile));
    while (m.find()) {
      kinds.put(Integer.parseInt(m.group(2), 16), m.group(1));
    }
    if (kinds.isEmpty()) {
      problems.add(rel(root, kindFile) + ": no kind constants found");
      return;
    }
    Path protocol = root.resolve("docs/PROTOCOL.md");
    Map<Integer, String> documented = new TreeMap<>();
    List<String> lines = lines(protocol);
    for (int i = 0; i < lines.size(); i++) {
      Matcher row = KIND_ROW.matcher(lines.get(i));
      if (row.find()) {
        int code = Integer.parseInt(row.group(1), 16);
        documented.put(code, row.group(2));
        if (!row.group(2).equals(kinds.get(code))) {
          problems.add(rel(root, protocol) + ":" + (i + 1) + ": kind " + hex(code) + " "
              + row.group(2) + " is not in " + rel(root, kindFile) + " (there: "
              + kinds.getOrDefault(code, "no such code") + ")");
        }
      }
    }
    kinds.forEach((code, name) -> {
      if (!documented.containsKey(code)) {
        problems.add(rel(root, protocol) + ": kind " + hex(code) + " " + name + " of "
            + rel(root, kindFile) + " is in no kind table");
      }
    });
    Path quotas = root.resolve("docs/QUOTAS.md");
    if (Files.isRegularFile(quotas)) {
      List<String> q = lines(quotas);
      for (int i = 0; i < q.size(); i++) {
        Matcher h = HEX.matcher(q.get(i));
        while (h.find()) {
          String where = rel(root, quotas) + ":" + (i + 1) + ": ";
          int from = Integer.parseInt(h.group(1), 16);
          if (!kinds.containsKey(from)) {
            problems.add(where + hex(from) + " is not a kind of " + rel(root, kindFile));
          }
          if (h.group(2) != null) {
            int to = Integer.parseInt(h.group(2), 16);
            if (!kinds.containsKey(to)) {
              problems.add(where + hex(to) + " is not a kind of " + rel(root, kindFile));
            } else if (kinds.containsKey(to + 1)) {
              problems.add(where + "the range " + hex(from) + "–" + hex(to) + " ends before kind "
                  + hex(to + 1) + " " + kinds.get(to + 1));
            }
          }
        }
      }
    }
  }

  static void checkLogCodes(Path root, List<Path> docs, List<String> problems) {
    Path commands = root.resolve("statemachine/src/main/java");
    Map<Integer, String> codes = new TreeMap<>();
    Path batchCodec = null;
    for (Path java : javaSources(commands)) {
      if (!java.getParent().getFileName().toString().equals("command")) {
        continue;
      }
      if (java.getFileName().toString().equals("BatchCodec.java")) {
        batchCodec = java;
      }
      String text = read(java);
      Matcher c = CODE_CONSTANT.matcher(text);
      while (c.find()) {
        String record = "?";
        Matcher r = RECORD.matcher(text.substring(0, c.start()));
        while (r.find()) {
          record = r.group(1);
        }
        codes.put(Integer.parseInt(c.group(2)), record);
      }
    }
    if (codes.isEmpty()) {
      problems.add("no command CODE constants under " + rel(root, commands));
      return;
    }
    Path architecture = root.resolve("docs/ARCHITECTURE.md");
    compareCodes(root, architecture, tableUnder(architecture, LOG_CODE_SECTION, CODE_ROW), codes,
        problems);
    if (batchCodec == null) {
      problems.add("no BatchCodec.java under " + rel(root, commands));
    } else {
      Map<Integer, Entry> javadoc = new TreeMap<>();
      List<String> lines = lines(batchCodec);
      for (int i = 0; i < lines.size() && !lines.get(i).startsWith(" */"); i++) {
        Matcher m = JAVADOC_CODE.matcher(lines.get(i));
        if (m.find()) {
          javadoc.put(Integer.parseInt(m.group(2)), new Entry(m.group(1), i + 1));
        }
      }
      compareCodes(root, batchCodec, javadoc, codes, problems);
    }
    for (Path doc : docs) {
      List<String> lines = lines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = LOG_CODE_MENTION.matcher(lines.get(i));
        while (m.find()) {
          String where = rel(root, doc) + ":" + (i + 1) + ": " + m.group() + ": ";
          int from = Integer.parseInt(m.group(1));
          if (!codes.containsKey(from)) {
            problems.add(where + "no command has code " + from);
          }
          if (m.group(2) != null) {
            int to = Integer.parseInt(m.group(2));
            if (!codes.containsKey(to)) {
              problems.add(where + "no command has code " + to);
            } else if (codes.containsKey(to + 1)) {
              problems.add(where + "the range ends before log code " + (to + 1) + " ("
                  + codes.get(to + 1) + ")");
            }
          }
        }
      }
    }
  }

  record Entry(String name, int line) {}

  private static void compareCodes(Path root, Path file, Map<Integer, Entry> documented,
      Map<Integer, String> codes, List<String> problems) {
    if (documented.isEmpty()) {
      problems.add(rel(root, file) + ": no log command code table found");
      return;
    }
    documented.forEach((code, e) -> {
      if (!e.name().equals(codes.get(code))) {
        problems.add(rel(root, file) + ":" + e.line() + ": log code " + code + " " + e.name()
            + " is not a command's code (there: " + codes.getOrDefault(code, "no such code") + ")");
      }
    });
    codes.forEach((code, name) -> {
      if (!documented.containsKey(code)) {
        problems.add(rel(root, file) + ": log code " + code + " (" + name
            + ") is missing from its code table");
      }
    });
  }

  /** The rows of the first table after the heading named {@code section}. */
  private static Map<Integer, Entry> tableUnder(Path doc, String section, Pattern row) {
    Map<Integer, Entry> out = new TreeMap<>();
    if (!Files.isRegularFile(doc)) {
      return out;
    }
    List<String> lines = lines(doc);
    boolean inSection = false;
    boolean inTable = false;
    for (int i = 0; i < lines.size(); i++) {
      Matcher h = HEADING.matcher(lines.get(i));
      if (h.matches()) {
        if (inSection) {
          break;
        }
        inSection = normalize(h.group(2)).equals(normalize(section));
        continue;
      }
      if (!inSection) {
        continue;
      }
      if (lines.get(i).startsWith("|")) {
        inTable = true;
        Matcher m = row.matcher(lines.get(i));
        if (m.find()) {
          out.put(Integer.parseInt(m.group(1)), new Entry(m.group(2), i + 1));
        }
      } else if (inTable) {
        break;
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ headings and slugs

  static List<String> headings(Path doc, Map<Path, List<String>> cache) {
    return cache.computeIfAbsent(doc, d -> {
      List<String> out = new ArrayList<>();
      boolean fenced = false;
      for (String line : lines(d)) {
        if (FENCE.matcher(line).find()) {
          fenced = !fenced;
        } else if (!fenced) {
          Matcher m = HEADING.matcher(line);
          if (m.matches()) {
            out.add(m.group(2));
          }
        }
      }
      return out;
    });
  }

  static boolean names(String cited, List<String> headings) {
    String c = normalize(cited);
    for (String h : headings) {
      String n = normalize(h);
      if (n.equals(c) || (n.startsWith(c) && QUALIFIER.matcher(n.substring(c.length())).find())) {
        return true;
      }
    }
    return false;
  }

  static String normalize(String text) {
    return text.replace("`", "").trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ")
        .replaceAll("[.:,;!?]+$", "");
  }

  static Set<String> slugs(List<String> headings) {
    Set<String> out = new TreeSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String h : headings) {
      String s = slug(h);
      int n = seen.merge(s, 1, Integer::sum) - 1;
      out.add(n == 0 ? s : s + "-" + n);
    }
    return out;
  }

  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "")
        .toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder();
    text.codePoints().forEach(cp -> {
      if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
        out.appendCodePoint(cp);
      } else if (cp == ' ') {
        out.append('-');
      }
    });
    return out.toString();
  }

  // ------------------------------------------------------------------ files

  /** The repository root: the first directory up from here with README.md, docs/ and a pom. */
  static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))
          && Files.isRegularFile(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new AssertionError("no repository root (README.md, docs/, pom.xml) above " + dir);
  }

  /**
   * The wire protocol's Kind enum: the one Kind.java in a {@code protocol} package of a main
   * source tree (it may live in the client module or in a module of its own).
   */
  static Path kindSource(Path root) {
    List<Path> found = javaSources(root).stream()
        .filter(p -> p.getFileName().toString().equals("Kind.java"))
        .filter(p -> p.getParent().getFileName().toString().equals("protocol"))
        .filter(p -> rel(root, p).contains("src/main/java/"))
        .sorted()
        .collect(Collectors.toList());
    return found.isEmpty() ? null : found.get(0);
  }

  /** A cited document: a path from the citing file's directory, docs/ or the root. */
  static Path resolveDoc(Path root, Path citing, String name) {
    List<Path> candidates = new ArrayList<>();
    if (name.contains("/")) {
      candidates.add(root.resolve(name));
    }
    String base = Path.of(name).getFileName().toString();
    candidates.add(citing.getParent().resolve(name));
    candidates.add(citing.getParent().resolve(base));
    candidates.add(root.resolve("docs").resolve(base));
    candidates.add(root.resolve(base));
    for (Path c : candidates) {
      if (Files.isRegularFile(c.normalize())) {
        return c.normalize();
      }
    }
    return null;
  }

  static List<Path> javaSources(Path root) {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> {
            String r = rel(root, p);
            return !r.contains("/target/") && !r.startsWith("target/")
                && Stream.of(r.split("/")).noneMatch(part -> part.startsWith("."))
                && !p.getFileName().toString().equals("DocsConsistencyTest.java");
          })
          .sorted()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> lines(Path p) {
    return List.of(read(p).split("\n", -1));
  }

  private static int lineOf(String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  private static String rel(Path root, Path p) {
    return root.relativize(p).toString().replace('\\', '/');
  }

  private static String hex(int code) {
    return String.format(Locale.ROOT, "0x%02X", code);
  }

  private static void write(Path root, String rel, String text) throws IOException {
    Path p = root.resolve(rel);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text, StandardCharsets.UTF_8);
  }
}
