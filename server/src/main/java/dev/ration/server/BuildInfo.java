package dev.ration.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version and git commit this server was built from, read from {@code build.properties},
 * which Maven fills in when it packages the jar. Shown by {@code ration --version} and exported
 * as the {@code ration_build_info} metric.
 *
 * <p>A build outside a git checkout (a source tarball) has no commit: {@link #commit()} is then
 * {@value #UNKNOWN}, and {@link #describe()} says so rather than printing a placeholder. A class
 * path without the file at all (classes compiled by an IDE) reports the version as unknown too.
 *
 * @param version the Maven project version, e.g. {@code 0.1.0-SNAPSHOT}
 * @param commit the full commit hash, or {@value #UNKNOWN}
 * @param dirty whether the working tree had uncommitted changes when it was built
 */
public record BuildInfo(String version, String commit, boolean dirty) {
  public static final String UNKNOWN = "unknown";
  static final String RESOURCE = "/dev/ration/server/build.properties";

  private static final BuildInfo CURRENT = load();

  /** This jar's build information (read once). */
  public static BuildInfo current() {
    return CURRENT;
  }

  static BuildInfo load() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return new BuildInfo(UNKNOWN, UNKNOWN, false);
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
    return fromProperties(p);
  }

  static BuildInfo fromProperties(Properties p) {
    return new BuildInfo(known(p.getProperty("version")), known(p.getProperty("commit")),
        "true".equals(known(p.getProperty("dirty"))));
  }

  /** A filtered value, or {@value #UNKNOWN} where Maven left the placeholder (nothing set it). */
  private static String known(String value) {
    if (value == null || value.isBlank() || value.contains("${")) {
      return UNKNOWN;
    }
    return value.trim();
  }

  /** The short commit (12 hex digits), or {@value #UNKNOWN}. */
  public String shortCommit() {
    return commit.equals(UNKNOWN) ? UNKNOWN : commit.substring(0, Math.min(12, commit.length()));
  }

  /** One line for {@code --version}: "ration 0.1.0 (commit 0123456789ab)". */
  public String describe() {
    String c = commit.equals(UNKNOWN)
        ? "commit unknown: built outside a git checkout"
        : "commit " + shortCommit() + (dirty ? ", with uncommitted changes" : "");
    return "ration " + version + " (" + c + ")";
  }
}
