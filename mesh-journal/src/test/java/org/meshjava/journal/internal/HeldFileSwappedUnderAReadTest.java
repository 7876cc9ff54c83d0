package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.SnapshotFolderClaim;

/**
 * A read by name (a snapshot, a journal read without its lock) that opens, in place of the file it
 * checked, the file of a journal this process holds: someone who can write the folder swapped it in
 * between the check and the open. Regression: the read closed that descriptor as any, and closing
 * any descriptor of a file drops every POSIX lock this process holds on it, so another process
 * could open the journal while its steward here served. Now the descriptor is closed as {@link
 * LockHolder#closeKeepingLocks} closes one, and the journal stays locked.
 */
class HeldFileSwappedUnderAReadTest {
  @TempDir Path dir;

  private Path held;
  private Path other;

  @BeforeEach
  void files() throws Exception {
    held = dir.resolve("held.log");
    other = dir.resolve("other.log");
    Files.createFile(other);
    // Each open of this test, of whatever name, opens the held journal's file.
    LockHolder.openWith(file -> FileChannel.open(held, StandardOpenOption.READ));
  }

  @AfterEach
  void openByName() {
    LockHolder.openByName();
    // Every journal of this test is closed by now: closing what was kept lets no lock go.
    LockHolder.closeKept();
  }

  @Test
  void aJournalScannedWithoutItsLock_thatIsAHeldJournalSwappedIn_leavesItLocked() throws Exception {
    staysLocked(() -> FileJournal.scan(other, JournalPosition.GENESIS, new HashMap<>(), r -> {}));
  }

  @Test
  void aJournalsFirstSequence_readFromAHeldJournalSwappedIn_leavesItLocked() throws Exception {
    staysLocked(() -> FileJournal.firstSequence(other));
  }

  /**
   * The same on a thread whose interrupt is set: the read runs where the interrupt cannot close its
   * descriptor, and the caller keeps its interrupt. Regression: read on the caller's thread, the
   * interrupt closed the descriptor of the held journal and let its lock go.
   */
  @Test
  void readsOnAnInterruptedThread_ofAHeldJournalSwappedIn_leaveItLocked() throws Exception {
    staysLocked(() -> interrupted(() -> FileJournal.firstSequence(other)));
    staysLocked(() -> interrupted(() -> FileJournal.checkLinksBefore(other, 0)));
  }

  /**
   * Runs {@code read} with this thread's interrupt set, and clears it after (the check of the OS's
   * locks reads a file); an unchecked failure, which {@link #staysLocked} refuses, if it was lost.
   */
  private static void interrupted(ThrowingCallable read) throws Throwable {
    Thread.currentThread().interrupt();
    try {
      read.call();
    } finally {
      if (!Thread.interrupted()) {
        throw new IllegalStateException("the caller's interrupt was lost");
      }
    }
  }

  /**
   * A scan interrupted during its read of a held journal swapped in: the read, and the sink it
   * calls, run where the interrupt cannot close the descriptor, and the caller keeps its interrupt.
   * Regression: they read on the caller's thread, the interrupt closed the descriptor of the held
   * journal, and its lock went.
   */
  @Test
  void aJournalScan_interruptedDuringItsRead_ofAHeldJournalSwappedIn_leavesItLocked()
      throws Exception {
    staysLocked(
        () ->
            interruptedAtTheSwap(
                0,
                () -> FileJournal.scan(other, JournalPosition.GENESIS, new HashMap<>(), r -> {})));
  }

  /**
   * As above, for the reader of {@code mesh journal verify}, {@code inspect} and {@code export}.
   */
  @Test
  void aJournalFileScan_interruptedDuringItsRead_ofAHeldJournalSwappedIn_leavesItLocked()
      throws Exception {
    staysLocked(
        () -> interruptedAtTheSwap(0, () -> JournalFile.scan(other, n -> {}, (r, line) -> {})));
  }

  /**
   * The check whether a file refused as no journal is its snapshot folder's journal damaged, when
   * the read of the file's line is interrupted and the file is a held journal swapped in.
   * Regression: that read ran on the caller's thread, and the interrupt let the held journal's lock
   * go.
   */
  @Test
  void aOneLineDamageCheck_interruptedDuringItsRead_ofAHeldJournalSwappedIn_leavesItLocked()
      throws Exception {
    Files.writeString(other, "# notes\n");
    Path folder = Files.createDirectory(dir.resolve("snapshots"));
    Files.writeString(folder.resolve(SnapshotFolderClaim.JOURNAL_FILE), other.toRealPath() + "\n");
    // The first open is the refused read of the file itself; the second, the check's, is swapped.
    staysLocked(() -> interruptedAtTheSwap(1, () -> FileJournal.firstSequence(other, folder)));
  }

