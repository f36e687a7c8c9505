package dev.ration.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderHintTest {
  private static final List<String> SERVERS = List.of("10.0.0.1:7101", "10.0.0.2:7101", "10.0.0.3:7101");

  @Test
  void theServerThatAnsweredIsAskedFirstNextTime(@TempDir Path dir) {
    assertEquals(SERVERS, LeaderHint.of(dir, SERVERS).ordered(), "no hint yet: the list as given");
    LeaderHint.of(dir, SERVERS).remember("10.0.0.3:7101");
    assertEquals(List.of("10.0.0.3:7101", "10.0.0.1:7101", "10.0.0.2:7101"), LeaderHint.of(dir, SERVERS).ordered());
    // The same servers in another order share the hint.
    List<String> shuffled = List.of("10.0.0.2:7101", "10.0.0.3:7101", "10.0.0.1:7101");
    assertEquals(List.of("10.0.0.3:7101", "10.0.0.2:7101", "10.0.0.1:7101"), LeaderHint.of(dir, shuffled).ordered());
    LeaderHint.of(dir, SERVERS).remember("10.0.0.1:7101");
    assertEquals(SERVERS, LeaderHint.of(dir, SERVERS).ordered(), "a new leader replaces the hint");
  }

  @Test
  void aHintNeverAddsAServerToTheList(@TempDir Path dir) throws Exception {
    LeaderHint.of(dir, SERVERS).remember("10.9.9.9:7101");
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count(), "an address outside the list is not remembered");
    }
    LeaderHint.of(dir, SERVERS).remember("10.0.0.2:7101");
    Path file;
    try (var files = Files.list(dir)) {
      file = files.findFirst().orElseThrow();
    }
    Files.writeString(file, "10.9.9.9:7101\n");
    assertEquals(SERVERS, LeaderHint.of(dir, SERVERS).ordered(), "an altered file names no server of the list");
    Files.writeString(file, "x".repeat(4096));
    assertEquals(SERVERS, LeaderHint.of(dir, SERVERS).ordered(), "an oversized file is ignored");
    List<String> other = List.of("10.0.0.1:7101", "10.0.0.2:7101");
    LeaderHint.of(dir, other).remember("10.0.0.2:7101");
    assertEquals(List.of("10.0.0.2:7101", "10.0.0.1:7101"), LeaderHint.of(dir, other).ordered());
    assertEquals(SERVERS, LeaderHint.of(dir, SERVERS).ordered(), "another list has its own hint");
  }

  @Test
  void anUnwritableDirectoryCostsNothing(@TempDir Path dir) throws Exception {
    Path notADir = Files.writeString(dir.resolve("file"), "");
    LeaderHint hint = LeaderHint.of(notADir, SERVERS);
    hint.remember("10.0.0.2:7101");
    assertEquals(SERVERS, hint.ordered());
  }

  @Test
  void theDirectoryFollowsTheCacheConvention() {
    assertEquals(Optional.of(Path.of("/x/cache/ration")),
        LeaderHint.userDir(Map.of("XDG_CACHE_HOME", "/x/cache", "HOME", "/home/u")));
    assertEquals(Optional.of(Path.of("/home/u/.cache/ration")), LeaderHint.userDir(Map.of("HOME", "/home/u")));
    assertEquals(Optional.empty(), LeaderHint.userDir(Map.of("HOME", "relative")));
    assertEquals(Optional.empty(), LeaderHint.userDir(Map.of()));
  }
}
