package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal configured through a symbolic link (the journal's own name, or a folder on its path, as
 * a volume mounted elsewhere is often linked in) is checked by that name before and after each
 * batch (SPEC.md §60.2). The checks followed the name resolved once at open, so a link pointed at
 * another copy of the journal while the steward ran left it appending to the old file, each append
 * returned as durable, and the steward restarted on the configured name read the copy, which lacks
 * them: every spend recorded since came back.
 */
class FileJournalLinkRepointedTest {
  @TempDir Path dir;

  @Test
  void aJournalLinkPointedElsewhere_refusesTheNextAppend() throws Exception {
    Path first = FileJournalStreamTest.journal(dir.resolve("first.log"), 2);
    Path second = dir.resolve("second.log");
    Files.copy(first, second);
    Path link = Files.createSymbolicLink(dir.resolve("j.log"), first.getFileName());
    assertRefusedOnceRepointed(link, link, second.getFileName(), first);
  }

  @Test
  void aLinkedFolderPointedElsewhere_refusesTheNextAppend() throws Exception {
    Path a = Files.createDirectory(dir.resolve("disk-a"));
    Path b = Files.createDirectory(dir.resolve("disk-b"));
    FileJournalStreamTest.journal(a.resolve("j.log"), 2);
    Files.copy(a.resolve("j.log"), b.resolve("j.log"));
    Path mounted = Files.createSymbolicLink(dir.resolve("data"), a.getFileName());
    assertRefusedOnceRepointed(
        mounted.resolve("j.log"), mounted, b.getFileName(), a.resolve("j.log"));
  }

  /**
   * Opens the journal by {@code journalName}, appends one record, points {@code link} at {@code
   * newTarget} (a copy taken before that record), and expects the next append refused and cut from
   * {@code locked}, the file the steward holds.
   */
  private static void assertRefusedOnceRepointed(
      Path journalName, Path link, Path newTarget, Path locked) throws Exception {
    try (FileJournal journal = FileJournal.open(journalName)) {
      journal.append(FileJournalStreamTest.sealed(2));
      Files.delete(link);
      Files.createSymbolicLink(link, newTarget);
      assertThatThrownBy(() -> journal.append(FileJournalStreamTest.sealed(3)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    }
    try (FileJournal old = FileJournal.open(locked)) {
      assertThat(old.position().count())
          .as("the file the steward held: the refused record cut from it")
          .isEqualTo(3);
    }
  }
}
