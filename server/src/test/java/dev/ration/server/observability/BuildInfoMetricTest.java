package dev.ration.server.observability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ration.server.BuildInfo;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Goal: the `ration_build_info` metric names the commit exactly as `ration --version` does. */
class BuildInfoMetricTest {
  @Test
  void theMetricsCommitIsTheOneVersionPrints() {
    try (ServerMetrics metrics = new ServerMetrics()) {
      Matcher m = Pattern.compile("ration_build_info\\{[^}]*commit=\"([^\"]*)\"").matcher(metrics.scrape());
      assertTrue(m.find(), "no ration_build_info series");
      String commit = m.group(1);
      BuildInfo build = BuildInfo.current();
      assertTrue(commit.equals(build.shortCommit()), commit + " vs " + build.shortCommit());
      assertTrue(build.describe().contains("commit " + commit) || commit.equals(BuildInfo.UNKNOWN), build.describe());
      assertTrue(commit.equals(BuildInfo.UNKNOWN) || commit.matches("[0-9a-f]{12}"), commit);
    }
  }
}
