package dev.ration.cli.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/ration's per-user class-data sharing archives (when the archive shipped with the build does
 * not apply, here because RATION_JAVA_OPTS is set): one per build and command, so a command run first
 * (`--version`, `cert ...`) does not decide which classes every later command finds archived,
 * and a new archive removes the archives of this checkout's other builds, not other checkouts'.
 */
class LauncherCdsIT {
  private final Path root = EndToEndIT.findRoot();

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void eachCommandGetsItsOwnArchiveAndThisCheckoutsOtherBuildsArchivesGo(@TempDir Path cache) throws Exception {
    Path oldLayout = Files.writeString(cache.resolve("cli-2.jsa"), "an archive of the one-per-build layout");

    assertEquals(0, run(cache, "--version"));
    List<String> afterVersion = archives(cache);
    assertEquals(1, afterVersion.size(), "one archive after --version: " + afterVersion);
    assertFalse(Files.exists(oldLayout), "an archive of the old layout is removed");
    Matcher name = Pattern.compile("cli-(\\d+)-(\\d+)-\\.jsa").matcher(afterVersion.get(0));
    assertTrue(name.matches(), afterVersion.toString());
    String place = name.group(1);
    String key = place + "-" + name.group(2);

    Path otherBuild = Files.writeString(cache.resolve("cli-" + place + "-1-cluster-status.jsa"), "an older build's");
    Path otherCheckout = Files.writeString(cache.resolve("cli-1-1-cluster-status.jsa"), "another checkout's");
    // Options before the command and their values do not change the command named.
    assertEquals(0, run(cache, "--output", "json", "cluster", "status", "--help"));
    assertFalse(Files.exists(otherBuild), "this checkout's other build's archive is removed");
    assertTrue(Files.exists(otherCheckout), "another checkout's archive is kept");
    List<String> afterStatus = archives(cache);
    assertEquals(List.of("cli-1-1-cluster-status.jsa", "cli-" + key + "-.jsa", "cli-" + key + "-cluster-status.jsa"),
        afterStatus);

    // The same command again maps its archive: nothing new is recorded.
    Path status = cache.resolve("cli-" + key + "-cluster-status.jsa");
    long modified = Files.getLastModifiedTime(status).toMillis();
    assertEquals(0, run(cache, "cluster", "status", "--help"));
    assertEquals(afterStatus, archives(cache));
    assertEquals(modified, Files.getLastModifiedTime(status).toMillis());
  }

  private int run(Path cache, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(root.resolve("bin/ration").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("RATION_CDS_DIR", cache.toString());
    pb.environment().put("RATION_HELPER", "off");
    // The launcher's default options spelled out: with RATION_JAVA_OPTS set, the archive shipped
    // with the build does not apply and the per-user archives this test is about are recorded.
    pb.environment().put("RATION_JAVA_OPTS", "-Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "bin/ration " + command + " did not finish");
    assertEquals(0, p.exitValue(), output);
    return p.exitValue();
  }

  private static List<String> archives(Path cache) throws Exception {
    try (Stream<Path> files = Files.list(cache)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".jsa")).sorted().toList();
    }
  }
}
