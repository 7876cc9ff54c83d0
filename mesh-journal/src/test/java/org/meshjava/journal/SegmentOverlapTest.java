package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * Segments that are there but are not the ones the archive wrote (SPEC.md §60.8, "Segments"): one
 * holding records the next segment or the live file holds too, and one replaced by a copy of
 * another. Each is refused {@code CORRUPT} naming the segment by a read from record 0 (a start's
 * check of the records its snapshot covers) and by the scan {@code mesh journal verify} makes.
 */
class SegmentOverlapTest {
  @TempDir Path dir;

  private Path p;
  private List<byte[]> lines;
  private Path first;
  private Path second;

  /** Ten records, archived at four and at seven: segments 0 (0 to 3) and 4 (4 to 6). */
  @BeforeEach
  void twoSegments() throws Exception {
    p = FileJournalStreamTest.journal(dir.resolve("j.log"), 10);
    lines = JournalFile.read(p).lines();
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>());
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 7, -1), new HashMap<>());
    first = JournalSegments.file(p, 0);
    second = JournalSegments.file(p, 4);
  }

  private void assertRefusedNaming(Path segment, String says) {
    assertRefusedNaming(p, segment, says);
  }

  /**
   * Asserts that a read of the journal at {@code p} (live file from record 7) from record 0, and a
   * scan of it, are refused {@code CORRUPT} naming {@code segment} and saying {@code says}.
   */
  static void assertRefusedNaming(Path p, Path segment, String says) {
    for (org.assertj.core.api.ThrowableAssert.ThrowingCallable read :
        List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            () -> JournalArchiveTest.readAll(p, JournalPosition.GENESIS),
            () -> JournalFile.scan(p, 7, n -> {}, (r, line) -> {}))) {
      assertThatThrownBy(read)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
                assertThat(e)
                    .hasMessageContaining("archived segment " + segment)
                    .hasMessageContaining(says);
              });
    }
  }

  private static void append(Path file, byte[] line) throws Exception {
    Files.write(file, line, StandardOpenOption.APPEND);
    Files.write(file, new byte[] {'\n'}, StandardOpenOption.APPEND);
  }

  /**
   * Regression: a segment is read only up to where the next begins, so records appended to it that
   * the next segment holds were never read, and an edit in them passed (they were taken for what a
   * crash leaves, which an archive cannot).
   */
  @Test
  void recordsOfTheNextSegmentOnTheEndOfASegment_areRefused_editedOrNot() throws Exception {
    append(first, lines.get(4));
    assertRefusedNaming(first, "holds " + (lines.get(4).length + 1) + " bytes after record 3");
    String edited = new String(lines.get(5), StandardCharsets.UTF_8).replace("\"Sealed\"", "\"X\"");
    append(first, edited.getBytes(StandardCharsets.UTF_8));
    assertRefusedNaming(first, "where the next segment begins");
  }

  /** The same for records of the live file on the end of the last segment. */
  @Test
  void recordsOfTheLiveFileOnTheEndOfTheLastSegment_areRefused() throws Exception {
    append(second, lines.get(7));
    assertRefusedNaming(second, "where the live file begins");
  }

  /**
   * Regression: refused only as "holds seq 0 in ...; records do not form one chain", which did not
   * say the file is another segment.
   */
  @Test
  void aSegmentReplacedByACopyOfAnother_isRefusedAsNotTheSegmentItsNameSays() throws Exception {
    Files.copy(first, second, StandardCopyOption.REPLACE_EXISTING);
    assertRefusedNaming(second, "is named for record 4 but begins with record 0");
  }
}
