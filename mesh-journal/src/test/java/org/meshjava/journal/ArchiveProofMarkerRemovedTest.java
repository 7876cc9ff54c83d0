package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A copy of the journal taken before its last archive, beginning where the last segment begins and
 * holding records past it, is refused where the archive protocol's proof is there (SPEC.md 60.8,
 * "The live file follows its segments"). That proof is kept in two files beside the journal, so
 * removing the marker by its name and putting the copy back is still refused: before, the journal
 * then read as one an older version archived, whose killed archive leaves exactly those files, and
 * opened, serving again every spend recorded after the copy was taken.
 */
class ArchiveProofMarkerRemovedTest {
  @TempDir Path dir;

  /**
   * Records 0..15: segment 0 holds 0..3, segment 4 holds 4..11, the live file 12..15; returns a
   * copy of the live file taken before the second archive (4..15).
   */
  private Path archivedTwiceWithACopyBetween(Path j) throws Exception {
    FileJournalStreamTest.journal(j, 10);
    LiveFileOlderThanArchiveTest.archiveUpTo(j, 4);
    FileJournalStreamTest.journal(j, 6);
    Path copy = Files.copy(j, dir.resolve("copy"));
    LiveFileOlderThanArchiveTest.archiveUpTo(j, 12);
    assertThat(FileJournal.firstSequence(j)).isEqualTo(12);
    return copy;
  }

  @Test
  void theMarkerRemovedAndACopyTakenBeforeTheArchivePutBack_isRefused() throws Exception {
    Path j = dir.resolve("j.log");
    Path copy = archivedTwiceWithACopyBetween(j);
    Files.delete(JournalSegments.marker(j));
    Files.copy(copy, j, StandardCopyOption.REPLACE_EXISTING);
    byte[] before = Files.readAllBytes(j);

    assertRefused(() -> FileJournal.open(j).close(), "open");
    assertRefused(() -> FileJournal.firstSequence(j), "firstSequence (verify's check)");
    assertThat(Files.readAllBytes(j)).isEqualTo(before);
  }

  @Test
  void theMarkerRemoved_aWholeJournalStillOpens_andTheNextArchivePutsItBack() throws Exception {
    Path j = dir.resolve("j.log");
    archivedTwiceWithACopyBetween(j);
    Files.delete(JournalSegments.marker(j));

    assertThat(readAll(j)).hasSize(16);
    FileJournalStreamTest.journal(j, 4);
    LiveFileOlderThanArchiveTest.archiveUpTo(j, 18);
    assertThat(JournalSegments.marker(j)).isRegularFile();
    assertThat(readAll(j)).hasSize(20);
  }

  private static List<JournalRecord> readAll(Path j) throws Exception {
    try (FileJournal journal = FileJournal.open(j)) {
      List<JournalRecord> all = new ArrayList<>();
      journal.read(JournalPosition.GENESIS, new HashMap<>(), all::add);
      return all;
    }
  }

  private static void assertRefused(ThrowingCallable call, String what) {
    assertThatThrownBy(call)
        .as(what)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining("older than the records archived from it")
        .hasMessageContaining("is a copy of the journal taken before that archive");
  }
}
