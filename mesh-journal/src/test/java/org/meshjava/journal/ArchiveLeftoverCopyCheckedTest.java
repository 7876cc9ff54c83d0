package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * In a segment folder without the marker (archived by a version that named a segment before its
 * cut), the first archive of this version removes the segment named for the live file's first
 * record, as what such a version's killed archive left: a copy of the live file's first bytes
 * (SPEC.md 60.8). It removes it only when it is one; a file there holding anything else is records
 * the live file does not hold, and the archive is refused with every file left as it was.
 */
class ArchiveLeftoverCopyCheckedTest {
  @TempDir Path dir;

  /** Records 0 to 9, 0 to 3 archived, the marker gone: the live file begins at 4. */
  private Path unmarked() throws Exception {
    Path p = dir.resolve("j.log");
    FileJournalStreamTest.journal(p, 10);
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 4);
    Files.delete(JournalSegments.marker(p));
    Files.delete(JournalSegments.markerTwin(p));
    return p;
  }

  /** The live file's first {@code n} lines. */
  private static byte[] firstLines(Path p, int n) throws Exception {
    byte[] live = Files.readAllBytes(p);
    int at = 0;
    for (int seen = 0; seen < n; at++) {
      if (live[at] == '\n') {
        seen++;
      }
    }
    return Arrays.copyOf(live, at);
  }

  @Test
  void aLeftoverThatIsNotACopyOfTheLiveFilesStart_isKept_andTheArchiveRefused() throws Exception {
    Path p = unmarked();
    // Records 4 to 6 as another history holds them: the first line differs from the live file's
    // in one byte inside its body, its last line is the live file's.
    byte[] other = firstLines(p, 3);
    int inFirst = other.length / 6;
    other[inFirst] = (byte) (other[inFirst] == 'a' ? 'b' : 'a');
    Path leftover = JournalSegments.file(p, 4);
    Files.write(leftover, other);
    byte[] live = Files.readAllBytes(p);

    assertThatThrownBy(() -> LiveFileOlderThanArchiveTest.archiveUpTo(p, 8))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining(leftover.toString())
        .hasMessageContaining("not a copy of the live file's first");
    assertThat(Files.readAllBytes(leftover)).isEqualTo(other);
    assertThat(Files.readAllBytes(p)).isEqualTo(live);
    assertThat(JournalSegments.marked(p)).isFalse();
  }

  @Test
  void aLeftoverThatIsACopyOfTheLiveFilesStart_isReplacedByTheArchive() throws Exception {
    Path p = unmarked();
    byte[] three = firstLines(p, 3);
    // Killed in a line, as the old version's archive could be.
    Files.write(JournalSegments.file(p, 4), Arrays.copyOf(three, three.length - 7));

    LiveFileOlderThanArchiveTest.archiveUpTo(p, 8);

    assertThat(JournalSegments.marked(p)).isTrue();
    assertThat(FileJournal.firstSequence(p)).isEqualTo(8);
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).hasSize(10);
  }
}
