package dev.ration.jepsen;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** What a test that starts real node processes needs: not skipped, and the CLI's jar built. */
final class NodeBuild {
  private NodeBuild() {}

  /** The repository root, once the test is known to run (else the test is skipped, saying why). */
  static String assumeBuilt() {
    assumeTrue(!Boolean.getBoolean("ration.jepsen.skip"), "skipped by -Dration.jepsen.skip=true");
    String root = System.getProperty("ration.root", "..");
    assumeTrue(Files.exists(Path.of(root, "cli/target/ration-cli.jar")),
        "cli/target/ration-cli.jar missing: build it with "
            + "mvn -B -q package -DskipTests -Dfuzz.skip=true -Djavadoc.skip=true -pl cli -am");
    return root;
  }
}
