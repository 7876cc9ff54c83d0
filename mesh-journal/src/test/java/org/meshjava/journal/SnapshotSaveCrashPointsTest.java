package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshot saves stopped at every step, as {@link ArchiveCrashPointsTest} stops an archive: every
 * step between two file operations of a save ends in a force (the folders made for it, the written
 * file, the folder after its rename), so stopping at each force in turn, by an unchecked exception
 * the save does not catch, leaves each state a kill leaves. Two saves into a folder not yet made
 * are stopped at each of their forces; after each stop the latest snapshot a fresh store reads is
 * none, or one of the two saved, whole, and the next save completes and leaves no part written file
 * behind.
 */
class SnapshotSaveCrashPointsTest {
  @TempDir Path dir;

  @Test
  void savesStoppedAtEachForce_leaveTheLatestWhole_andTheNextSaveCompletes() throws Exception {
    byte[] first = FileSnapshotStoreTest.at(10).encoded();
    byte[] second = FileSnapshotStoreTest.at(20).encoded();
    int stops = 0;
    for (int at = 1; ; at++) {
      Path d = dir.resolve("run" + at).resolve("snaps");
      int stopAt = at;
      int[] seen = {0};
      Forcer stopping =
          (channel, file, metaData) -> {
            if (++seen[0] == stopAt) {
              throw new ArchiveCrashPointsTest.Killed();
            }
            channel.force(metaData);
          };
      FileSnapshotStore store = new FileSnapshotStore(d, stopping);
      boolean stopped;
      try {
        store.save(FileSnapshotStoreTest.at(10));
        store.save(FileSnapshotStoreTest.at(20));
        stopped = false;
      } catch (ArchiveCrashPointsTest.Killed killed) {
        stopped = true;
        stops++;
      }
      FileSnapshotStore after = new FileSnapshotStore(d);
      Optional<byte[]> latest = after.latest();
      assertThat(
              latest.isEmpty()
                  || Arrays.equals(latest.get(), first)
                  || Arrays.equals(latest.get(), second))
          .as("the latest after a stop at force %d is none or one saved, whole", at)
          .isTrue();
      after.save(FileSnapshotStoreTest.at(30));
      assertThat(after.latest())
          .hasValueSatisfying(b -> assertThat(b).isEqualTo(FileSnapshotStoreTest.at(30).encoded()));
      try (var names = Files.list(d)) {
        List<String> left = names.map(n -> n.getFileName().toString()).toList();
        assertThat(left).as("after a stop at force %d", at).allMatch(n -> n.endsWith(".snapshot"));
      }
      if (!stopped) {
        break;
      }
    }
    assertThat(stops).as("forces stopped at").isGreaterThanOrEqualTo(4);
  }
}
