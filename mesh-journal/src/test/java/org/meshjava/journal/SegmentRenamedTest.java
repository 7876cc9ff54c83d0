package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A segment renamed to another record than its first (SPEC.md §60.8, "Segments") is refused naming
 * that segment, not the sound segment before it (read as cut short, or as running past the renamed
 * one's name) nor the live file (read as beginning before the last cut): the refusal says which
 * file to put right.
 */
class SegmentRenamedTest {
  @TempDir Path dir;

  private Path p;
  private Path second;

  /** Ten records, archived at four and at seven: segments 0 (0 to 3) and 4 (4 to 6). */
  @BeforeEach
  void twoSegments() throws Exception {
    p = FileJournalStreamTest.journal(dir.resolve("j.log"), 10);
    List<byte[]> lines = JournalFile.read(p).lines();
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>());
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 7, -1), new HashMap<>());
    second = JournalSegments.file(p, 4);
  }

  private Path renamed(long to) throws Exception {
    return Files.move(second, JournalSegments.file(p, to));
  }

  @Test
  void theLastSegmentRenamedLater_butBeforeTheLiveFile_isNamed_notTheOneBeforeIt()
      throws Exception {
    Path renamed = renamed(5);
    SegmentOverlapTest.assertRefusedNaming(
        p, renamed, "is named for record 5 but begins with record 4");
  }

  /** Named for the live file's first record, it reads as the segment of an archive killed early. */
  @Test
  void theLastSegmentRenamedToTheLiveFilesStart_isNamed_notTheOneBeforeIt() throws Exception {
    Path renamed = renamed(7);
    SegmentOverlapTest.assertRefusedNaming(
        p, renamed, "is named for record 7 but begins with record 4");
  }

  @Test
  void theLastSegmentRenamedPastTheLiveFilesStart_isNamed_notTheLiveFile() throws Exception {
    Path renamed = renamed(8);
    assertThatThrownBy(() -> FileJournal.open(p).close())
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("archived segment " + renamed)
        .hasMessageContaining("is named for record 8 but begins with record 4")
        .hasMessageNotContaining("older than the records archived");
    SegmentOverlapTest.assertRefusedNaming(
        p, renamed, "is named for record 8 but begins with record 4");
  }

  @Test
  void theLastSegmentRenamedEarlier_isNamed_notTheOneBeforeIt() throws Exception {
    Path renamed = renamed(3);
    SegmentOverlapTest.assertRefusedNaming(
        p, renamed, "is named for record 3 but begins with record 4");
  }
}
