package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The build of an earlier commit of this repository, for upgrade tests: its source is taken with
 * `git archive` (no worktree is registered), built with `mvn package -DskipTests` for the server
 * and its modules, and cached under cli/target/previous-release/COMMIT, so a second run reuses
 * it. Only one previous release is kept there: building another removes the rest.
 *
 * <p>The build is told its commit (it is outside any git checkout of its own, and git must not
 * find this checkout above it), so `ration --version` of the old launcher names the old commit.
 */
final class PreviousRelease {
  private PreviousRelease() {}

  /** The source root of the built commit: its bin/ration runs the old server and CLI. */
  static Path build(Path sourceRoot, String commit, Path cacheRoot) throws Exception {
    String sha = run(sourceRoot, List.of("git", "rev-parse", "--verify", commit + "^{commit}"), null, 60)
        .trim();
    Path dir = cacheRoot.resolve(sha.substring(0, 12)).toAbsolutePath();
    Path src = dir.resolve("src");
    Path built = dir.resolve("built");
    if (Files.isRegularFile(built) && Files.isRegularFile(launcherJar(src))) {
      return src;
    }
    deleteTree(cacheRoot);
    Files.createDirectories(src);
    Path tar = dir.resolve("source.tar");
    run(sourceRoot, List.of("git", "archive", "--format=tar", "-o", tar.toString(), sha), null, 120);
    run(src, List.of("tar", "-xf", tar.toString()), null, 120);
    Files.delete(tar);
    // Offline first: every plugin and dependency of a recent commit is in the local repository
    // after this build; online only if the old tree needs something else.
    List<String> mvn = List.of("mvn", "-B", "-q", "package", "-DskipTests", "-Dmaven.javadoc.skip=true",
        "-Dgit.commit.id=" + sha, "-pl", Files.isDirectory(src.resolve("cli")) ? "cli" : "server", "-am");
    Path log = dir.resolve("build.log");
    try {
      run(src, offline(mvn), dir, 900, log);
    } catch (AssertionError offlineFailed) {
      run(src, mvn, dir, 900, log);
    }
    assertTrue(Files.isRegularFile(launcherJar(src)),
        "no " + launcherJar(src) + " after building " + sha + ": " + Files.readString(log));
    Files.writeString(built, sha + "\n");
    return src;
  }

  /**
   * The jar bin/ration runs in a checkout: the CLI module's, or before the CLI was a module of
   * its own, the server module's (which then held the CLI).
   */
  static Path launcherJar(Path src) {
    return Files.isDirectory(src.resolve("cli")) ? src.resolve("cli/target/ration-cli.jar")
        : src.resolve("server/target/ration-server.jar");
  }

  private static List<String> offline(List<String> mvn) {
    List<String> o = new java.util.ArrayList<>(mvn);
    o.add(1, "-o");
    return o;
  }

  private static String run(Path cwd, List<String> command, Path gitCeiling, int timeoutSeconds)
      throws Exception {
    Path out = Files.createTempFile("previous-release-", ".out");
    try {
      return run(cwd, command, gitCeiling, timeoutSeconds, out);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static String run(Path cwd, List<String> command, Path gitCeiling, int timeoutSeconds, Path out)
      throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
        .redirectOutput(out.toFile());
    if (gitCeiling != null) {
      // The old tree lies inside this checkout: git must not report this checkout's commit.
      pb.environment().put("GIT_CEILING_DIRECTORIES", gitCeiling.toString());
    }
    Process p = pb.start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
      fail(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s");
    }
    String text = Files.readString(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      fail(String.join(" ", command) + " in " + cwd + " exited " + p.exitValue() + ":\n" + text);
    }
    return text;
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
