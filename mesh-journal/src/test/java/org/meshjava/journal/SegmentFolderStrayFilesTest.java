package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * What a tamperer or a careless operator puts in a segment folder, and what a crash loop leaves at
 * a segment boundary (SPEC.md 60.8): each is refused by a typed reason naming it, or recovered,
 * with every record still there.
 */
class SegmentFolderStrayFilesTest {
  @TempDir Path dir;

  /** Records 0..11, segments 0 (0..2) and 3 (3..7), the live file 8..11. */
  private Path twoSegments(Path p) throws Exception {
    SettledSegmentCutForcedTest.archivedOnce(p);
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 8);
    return p;
  }

  /**
   * Regression: a folder named as a segment was listed as one and failed as unreadable, so a read
   * from record 0 blamed the sound segment before it ("holds records 0 to 2, but records up to 4
   * must follow in it (the segment was cut, or one after it removed)").
   */
  @Test
  void aFolderNamedAsASegment_isRefusedNamingIt_notTheSegmentBeforeIt() throws Exception {
    Path p = twoSegments(dir.resolve("j"));
    Path folder = JournalSegments.file(p, 5);
    Files.createDirectory(folder);
    assertThatThrownBy(() -> FileJournalStreamTest.scan(p, JournalPosition.GENESIS))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining("archived segment " + folder + " is not a file");
    Files.delete(folder);
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).hasSize(12);
  }

  @Test
  void aLinkNamedAsASegment_toNothing_isRefused_andToTheSegmentsOwnCopy_isRead() throws Exception {
    Path p = twoSegments(dir.resolve("j"));
    Path segment = JournalSegments.file(p, 3);
    Path moved = dir.resolve("kept-elsewhere.jsonl");
    Files.move(segment, moved);
    Files.createSymbolicLink(segment, dir.resolve("nothing"));
    assertThatThrownBy(() -> FileJournalStreamTest.scan(p, JournalPosition.GENESIS))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining("archived segment " + segment + " is not a file");
    Files.delete(segment);
    Files.createSymbolicLink(segment, moved);
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).hasSize(12);
  }

  /**
   * A kill during an append right after an archive: the live file, one record and a torn line of
   * every length after it, opens dropping the torn line, and every record before it is read from
   * the segments.
   */
  @Test
  void aTornLineOfEveryLength_afterAnArchive_isDropped_andNothingIsLost() throws Exception {
    Path p = twoSegments(dir.resolve("j"));
    List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
    byte[] live = Files.readAllBytes(p);
    Path other = FileJournalStreamTest.journal(dir.resolve("next"), 13);
    List<String> lines = Files.readAllLines(other);
    byte[] next = (lines.get(12)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int length = 1; length < next.length; length++) {
      byte[] torn = java.util.Arrays.copyOf(live, live.length + length);
      System.arraycopy(next, 0, torn, live.length, length);
      Files.write(p, torn);
      assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).isEqualTo(all);
      try (FileJournal j = FileJournal.open(p)) {
        assertThat(j.position().count()).isEqualTo(12);
        assertThat(FileJournalStreamTest.read(j, JournalPosition.GENESIS)).isEqualTo(all);
      }
    }
    try (FileJournal j = FileJournal.open(p)) {
      j.append(FileJournalStreamTest.sealed(12));
    }
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).hasSize(13);
    assertThat(JournalSegments.list(p)).hasSize(2);
  }
}
