package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * An archived segment that goes between the listing that found it and its read (an archive or an
 * operator moving it) is refused IO naming the file once and saying why: the JDK's message for a
 * missing file is its path alone, which the refusal appended after naming the path, so it read
 * "cannot read /x/00000000000000000003.jsonl: /x/00000000000000000003.jsonl".
 */
class JournalFileGoneWordsTest {
  @TempDir Path dir;

  @Test
  void aSegmentRemovedAfterTheListing_isRefusedAsNoSuchFile_namedOnce() throws Exception {
    Path p = SettledSegmentCutForcedTest.archivedOnce(dir.resolve("j.log"));
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 8);
    Path second = JournalSegments.file(p, 3);
    assertThat(second).exists();

    // The read lists both segments, then opens each in turn: the second goes as the first is read.
    assertThatThrownBy(
            () ->
                JournalSegments.lines(
                    p, 0, FileJournal.firstSequence(p), (line, segment) -> remove(second)))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.IO))
        .hasMessage("cannot read " + second + ": no such file or folder");
  }

  private static void remove(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
