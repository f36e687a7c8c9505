package dev.ration.simulation;

import dev.ration.statemachine.StateOptions;
import dev.ration.statemachine.store.RocksCoordinatorState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A simulation's ledger: a real replica state on a temporary RocksDB, deleted after the run. */
final class LedgerDir implements AutoCloseable {
  final Path dir;
  final RocksCoordinatorState state;

  LedgerDir(String prefix) {
    try {
      this.dir = Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("create simulation directory", e);
    }
    this.state = RocksCoordinatorState.open(dir.resolve("ledger"), StateOptions.defaults());
  }

  /** Closes the state and deletes its directory. */
  @Override
  public void close() {
    state.close();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("delete " + dir, e);
    }
  }
}
