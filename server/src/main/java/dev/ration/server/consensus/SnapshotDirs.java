package dev.ration.server.consensus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import dev.ration.statemachine.CheckpointManifest;

/**
 * The snapshots of this node: RocksDB checkpoints in {@code <raft storage>/<group>/sm/snapshot.<term>_<index>/},
 * each with its manifest. The newest complete one is what Ratis sends to a lagging follower
 * (its files, as absolute paths under the state machine directory, which Ratis transfers relative
 * to that directory) and what a restart reports as the latest snapshot.
 *
 * <p>A checkpoint is written under a {@code tmp.} name and renamed when complete, so a directory
 * named {@code snapshot.*} with a manifest is always whole. The latest snapshot is rescanned from
 * disk after every change (RATIS-2111: never trust a cached value across an install).
 *
 * <p>Thread: called by the Ratis state-machine updater (take, install) and by any thread asking
 * for the latest snapshot; the cached value is volatile.
 */
final class SnapshotDirs implements StateMachineStorage {
  static final String PREFIX = "snapshot.";
  static final String TMP_PREFIX = "tmp.snapshot.";
  private static final Pattern NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");
  /** Ratis writes an MD5 file beside each installed file; it is not part of the checkpoint. */
  private static final String MD5_SUFFIX = ".md5";

  /** One snapshot directory and the (term, index) its name records. */
  record Dir(Path path, long term, long index) {}

  private volatile Path smDir;
  private volatile Optional<Dir> latest = Optional.empty();
  private volatile FileListSnapshotInfo latestInfo;

  @Override
  public void init(RaftStorage storage) throws IOException {
    smDir = storage.getStorageDir().getStateMachineDir().toPath();
    Files.createDirectories(smDir);
    rescan();
  }

  Path smDir() {
    return smDir;
  }

  Path dirFor(long term, long index) {
    return smDir.resolve(PREFIX + term + "_" + index);
  }

  Path tmpDirFor(long term, long index) {
    return smDir.resolve(TMP_PREFIX + term + "_" + index);
  }

  Optional<Dir> latest() {
    return latest;
  }

  /** Re-read the directory: the newest complete snapshot becomes the latest. */
  synchronized void rescan() throws IOException {
    List<Dir> dirs = list();
    Optional<Dir> newest = dirs.stream().max(Comparator.comparingLong(Dir::index));
    FileListSnapshotInfo info = null;
    if (newest.isPresent()) {
      Dir dir = newest.get();
      List<FileInfo> files = new ArrayList<>();
      try (Stream<Path> walk = Files.walk(dir.path())) {
        for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile).sorted()::iterator) {
          if (!p.getFileName().toString().endsWith(MD5_SUFFIX)) {
            // The digest is computed by Ratis while streaming; none is needed here.
            files.add(new FileInfo(p.toAbsolutePath(), null));
          }
        }
      }
      info = new FileListSnapshotInfo(files, dir.term(), dir.index());
    }
    latest = newest;
    latestInfo = info;
  }

  /** Complete snapshot directories (a manifest present), any order. */
  List<Dir> list() throws IOException {
    List<Dir> dirs = new ArrayList<>();
    if (smDir == null || !Files.isDirectory(smDir)) {
      return dirs;
    }
    try (Stream<Path> children = Files.list(smDir)) {
      for (Path child : (Iterable<Path>) children::iterator) {
        Matcher m = NAME.matcher(child.getFileName().toString());
        if (m.matches()
            && Files.isDirectory(child)
            && Files.isRegularFile(child.resolve(CheckpointManifest.FILE_NAME))) {
          dirs.add(new Dir(child, Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
        }
      }
    }
    return dirs;
  }

  /** Keep the {@code keep} newest snapshots; delete older ones and abandoned tmp dirs. */
  synchronized void prune(int keep) throws IOException {
    List<Dir> dirs = list();
    dirs.sort(Comparator.comparingLong(Dir::index).reversed());
    for (int i = keep; i < dirs.size(); i++) {
      deleteTree(dirs.get(i).path());
    }
    try (Stream<Path> children = Files.list(smDir)) {
      for (Path child : (Iterable<Path>) children::iterator) {
        if (child.getFileName().toString().startsWith(TMP_PREFIX)) {
          deleteTree(child);
        }
      }
    }
  }

  /**
   * Ratis leaves a {@code .md5} file beside every file it installed (already verified during the
   * transfer); the checkpoint manifest must list exactly the checkpoint's files, so drop them.
   */
  static void removeTransferDigests(Path snapshotDir) throws IOException {
    try (Stream<Path> walk = Files.walk(snapshotDir)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        if (Files.isRegularFile(p) && p.getFileName().toString().endsWith(MD5_SUFFIX)) {
          Files.delete(p);
        }
      }
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return latestInfo;
  }

  TermIndex latestTermIndex() {
    FileListSnapshotInfo info = latestInfo;
    return info == null ? null : info.getTermIndex();
  }

  @Override
  public void format() {
    // Nothing to format: the directory is created by init.
  }

  @Override
  public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) {
    // Retention is ours (prune after each snapshot): keep the two newest checkpoints.
  }
}
