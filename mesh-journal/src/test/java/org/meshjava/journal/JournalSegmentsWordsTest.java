package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * What {@link JournalSegments} tells an operator about a journal's segments (SPEC.md §60.8): where
 * the kept segments begin ({@code keptFrom}, {@code from0}, which {@code mesh journal verify} and
 * the start's check read), which records a refusal names (the records to restore, the record after
 * which a segment overruns), and which file is blamed when a segment is whole but the next is
 * misnamed. Found by PIT's survivors on {@code JournalSegments} (docs/mutation.md).
 *
 * <p>The journal: records 0 to 9, archived at 4 and at 7, so segment 0 holds 0 to 3, segment 4
 * holds 4 to 6 and the live file 7 to 9.
 */
class JournalSegmentsWordsTest {
  @TempDir Path dir;
  private Path p;
  private List<byte[]> lines;

  @BeforeEach
  void twoSegments() throws Exception {
    p = FileJournalStreamTest.journal(dir.resolve("j.log"), 10);
    lines = JournalFile.read(p).lines();
    for (int at : new int[] {4, 7}) {
      FileJournal.archive(p, JournalArchiveTest.positionAt(lines, at, -1), new HashMap<>());
    }
  }

  private Path segment(long first) {
    return JournalSegments.file(p, first);
  }

  private void read(long from, long liveStart) throws JournalException {
    JournalSegments.lines(p, from, liveStart, (line, file) -> {});
  }

  /** A read from record 0 with the live file at {@code liveStart}, refused {@code ARCHIVED}. */
  private AbstractThrowableAssert<?, ? extends Throwable> archivedFrom0(long liveStart) {
    return assertThatThrownBy(() -> read(0, liveStart))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.ARCHIVED))
        .hasMessageContaining("records 0 to 3 of journal " + p + " were archived");
  }

  @Test
  void keptFromAndFrom0_sayWhereTheSegmentsBegin() throws Exception {
    assertThat(JournalSegments.from0(p)).isTrue();
    assertThat(JournalSegments.keptFrom(p, 7)).as("the segments begin at 0").isEqualTo(-1);

    Files.delete(segment(0));
    assertThat(JournalSegments.from0(p)).isFalse();
    assertThat(JournalSegments.keptFrom(p, 7)).isEqualTo(4);
    assertThat(JournalSegments.keptFrom(p, 5)).isEqualTo(4);
    assertThat(JournalSegments.keptFrom(p, 4))
        .as("a segment at the live file's start holds nothing before it")
        .isEqualTo(-1);

    Files.delete(segment(4));
    assertThat(JournalSegments.from0(p)).isFalse();
    assertThat(JournalSegments.keptFrom(p, 7)).isEqualTo(-1);
  }

  @Test
  void aSegmentCut_namesTheRecordsItHolds_andThePartLine() throws Exception {
    byte[] whole = Files.readAllBytes(segment(0));
    int last = lines.get(3).length + 1;

    Files.write(segment(0), Arrays.copyOf(whole, whole.length - 1));
    assertThatThrownBy(() -> read(0, 7))
        .isInstanceOf(JournalException.class)
        .hasMessageContaining(
            "holds records 0 to 2 and a part line of "
                + (last - 1)
                + " bytes, but records up to 3 must follow");

    Files.write(segment(0), Arrays.copyOf(whole, whole.length - last));
    assertThatThrownBy(() -> read(0, 7))
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("holds records 0 to 2, but records up to 3 must follow");
  }

  @Test
  void aSegmentOverrunning_namesTheLastRecordItShouldHold() throws Exception {
    byte[] extra = lines.get(4);
    Files.write(segment(0), extra, StandardOpenOption.APPEND);
    Files.write(segment(0), new byte[] {'\n'}, StandardOpenOption.APPEND);

    assertThatThrownBy(() -> read(0, 7))
        .isInstanceOf(JournalException.class)
        .hasMessageContaining(
            "holds " + (extra.length + 1) + " bytes after record 3, where the next segment begins");
  }

  @Test
  void theFirstSegmentsRemoved_namesTheRecordsToPutBack() throws Exception {
    Files.delete(segment(0));

    archivedFrom0(7)
        .hasMessageContaining("the segment holding them is missing")
        .hasMessageContaining(
            "put back the segments holding records 0 to 3 (the first is named "
                + segment(0).getFileName()
                + ")");
  }

  @Test
  void aSegmentAtTheLiveFilesStart_leavesTheRecordsBeforeItArchived() throws Exception {
    // A crash before the archive's cut leaves a segment named for the live file's first record:
    // the records before it are archived and absent, not a first segment removed.
    Files.delete(segment(0));

    archivedFrom0(4).hasMessageContaining("the segments holding them are not in");
  }

  @Test
  void aWholeSegmentBeforeOneNamedForALaterRecord_isNotBlamed() throws Exception {
    // Segment 4 renamed 6: read from 5, segment 0 runs out while skipping to it, but it is whole;
    // the name of the next is what is wrong.
    Files.move(segment(4), segment(6));

    assertThatThrownBy(() -> read(5, 7))
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("archived segment " + segment(6))
        .hasMessageContaining("is named for record 6 but begins with record 4");
  }
}
