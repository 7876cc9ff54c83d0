package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed start's journal is closed, and its lock let go, even where letting the snapshot folder
 * go fails first (a folder whose listing fails while it is emptied, out of memory): the lock once
 * stayed held, refusing every later start in the process on the same journal.
 */
class CreatedJournalClaimFailsTest {
  @TempDir Path tmp;

  @Test
  void close_whereTheClaimThrows_stillRemovesTheFileAndLetsTheLockGo() throws Exception {
    closeWhereTheClaimThrows(new IllegalStateException("cannot list the folder"));
  }

  @Test
  void close_whereTheClaimThrowsAnError_stillRemovesTheFileAndLetsTheLockGo() throws Exception {
    closeWhereTheClaimThrows(new OutOfMemoryError("Java heap space"));
  }

  private void closeWhereTheClaimThrows(Throwable thrown) throws Exception {
    Path journal = tmp.resolve("new.journal");
    CreatedJournal created = new CreatedJournal(FileJournal.open(journal));
    created.snapshots(
        () -> {
          if (thrown instanceof Error e) {
            throw e;
          }
          throw (RuntimeException) thrown;
        });
    assertThatThrownBy(created::close).isSameAs(thrown);
    assertThat(journal).doesNotExist();
    try (FileJournal again = FileJournal.open(journal)) {
      assertThat(again.locked()).isTrue();
    }
  }
}