  /**
   * The check that a journal's first segment holds record 0 ({@code mesh journal verify} asks it on
   * its own thread), when its read is interrupted and the segment is a held journal swapped in.
   * Regression: that read ran on the caller's thread, and the interrupt closed the descriptor of
   * the held journal and let its lock go.
   */
  @Test
  void aFirstSegmentCheck_interruptedDuringItsRead_ofAHeldJournalSwappedIn_leavesItLocked()
      throws Exception {
    Files.createDirectories(JournalSegments.directory(other));
    Files.createFile(JournalSegments.file(other, 0));
    staysLocked(() -> interruptedAtTheSwap(0, () -> JournalSegments.from0(other)));
  }

  /**
   * Runs {@code read} where its opens after the first {@code byName} (which open the name asked
   * for) open the held journal's file instead, each interrupting this thread as it does so: an
   * interrupt that arrives during a read of the swapped-in file. Then clears the interrupt; an
   * unchecked failure, which {@link #staysLocked} refuses, if it was lost.
   */
  private void interruptedAtTheSwap(int byName, ThrowingCallable read) throws Throwable {
    Thread caller = Thread.currentThread();
    AtomicInteger opens = new AtomicInteger();
    LockHolder.openWith(
        file -> {
          if (opens.getAndIncrement() < byName) {
            return FileChannel.open(file, StandardOpenOption.READ);
          }
          caller.interrupt();
          return FileChannel.open(held, StandardOpenOption.READ);
        });
    Throwable refused = catchThrowable(read);
    boolean kept = Thread.interrupted();
    if (opens.get() <= byName) {
      throw new IllegalStateException("the read opened no swapped file: " + opens.get());
    }
    if (!kept) {
      throw new IllegalStateException("the caller's interrupt was lost");
    }
    if (refused != null) {
      throw refused;
    }
  }

  @Test
  void aJournalsLinksChecked_inAHeldJournalSwappedIn_leaveItLocked() throws Exception {
    staysLocked(() -> FileJournal.checkLinksBefore(other, 0));
  }

  @Test
  void aJournalFileScanned_thatIsAHeldJournalSwappedIn_leavesItLocked() throws Exception {
    staysLocked(() -> JournalFile.scan(other, n -> {}, (r, line) -> {}));
  }

  @Test
  void theLatestSnapshotRead_fromAHeldJournalSwappedIn_leavesItLocked() throws Exception {
    FileSnapshotStore store = snapshotFolder();
    staysLocked(store::latest);
    staysLocked(store::latestHeader);
    staysLocked(store::latestBuffer);
    staysLocked(() -> store.latestMapping().ifPresent(m -> m.close()));
  }

  /**
   * Swap after swap, each keeping one descriptor of the held journal open: once {@link
   * LockHolder#MAX_KEPT} are kept, a read is refused {@code IO} before it opens anything, saying
   * why, and the journal stays locked. Regression: they were kept without bound.
   */
  @Test
  void pastTheBoundOnKeptDescriptors_aReadIsRefusedUnopened_andTheJournalStaysLocked()
      throws Exception {
    try (FileJournal journal = FileJournal.open(held)) {
      JournalException refused = null;
      for (int i = 0; i <= LockHolder.MAX_KEPT && refused == null; i++) {
        refused =
            catchThrowableOfType(JournalException.class, () -> FileJournal.firstSequence(other));
      }
      assertThat(refused).as("a read past the bound").isNotNull();
      assertThat(refused.reason()).isEqualTo(JournalException.Reason.IO);
      assertThat(refused.detail())
          .startsWith("cannot read " + other + ": this process keeps open " + LockHolder.MAX_KEPT)
          .endsWith("it opens no more while it holds those files or until it restarts");
      // One opened past the bound (by a thread that passed the check before) is kept still: the
      // bound is kept by refusing to open, never by letting a lock go.
      LockHolder.closeKeepingLocks(FileChannel.open(held, StandardOpenOption.READ));
      assertThat(OsLocks.heldHere(held)).as("the journal's lock").isTrue();
      assertThat(journal.locked()).isTrue();
    }
  }

  /** A folder whose latest snapshot is a file of its own until it is opened. */
  private FileSnapshotStore snapshotFolder() throws Exception {
    Path snaps = dir.resolve("snaps");
    Files.createDirectories(snaps);
    Files.write(snaps.resolve("00000000000000000001.snapshot"), new byte[] {1, 2, 3});
    return new FileSnapshotStore(snaps);
  }

  /**
   * {@code read}, run while this process holds the journal {@code held}, with or without a refusal
   * (the held file is no snapshot), leaves that journal locked: the OS still lists its lock.
   */
  private void staysLocked(ThrowingCallable read) throws Exception {
    try (FileJournal journal = FileJournal.open(held)) {
      assertThat(OsLocks.heldHere(held)).as("the journal's lock, before the read").isTrue();
      Throwable refused = catchThrowable(read);
      if (refused != null) {
        assertThat(refused).as("a typed refusal, if any").isNotInstanceOf(RuntimeException.class);
      }
      assertThat(OsLocks.heldHere(held)).as("the journal's lock, after the read").isTrue();
      assertThat(journal.locked()).isTrue();
    }
  }
}
