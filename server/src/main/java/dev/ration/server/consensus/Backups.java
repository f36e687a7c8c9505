package dev.ration.server.consensus;

import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.StoreException;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Backup archives ({@code ration snapshot save}, docs/OPERATIONS.md "Backup and restore"): a
 * zip holding {@value #HEADER} (what was saved, from where, at which applied term and index)
 * and the checkpoint's files under {@code checkpoint/}, its manifest (a CRC32C of every file
 * and of itself) among them. A restore checks the zip's own CRC32 of every entry, the header
 * against the manifest, and every file against the manifest before anything is written to the
 * data directory. Stateless.
 */
public final class Backups {
  static final String HEADER = "ration-backup.txt";
  private static final String MAGIC = "ration-backup 1";
  private static final String DIR = "checkpoint/";

  private Backups() {}

  /** What an archive says about itself. */
  public record Header(String groupId, String nodeId, long term, long index, String createdAt) {}

  /** Writes {@code checkpointDir} (with its manifest) as an archive to {@code out}. */
  static void write(Path checkpointDir, Header header, OutputStream out) throws IOException {
    ZipOutputStream zip = new ZipOutputStream(out);
    zip.putNextEntry(new ZipEntry(HEADER));
    zip.write(format(header).getBytes(StandardCharsets.UTF_8));
    zip.closeEntry();
    List<Path> files;
    try (Stream<Path> list = Files.list(checkpointDir)) {
      files = list.filter(Files::isRegularFile).sorted().toList();
    }
    for (Path file : files) {
      zip.putNextEntry(new ZipEntry(DIR + file.getFileName()));
      Files.copy(file, zip);
      zip.closeEntry();
    }
    zip.finish();
    zip.flush();
  }

  /** A backup that could not be taken; {@code leaderAdminAddress} when this node does not lead. */
  public static final class BackupException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean notLeader;
    private final String leaderAdminAddress;

    BackupException(String message, boolean notLeader, String leaderAdminAddress) {
      super(message);
      this.notLeader = notLeader;
      this.leaderAdminAddress = leaderAdminAddress;
    }

    public boolean notLeader() {
      return notLeader;
    }

    public String leaderAdminAddress() {
      return leaderAdminAddress;
    }
  }

  /** A checkpoint taken for a backup (in {@code dir}/checkpoint), on disk until closed. */
  public record Prepared(Path dir, Header header) implements AutoCloseable {
    public void writeTo(OutputStream out) throws IOException {
      write(dir.resolve("checkpoint"), header, out);
    }

    @Override
    public void close() {
      try {
        SnapshotDirs.deleteTree(dir);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("delete backup checkpoint " + dir, e);
      }
    }
  }

  static String format(Header h) {
    return MAGIC + "\ngroup " + h.groupId() + "\nnode " + h.nodeId() + "\nterm " + h.term()
        + "\nindex " + h.index() + "\ncreated " + h.createdAt() + "\n";
  }

  static Header header(String groupId, String nodeId, CheckpointManifest m) {
    return new Header(groupId, nodeId, m.term(), m.index(), Instant.now().toString());
  }

  /**
   * The next zip entry; a damaged entry header (a name that is not UTF-8, a bad field) is an
   * {@link IOException} naming the archive, like every other damage, not an unchecked error.
   */
  private static ZipEntry nextEntry(ZipInputStream zip, Path archive) throws IOException {
    try {
      return zip.getNextEntry();
    } catch (IllegalArgumentException e) {
      throw new IOException(archive + ": damaged zip entry header (" + e.getMessage() + "): not a"
          + " readable Ration backup", e);
    }
  }

  /**
   * Unpacks {@code archive} into {@code target} (created; must not exist) and checks it: the
   * zip's CRCs, a header, a checkpoint whose manifest matches the header and whose files match
   * the manifest. Returns the header; anything else is an {@link IOException} naming the problem.
   */
  public static Header extract(Path archive, Path target) throws IOException {
    Files.createDirectories(target.getParent());
    Files.createDirectory(target);
    Path checkpoint = target.resolve("checkpoint");
    Files.createDirectory(checkpoint);
    Header header = null;
    int entries = 0;
    try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(archive))) {
      for (ZipEntry e = nextEntry(zip, archive); e != null; e = nextEntry(zip, archive)) {
        if (++entries > 100_000) {
          throw new IOException(archive + ": more than 100000 entries: not a Ration backup");
        }
        String name = e.getName();
        if (name.equals(HEADER)) {
          header = parse(archive, new String(readBounded(zip, 64 << 10), StandardCharsets.UTF_8));
        } else if (name.startsWith(DIR) && name.length() > DIR.length()
            && !name.substring(DIR.length()).contains("/") && !name.contains("..")) {
          // ZipInputStream checks each entry's CRC32 as it is read to the end.
          Files.copy(zip, checkpoint.resolve(name.substring(DIR.length())));
        } else {
          throw new IOException(archive + ": unexpected entry '" + name + "': not a Ration backup");
        }
      }
    } catch (java.util.zip.ZipException e) {
      throw new IOException(archive + ": damaged archive: " + e.getMessage(), e);
    }
    if (header == null) {
      throw new IOException(archive + ": no " + HEADER + ": not a Ration backup");
    }
    CheckpointManifest manifest;
    try {
      manifest = RocksCoordinatorState.readManifest(checkpoint);
    } catch (StoreException e) {
      throw new IOException(archive + ": " + e.getMessage(), e);
    }
    if (manifest.term() != header.term() || manifest.index() != header.index()) {
      throw new IOException(archive + ": header says term " + header.term() + " index "
          + header.index() + " but the checkpoint's manifest says term " + manifest.term()
          + " index " + manifest.index());
    }
    return header;
  }

  /**
   * Seeds {@code stateDir} from a checkpoint extracted by {@link #extract} as the first state of
   * a new group: every file is checked against the manifest, the state is opened and verified,
   * and its applied position reset (the new group's log starts again).
   */
  public static CheckpointManifest restore(Path extracted, Path stateDir, StateOptions options)
      throws IOException {
    try {
      return RocksCoordinatorState.restoreAsNewGroup(extracted.resolve("checkpoint"), stateDir, options);
    } catch (StoreException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static Header parse(Path archive, String text) throws IOException {
    List<String> lines = text.lines().toList();
    if (lines.isEmpty() || !lines.get(0).equals(MAGIC)) {
      throw new IOException(archive + ": " + HEADER + " does not start with '" + MAGIC + "'");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : lines.subList(1, lines.size())) {
      int space = line.indexOf(' ');
      if (space > 0) {
        fields.put(line.substring(0, space), line.substring(space + 1));
      }
    }
    try {
      return new Header(fields.getOrDefault("group", ""), fields.getOrDefault("node", ""),
          Long.parseLong(fields.getOrDefault("term", "")),
          Long.parseLong(fields.getOrDefault("index", "")), fields.getOrDefault("created", ""));
    } catch (NumberFormatException e) {
      throw new IOException(archive + ": " + HEADER + " has no valid term and index: " + fields, e);
    }
  }

  private static byte[] readBounded(InputStream in, int max) throws IOException {
    byte[] bytes = in.readNBytes(max + 1);
    if (bytes.length > max) {
      throw new IOException(HEADER + " is larger than " + max + " bytes");
    }
    return bytes;
  }
}
