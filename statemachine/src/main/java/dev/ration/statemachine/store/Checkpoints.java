package dev.ration.statemachine.store;

import dev.ration.statemachine.CheckpointManifest;
import dev.ration.statemachine.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Checkpoint manifests and restore. The manifest ({@link CheckpointManifest#FILE_NAME}) is text:
 *
 * <pre>
 * ration-checkpoint
 * formatVersion 1
 * term 3
 * index 1200
 * file 000009.sst 8c1f0a2e        (one line per file: name, CRC32C in hex)
 * manifestCrc32c 5d2e11a0         (CRC32C of every byte before this line)
 * </pre>
 *
 * Restore copies into a temporary sibling of the data dir, checks every copied file's CRC32C
 * against the manifest, then renames: data dir → backup, temporary → data dir, and deletes the
 * backup only after that (restoring it if the second rename fails).
 */
final class Checkpoints {
  private static final String MAGIC = "ration-checkpoint";

  private Checkpoints() {}

  static CheckpointManifest writeManifest(Path dir, int formatVersion, long term, long index) {
    String context = "checkpoint manifest term=" + term + " index=" + index + " dir=" + dir;
    try {
      Map<String, Long> checksums = new TreeMap<>();
      for (Path file : listFiles(dir)) {
        checksums.put(file.getFileName().toString(), crc32c(file));
      }
      byte[] manifest = formatManifest(formatVersion, term, index, checksums);
      Path tmp = dir.resolve(CheckpointManifest.FILE_NAME + ".tmp");
      try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        channel.write(ByteBuffer.wrap(manifest));
        channel.force(true);
      }
      Files.move(tmp, dir.resolve(CheckpointManifest.FILE_NAME), StandardCopyOption.ATOMIC_MOVE);
      fsyncDir(dir);
      return new CheckpointManifest(formatVersion, term, index, Collections.unmodifiableMap(checksums));
    } catch (IOException e) {
      throw new StoreException(context, e);
    }
  }

  /** The manifest's bytes: the text above, its last line the CRC32C of every byte before it. */
  static byte[] formatManifest(int formatVersion, long term, long index, Map<String, Long> checksums) {
    StringBuilder text = new StringBuilder();
    text.append(MAGIC).append('\n');
    text.append("formatVersion ").append(formatVersion).append('\n');
    text.append("term ").append(term).append('\n');
    text.append("index ").append(index).append('\n');
    for (Map.Entry<String, Long> e : checksums.entrySet()) {
      text.append("file ").append(e.getKey()).append(' ').append(Long.toHexString(e.getValue())).append('\n');
    }
    CRC32C crc = new CRC32C();
    crc.update(text.toString().getBytes(StandardCharsets.UTF_8));
    text.append("manifestCrc32c ").append(Long.toHexString(crc.getValue())).append('\n');
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  static CheckpointManifest readManifest(Path dir) {
    Path path = dir.resolve(CheckpointManifest.FILE_NAME);
    String context = "checkpoint manifest " + path;
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (IOException e) {
      throw new StoreException(context + ": cannot read", e);
    }
    return parseManifest(context, bytes);
  }

  /**
   * Parses a manifest's bytes ({@code context} names it in errors). Anything but a manifest as
   * {@link #formatManifest} writes it, with a matching CRC, is a {@link StoreException}.
   */
  static CheckpointManifest parseManifest(String context, byte[] bytes) {
    String text;
    try {
      // Strict, so that every character maps back to the bytes it came from: the checksum
      // below covers a byte range computed from the text.
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new StoreException(context + ": not a Ration checkpoint manifest (not UTF-8 text)", e);
    }
    List<String> lines = text.lines().toList();
    if (lines.size() < 5 || !lines.get(0).equals(MAGIC)) {
      throw new StoreException(context + ": not a Ration checkpoint manifest (" + lines.size() + " lines)");
    }
    String last = lines.get(lines.size() - 1);
    int bodyLength = text.lastIndexOf(last);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, text.substring(0, bodyLength).getBytes(StandardCharsets.UTF_8).length);
    long declared = parseHex(context, last, "manifestCrc32c");
    if (declared != crc.getValue()) {
      throw new StoreException(context + ": manifest CRC32C " + Long.toHexString(crc.getValue())
          + " does not match the declared " + Long.toHexString(declared));
    }
    long format = parseLong(context, lines.get(1), "formatVersion");
    if (format != (int) format) {
      throw new StoreException(context + ": format version " + format + " is out of range");
    }
    long term = parseLong(context, lines.get(2), "term");
    long index = parseLong(context, lines.get(3), "index");
    Map<String, Long> checksums = new TreeMap<>();
    for (String line : lines.subList(4, lines.size() - 1)) {
      String[] parts = line.split(" ");
      if (parts.length != 3 || !parts[0].equals("file") || parts[1].contains("/")) {
        throw new StoreException(context + ": bad file line '" + line + "'");
      }
      checksums.put(parts[1], parseHex(context, "x " + parts[2], "x"));
    }
    return new CheckpointManifest((int) format, term, index, Collections.unmodifiableMap(checksums));
  }

  private static long parseLong(String context, String line, String name) {
    String[] parts = line.split(" ");
    if (parts.length != 2 || !parts[0].equals(name)) {
      throw new StoreException(context + ": expected '" + name + " <n>', found '" + line + "'");
    }
    try {
      return Long.parseLong(parts[1]);
    } catch (NumberFormatException e) {
      throw new StoreException(context + ": bad number in '" + line + "'", e);
    }
  }

  /** A CRC32C as {@link #formatManifest} writes it: 1 to 8 lowercase hex digits, no sign. */
  private static long parseHex(String context, String line, String name) {
    String[] parts = line.split(" ");
    if (parts.length != 2 || !parts[0].equals(name)) {
      throw new StoreException(context + ": expected '" + name + " <hex>', found '" + line + "'");
    }
    String digits = parts[1];
    boolean hex = !digits.isEmpty() && digits.length() <= 8;
    for (int i = 0; hex && i < digits.length(); i++) {
      char c = digits.charAt(i);
      hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
    if (!hex) {
      throw new StoreException(context + ": bad CRC32C in '" + line + "' (1 to 8 lowercase hex digits)");
    }
    return Long.parseLong(digits, 16);
  }

  static void restore(Path checkpointDir, Path dataDir, int expectedFormat) {
    CheckpointManifest manifest = readManifest(checkpointDir);
    String context = "restore checkpoint " + checkpointDir + " (term=" + manifest.term()
        + " index=" + manifest.index() + ") into " + dataDir;
    if (manifest.formatVersion() != expectedFormat) {
      throw new StoreException(context + ": format version " + manifest.formatVersion()
          + ", this build reads " + expectedFormat);
    }
    Path absolute = dataDir.toAbsolutePath();
    Path tmp = absolute.resolveSibling(absolute.getFileName() + ".restoring");
    Path backup = absolute.resolveSibling(absolute.getFileName() + ".backup");
    try {
      TreeSet<String> present = new TreeSet<>();
      for (Path file : listFiles(checkpointDir)) {
        present.add(file.getFileName().toString());
      }
      if (!present.equals(manifest.fileChecksums().keySet())) {
        TreeSet<String> missing = new TreeSet<>(manifest.fileChecksums().keySet());
        missing.removeAll(present);
        TreeSet<String> extra = new TreeSet<>(present);
        extra.removeAll(manifest.fileChecksums().keySet());
        throw new StoreException(context + ": files differ from the manifest, missing " + missing
            + ", not listed " + extra);
      }
      deleteRecursively(tmp);
      Files.createDirectories(tmp);
      for (Map.Entry<String, Long> e : manifest.fileChecksums().entrySet()) {
        long crc = copyWithCrc(checkpointDir.resolve(e.getKey()), tmp.resolve(e.getKey()));
        if (crc != e.getValue()) {
          throw new StoreException(context + ": file " + e.getKey() + " has CRC32C "
              + Long.toHexString(crc) + ", manifest says " + Long.toHexString(e.getValue()));
        }
      }
      Files.copy(checkpointDir.resolve(CheckpointManifest.FILE_NAME), tmp.resolve(CheckpointManifest.FILE_NAME));
      fsyncDir(tmp);
      deleteRecursively(backup);
      boolean hadData = Files.exists(absolute);
      if (hadData) {
        Files.move(absolute, backup, StandardCopyOption.ATOMIC_MOVE);
      }
      try {
        Files.move(tmp, absolute, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        if (hadData) {
          Files.move(backup, absolute, StandardCopyOption.ATOMIC_MOVE);
        }
        throw e;
      }
      fsyncDir(absolute.getParent());
      deleteRecursively(backup);
    } catch (IOException e) {
      throw new StoreException(context, e);
    } finally {
      try {
        deleteRecursively(tmp);
      } catch (IOException e) {
        // The restore's own outcome matters more; a leftover temp dir is removed next time.
      }
    }
  }

  private static List<Path> listFiles(Path dir) throws IOException {
    try (Stream<Path> stream = Files.list(dir)) {
      List<Path> files = stream
          .filter(p -> !p.getFileName().toString().startsWith(CheckpointManifest.FILE_NAME))
          .sorted()
          .toList();
      for (Path file : files) {
        if (!Files.isRegularFile(file)) {
          throw new IOException("unexpected non-file in checkpoint: " + file);
        }
      }
      return files;
    }
  }

  static long crc32c(Path file) throws IOException {
    CRC32C crc = new CRC32C();
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        crc.update(buffer, 0, n);
      }
    }
    return crc.getValue();
  }

  private static long copyWithCrc(Path from, Path to) throws IOException {
    CRC32C crc = new CRC32C();
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = Files.newInputStream(from);
        OutputStream out = Files.newOutputStream(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        crc.update(buffer, 0, n);
        out.write(buffer, 0, n);
      }
    }
    try (FileChannel channel = FileChannel.open(to, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
    return crc.getValue();
  }

  private static void fsyncDir(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    Files.walkFileTree(path, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
        Files.delete(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
