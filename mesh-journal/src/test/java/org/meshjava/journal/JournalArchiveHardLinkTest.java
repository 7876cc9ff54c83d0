package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A journal whose file has a second name (a hard link, as an operator links a journal into another
 * folder) is not archived: the archive's rename would give this name a new file and leave the other
 * on the old one, a complete looking journal lacking every record appended after the archive, with
 * no segment beside it to tell (SPEC.md 60.8). Refused before anything is written; with the other
 * name removed, the archive goes on.
 */
class JournalArchiveHardLinkTest {
  @TempDir Path dir;

  @Test
  void aJournalWithASecondName_isNotArchived_andNothingIsWritten() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.openUnsynced(p)) {
      for (int i = 0; i < 10; i++) {
        j.append(FileJournalStreamTest.sealed(i));
      }
    }
    Path other = Files.createDirectory(dir.resolve("elsewhere")).resolve("linked.log");
    Files.createLink(other, p);
    List<byte[]> lines = JournalFile.read(p).lines();
    byte[] before = Files.readAllBytes(p);

    assertThatThrownBy(
            () ->
                FileJournal.archive(
                    p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.HARD_LINKED);
              assertThat(e.getMessage()).contains("2 names (hard links)");
            });
    assertThat(Files.readAllBytes(p)).isEqualTo(before);
    assertThat(Files.isSameFile(p, other)).isTrue();
    assertThat(JournalSegments.directory(p)).doesNotExist();

    Files.delete(other);
    assertThat(FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>()))
        .isEqualTo(4);
  }
}
