package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal's opening that finds, after its identity check, a file this process already holds under
 * the name it opened (another name of a held journal swapped in). Regression: the opening closed
 * that descriptor as it gave up, refused as replaced or its lock refused as overlapping, and
 * closing any descriptor of a file drops every POSIX lock this process holds on it, so another
 * process could open the held journal while its steward served. Now the descriptor is kept open
 * while the lock is held here, and the held journal stays locked.
 */
class JournalOpenSwappedForAHeldFileTest {
  @TempDir Path dir;

  /** The held journal's file opened in place of the one checked, and the name put back. */
  @Test
  void aHeldJournalOpenedInPlaceOfTheCheckedFile_isRefusedOverlapping_andStaysLocked()
      throws Exception {
    JournalException e = openedWhileHeld(this::held);
    assertThat(e.reason()).isEqualTo(JournalException.Reason.UNLOCKABLE);
  }

  /** The name swapped for a hard link of the held journal between the check and the open. */
  @Test
  void aNameSwappedForAHardLinkOfAHeldJournal_isRefused_andTheJournalStaysLocked()
      throws Exception {
    JournalException e =
        openedWhileHeld(
            () -> {
              Files.delete(other());
              return Files.createLink(other(), held());
            });
    assertThat(e.reason()).isIn(JournalException.Reason.IO, JournalException.Reason.LOCKED);
  }

  private Path held() {
    return dir.resolve("held.log");
  }

  private Path other() {
    return dir.resolve("other.log");
  }

  /**
   * The refusal of opening {@code other()} while {@code held()} is held here, the opening's first
   * open opening what {@code swap} gives; checks the held journal stays locked.
   */
  private JournalException openedWhileHeld(Swap swap) throws Exception {
    try (FileJournal holder = FileJournal.open(held())) {
      JournalException e =
          catchThrowableOfType(
              JournalException.class, () -> FileJournal.open(other(), opening(swap)).close());
      assertThat(e).isNotNull();
      SnapshotLockFileLinkedToJournalTest.assertLockedToOthers(held());
      assertThat(holder.locked()).isTrue();
      return e;
    }
  }

  /** What the name leads to when the opening opens it, once: {@link FileJournal.Locker}'s seam. */
  @FunctionalInterface
  private interface Swap {
    Path file() throws IOException;
  }

  /** A locker whose first open opens what {@code swap} gives instead of the file checked. */
  private static FileJournal.Locker opening(Swap swap) {
    return new FileJournal.Locker() {
      private boolean swapped;

      @Override
      public FileLock tryLock(FileChannel channel) throws IOException {
        return channel.tryLock();
      }

      @Override
      public FileChannel open(Path real) throws IOException {
        Path file = real;
        if (!swapped) {
          swapped = true;
          file = swap.file();
        }
        return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
      }
    };
  }
}
