package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running steward never hands out an append that went to a file no longer named as its journal
 * (SPEC.md §60.2): the check that the path still names the locked file ran only before the write,
 * so a file renamed away (or replaced by another journal) between that check and the sync took the
 * batch, and the append returned as durable while the journal its operator restarts on lacked it.
 * The check is made again once the batch is forced: the append is refused {@code FAILED} and its
 * lines are cut from the renamed file, which is left as it was. The {@link FileJournal.Syncer} seam
 * renames the file at the moment of the sync.
 */
class FileJournalRenamedUnderItTest {
  @TempDir Path dir;

  @Test
  void aJournalRenamedAwayWhileABatchIsWritten_refusesIt_andTheRenamedFileKeepsNoPartOfIt()
      throws Exception {
    Path j = FileJournalStreamTest.journal(dir.resolve("j.log"), 2);
    Path moved = dir.resolve("j.moved");
    assertRefusedWhile(j, moved, () -> Files.move(j, moved));
    assertThat(Files.exists(j)).isFalse();
  }

  @Test
  void aJournalReplacedByAnotherWhileABatchIsWritten_refusesIt() throws Exception {
    Path j = FileJournalStreamTest.journal(dir.resolve("j.log"), 2);
    Path other = FileJournalStreamTest.journal(dir.resolve("other.log"), 5);
    byte[] others = Files.readAllBytes(other);
    Path moved = dir.resolve("j.moved");
    assertRefusedWhile(
        j,
        moved,
        () -> {
          Files.move(j, moved);
          Files.move(other, j);
        });
    assertThat(Files.readAllBytes(j)).as("the journal now named j.log").isEqualTo(others);
  }

  /** What the test does to the journal's name during the sync. */
  @FunctionalInterface
  interface Rename {
    void run() throws Exception;
  }

  private static void assertRefusedWhile(Path j, Path moved, Rename rename) throws Exception {
    byte[] before = Files.readAllBytes(j);
    AtomicBoolean armed = new AtomicBoolean();
    try (FileJournal journal =
        FileJournal.open(
            j,
            FileChannel::tryLock,
            (channel, length) -> {
              channel.force(false);
              if (armed.getAndSet(false)) {
                try {
                  rename.run();
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
              }
            })) {
      armed.set(true);
      assertThatThrownBy(() -> journal.append(FileJournalStreamTest.sealed(2)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED))
          .hasMessageContaining("while this batch was written");
      assertThatThrownBy(() -> journal.append(FileJournalStreamTest.sealed(3)))
          .isInstanceOf(JournalException.class);
    }
    assertThat(Files.readAllBytes(moved))
        .as("the file the steward locked, under its new name: the refused batch cut off")
        .isEqualTo(before);
  }
}
