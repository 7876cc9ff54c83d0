package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * An archive whose live file is replaced by another file (a copy put back) while it writes its
 * pending segment (SPEC.md 60.8): the lock is on the file it read, not on the name, so it must not
 * rename its cut of that file over the one now there.
 */
class ArchiveLiveFileReplacedTest {
  @TempDir Path dir;

  /**
   * Regression: the archive renamed its cut over whatever held the name, so a file put there midway
   * (and what a steward started on it since had written) was replaced without a word.
   */
  @Test
  void aLiveFileReplacedMidArchive_isLeftAsItIs_andTheArchiveRefusedIo() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j"), 10);
    Path copy = dir.resolve("copy");
    Files.copy(p, copy);
    byte[] was = Files.readAllBytes(copy);
    Forcer replacing =
        (channel, file, metaData) -> {
          if (file.getFileName().toString().endsWith(".pending")) {
            Files.move(copy, p, StandardCopyOption.REPLACE_EXISTING);
          }
          channel.force(metaData);
        };
    assertThatThrownBy(
            () ->
                FileJournal.archive(
                    p,
                    JournalArchiveTest.positionAt(LiveFileOlderThanArchiveTest.lines(p), 4, -1),
                    new HashMap<>(),
                    replacing))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage()).contains("was replaced by another file");
            });
    assertThat(Files.readAllBytes(p)).isEqualTo(was);
    assertThat(JournalSegments.pendingFile(p, 0)).doesNotExist();
    assertThat(JournalSegments.file(p, 0)).doesNotExist();
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).hasSize(10);
  }
}
