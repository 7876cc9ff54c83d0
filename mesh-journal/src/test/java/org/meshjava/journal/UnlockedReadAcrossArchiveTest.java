package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;
import org.meshjava.journal.internal.UnlockedRead;

/**
 * A read that takes no lock (as {@code mesh journal verify} reads) and looks at the journal's files
 * more than once, while an archive moves them (SPEC.md 60.8): {@link UnlockedRead#run} runs it
 * again when it failed while they changed, so an honest archive never fails it, and fails it at
 * once when they did not, so damage is still refused.
 */
class UnlockedReadAcrossArchiveTest {
  @TempDir Path dir;

  /** Records 0 to 11, 0 to 2 archived. */
  private Path journal() throws Exception {
    return SettledSegmentCutForcedTest.archivedOnce(dir.resolve("j.log"));
  }

  /**
   * verify's read of the whole history: where the live file begins, then the segments and the live
   * file from there; {@code between} runs after the first look.
   */
  private static long readWhole(Path p, Runnable between) throws JournalException {
    long liveStart = FileJournal.firstSequence(p);
    between.run();
    List<JournalRecord> read = new ArrayList<>();
    JournalFile.scan(p, liveStart, n -> {}, (r, line) -> read.add(r));
    return read.size();
  }

  private static void archiveUpTo(Path p, int count) {
    try {
      LiveFileOlderThanArchiveTest.archiveUpTo(p, count);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aReadThatAnArchiveMovedTheFilesUnder_isRunAgain_andReadsEveryRecord() throws Exception {
    Path p = journal();
    int[] runs = {0};
    long read =
        UnlockedRead.run(
            p,
            () ->
                readWhole(
                    p,
                    () -> {
                      if (runs[0]++ == 0) {
                        archiveUpTo(p, 8);
                      }
                    }));
    assertThat(read).isEqualTo(12);
    assertThat(runs[0]).isEqualTo(2);
    assertThat(FileJournal.firstSequence(p)).isEqualTo(8);
  }

  @Test
  void aReadAPendingSegmentWasNamedUnder_isRunAgain() throws Exception {
    Path p = journal();
    // An archive stopped after its cut: segment 3 pending, the live file beginning at 8.
    SettledSegmentCutForcedTest.archiveKilledAtTheCut(p, 8);
    Path pending = JournalSegments.pendingFile(p, 3);
    int[] runs = {0};
    long read =
        UnlockedRead.run(
            p,
            () -> {
              runs[0]++;
              List<JournalRecord> all = new ArrayList<>();
              JournalSegments.lines(
                  p,
                  0,
                  8,
                  (line, segment) -> {
                    if (runs[0] == 1 && all.isEmpty()) {
                      // A steward starting names the pending segment while it is being read to.
                      try (FileJournal j = FileJournal.open(p)) {
                        assertThat(pending).doesNotExist();
                      }
                    }
                    all.add(null);
                  });
              return all.size();
            });
    assertThat(read).isEqualTo(8);
    assertThat(runs[0]).isEqualTo(2);
  }

  @Test
  void aReadThatFailsOnFilesThatStayAsTheyAre_failsAtOnce() throws Exception {
    Path p = journal();
    // The segment cut in its last line: damage, refused by every read.
    Path segment = JournalSegments.file(p, 0);
    byte[] b = Files.readAllBytes(segment);
    Files.write(segment, java.util.Arrays.copyOf(b, b.length - 5));
    int[] runs = {0};
    assertThatThrownBy(() -> UnlockedRead.run(p, () -> readWhole(p, () -> runs[0]++)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
    assertThat(runs[0]).isEqualTo(1);
  }

  @Test
  void aReadWhoseFilesChangeEveryTime_stopsAfterItsAttempts_withItsFailure() throws Exception {
    Path p = journal();
    int[] runs = {0};
    assertThatThrownBy(
            () ->
                UnlockedRead.run(
                    p,
                    () -> {
                      runs[0]++;
                      // Something new in the segment folder each time, and the read refused.
                      Files.writeString(JournalSegments.directory(p).resolve("x" + runs[0]), "");
                      throw new JournalException(JournalException.Reason.IO, "refused", null);
                    }))
        .hasMessage("refused");
    assertThat(runs[0]).isEqualTo(8);
  }
}
