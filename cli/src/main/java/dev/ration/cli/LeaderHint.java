package dev.ration.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The server of a {@code --servers} list that answered the last command, remembered between
 * one-shot commands so the next one asks it first. Reads are answered by the leader only, so a
 * command that starts at a follower is sent on (NOT_LEADER) and pays a second connection and TLS
 * handshake, about a tenth of a one-shot command's time; the list's first server is a follower
 * two times in three.
 *
 * <p>A hint only reorders the list it was recorded for: an address not in the list is never
 * tried because of it, so a stale or altered file can cost a redirect, nothing else. One small
 * file per list, in {@code ${XDG_CACHE_HOME:-~/.cache}/ration/}; any failure to read or write it
 * is ignored.
 */
final class LeaderHint {
  private final Path file;
  private final List<String> servers;

  private LeaderHint(Path file, List<String> servers) {
    this.file = file;
    this.servers = List.copyOf(servers);
  }

  /** The hint of {@code servers} in {@code dir}. */
  static LeaderHint of(Path dir, List<String> servers) {
    // Named by the list as a set: the same servers in another order share a hint.
    String key = String.join(",", new TreeSet<>(servers));
    return new LeaderHint(dir.resolve("leader-" + Integer.toHexString(key.hashCode())), servers);
  }

  /** The directory of the user's hints, from the environment; empty without a home. */
  static Optional<Path> userDir(Map<String, String> env) {
    String cache = env.get("XDG_CACHE_HOME");
    if (cache != null && cache.startsWith("/")) {
      return Optional.of(Path.of(cache, "ration"));
    }
    String home = env.get("HOME");
    if (home != null && home.startsWith("/")) {
      return Optional.of(Path.of(home, ".cache", "ration"));
    }
    return Optional.empty();
  }

  /** The list with the remembered server first, or the list as given. */
  List<String> ordered() {
    Optional<String> hinted = read();
    if (hinted.isEmpty() || !servers.contains(hinted.get()) || servers.get(0).equals(hinted.get())) {
      return servers;
    }
    List<String> out = new ArrayList<>(servers.size());
    out.add(hinted.get());
    for (String s : servers) {
      if (!s.equals(hinted.get())) {
        out.add(s);
      }
    }
    return out;
  }

  /** Remembers {@code answered} (a server of the list) when it is not what the file says. */
  void remember(String answered) {
    if (answered == null || !servers.contains(answered) || read().filter(answered::equals).isPresent()) {
      return;
    }
    try {
      Files.createDirectories(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
      try {
        Files.writeString(tmp, answered + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tmp);
      }
    } catch (IOException | RuntimeException e) {
      // A hint is an optimisation: a read-only or missing home costs a redirect, never a failure.
    }
  }

  private Optional<String> read() {
    try {
      if (!Files.isRegularFile(file) || Files.size(file) > 512) {
        return Optional.empty();
      }
      return Optional.of(Files.readString(file, StandardCharsets.UTF_8).strip());
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
