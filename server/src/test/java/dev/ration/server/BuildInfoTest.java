package dev.ration.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Goal: `ration --version` names the commit when the build knew it and says plainly when not. */
class BuildInfoTest {
  @Test
  void aBuildInAGitCheckoutNamesItsCommit() {
    BuildInfo b = BuildInfo.fromProperties(props("0.2.0", "0123456789abcdef0123456789abcdef01234567", "false"));
    assertEquals("ration 0.2.0 (commit 0123456789ab)", b.describe());
    assertEquals("ration 0.2.0 (commit 0123456789ab, with uncommitted changes)",
        BuildInfo.fromProperties(props("0.2.0", "0123456789abcdef0123456789abcdef01234567", "true")).describe());
  }

  /** Outside git the plugin sets nothing, so resource filtering leaves the placeholders. */
  @Test
  void aBuildOutsideGitSaysTheCommitIsUnknown() {
    BuildInfo b = BuildInfo.fromProperties(props("0.2.0", "${git.commit.id}", "${git.dirty}"));
    assertEquals(BuildInfo.UNKNOWN, b.commit());
    assertFalse(b.dirty());
    assertEquals("ration 0.2.0 (commit unknown: built outside a git checkout)", b.describe());
  }

  /** The packaged jar's own file was filtered: its version is the project's, never a placeholder. */
  @Test
  void theBuiltJarKnowsItsVersion() {
    assertNotEquals(BuildInfo.UNKNOWN, BuildInfo.current().version());
    assertFalse(BuildInfo.current().version().contains("$"));
  }

  private static Properties props(String version, String commit, String dirty) {
    Properties p = new Properties();
    p.setProperty("version", version);
    p.setProperty("commit", commit);
    p.setProperty("dirty", dirty);
    return p;
  }
}
