package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileSnapshotStore#latestMapping()}: the latest file mapped into an arena of its own, which
 * closing the mapping unmaps at once, so a file deleted meanwhile gives back its disk space then
 * (SPEC.md §60.9), and a view read after the close fails rather than reading freed memory.
 */
class SnapshotMappingTest {
  private static final Path MAPS = Path.of("/proc/self/maps");

  @TempDir Path dir;

  /** The lines of this process's memory map that name {@code file}, deleted or not. */
  static List<String> mapsOf(Path file) throws Exception {
    String name = file.toString();
    return Files.readAllLines(MAPS).stream()
        .filter(l -> l.endsWith(" " + name) || l.endsWith(" " + name + " (deleted)"))
        .toList();
  }

  @Test
  void closingTheMapping_ofAFileSinceDeleted_unmapsIt_andItsViewsThrowInsteadOfReading()
      throws Exception {
    assumeTrue(Files.isReadable(MAPS), "needs Linux's /proc/self/maps");
    Path snaps = Files.createDirectories(dir.resolve("snaps")).toRealPath();
    FileSnapshotStore store = new FileSnapshotStore(snaps);
    store.save(FileSnapshotStoreTest.at(1));
    Path first = store.files().getLast();

    SnapshotMapping mapping = store.latestMapping().orElseThrow();
    ByteBuffer view = mapping.bytes().slice(1, 8);
    assertThat(mapping.unmapsOnClose()).isTrue();
    assertThat(mapping.bytes()).isEqualTo(ByteBuffer.wrap(FileSnapshotStoreTest.at(1).encoded()));
    assertThat(mapsOf(first)).as("mapped").isNotEmpty();

    store.save(FileSnapshotStoreTest.at(2));
    store.save(FileSnapshotStoreTest.at(3));
    assertThat(first).doesNotExist();
    assertThat(mapsOf(first))
        .as("deleted, and still mapped")
        .allMatch(l -> l.endsWith("(deleted)"));

    mapping.close();

    assertThat(mapsOf(first)).as("no mapping of the deleted file is left").isEmpty();
    assertThatThrownBy(() -> view.get(0)).isInstanceOf(IllegalStateException.class);
    mapping.close(); // a second close does nothing more
  }

  @Test
  void aStoreThatDoesNotMap_handsOutItsBytes_forTheCollectorToLetGo() throws Exception {
    SnapshotStore arrays =
        new SnapshotStore() {
          @Override
          public void save(Snapshot snapshot) {}

          @Override
          public java.util.Optional<byte[]> latest() {
            return java.util.Optional.of(FileSnapshotStoreTest.at(9).encoded());
          }

          @Override
          public String describe() {
            return "arrays";
          }
        };
    SnapshotMapping m = arrays.latestMapping().orElseThrow();
    assertThat(m.unmapsOnClose()).isFalse();
    assertThat(m.bytes().isReadOnly()).isTrue();
    m.close();
    assertThat(Snapshot.open(m.bytes(), JournalHistory.STEWARD_ID).position().count()).isEqualTo(9);
  }
}
