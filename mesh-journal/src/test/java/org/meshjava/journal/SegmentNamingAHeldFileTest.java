package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * An archived segment that is another name (a hard link) of a file this process holds locked.
 * Regression: a read of the segments opened it and closed it again, and closing any descriptor of a
 * file drops every POSIX lock this process holds on it, so another process could then claim the
 * snapshot folder, or open the journal, while this one still used it. Now such a segment is refused
 * before it is opened, naming it, and the lock stays.
 */
class SegmentNamingAHeldFileTest {
  @TempDir Path dir;

  @Test
  void aSegmentThatIsAHardLinkOfAHeldLockFile_isRefusedUnopened_andTheFolderStaysClaimed()
      throws Exception {
    Path journal = dir.resolve("j.log");
    Path segment = archivedFirstFour(journal);
    Path snaps = dir.resolve("snaps");
    try (SnapshotFolderClaim claim = new FileSnapshotStore(snaps).claim()) {
      Path lock = snaps.resolve(SnapshotFolderClaim.LOCK_FILE);
      Files.delete(segment);
      Files.createLink(segment, lock);

      assertRefused(
          segment,
          "a snapshot folder's lock file",
          () -> FileJournal.scan(journal, JournalPosition.GENESIS, new HashMap<>(), r -> {}));
      SnapshotLockFileLinkedToJournalTest.assertStillClaimed(claim, snaps);
      assertThat(Files.isSameFile(segment, lock)).isTrue();
    }
  }

  @Test
  void aSegmentThatIsAHardLinkOfTheHeldJournal_isReadThroughItsHolder_andTheJournalStaysLocked()
      throws Exception {
    Path journal = dir.resolve("j.log");
    Path segment = archivedFirstFour(journal);
    try (FileJournal held = FileJournal.open(journal)) {
      Files.delete(segment);
      Files.createLink(segment, journal);

      // Read through the holder's descriptor: a segment that begins where the live file does.
      JournalException e =
          catchThrowableOfType(
              JournalException.class,
              () -> held.read(JournalPosition.GENESIS, new HashMap<>(), r -> {}));
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
      assertThat(e.detail())
          .startsWith(
              "archived segment " + segment + " is named for record 0 but begins with record 4");
      SnapshotLockFileLinkedToJournalTest.assertLockedToOthers(journal);
      assertThat(Files.isSameFile(segment, journal)).isTrue();
    }
  }

  /**
   * A scan on a caller's thread whose interrupt is set: the scan runs on a journal I/O thread, so
   * the segment is read through the holder's descriptor as the holder's own read reads it (refused
   * as the segment it is not), the interrupt never reaches that descriptor, the journal stays
   * locked and the caller keeps its interrupt. Before, the scan read on the caller's thread, where
   * reading through the holder's descriptor would let the interrupt close it, so it was refused
   * {@code IO} as another name of a journal held here.
   */
  @Test
  void
      aSegmentThatIsAHardLinkOfAHeldJournal_scannedOnAnInterruptedCallersThread_isReadThroughItsHolder()
          throws Exception {
    withAnotherJournalsSegmentLinkedToAHeldOne(
        (other, segment) -> {
          boolean interruptKept;
          JournalException e;
          Thread.currentThread().interrupt();
          try {
            e =
                catchThrowableOfType(
                    JournalException.class,
                    () -> JournalFile.scan(other, 4, n -> {}, (r, line) -> {}));
          } finally {
            interruptKept = Thread.interrupted();
          }
          assertThat(interruptKept).as("the caller's interrupt").isTrue();
          assertThat(e).isNotNull();
          assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
          assertThat(e.detail())
              .isEqualTo(
                  "archived segment "
                      + segment
                      + " holds no whole record; give it the name of its first record, restore it"
                      + " from a copy, or move every segment away so that the snapshot alone stands"
                      + " for them");
        });
  }

  /**
   * The segments read on a caller's own thread (every reader of this module moves there first, so
   * only a direct call comes here): the held journal's descriptor is not read there, where an
   * interrupt would close it, and the segment is refused {@code IO} unread, the journal locked.
   */
  @Test
  void aSegmentThatIsAHardLinkOfAHeldJournal_readOnACallersOwnThread_isRefusedUnread()
      throws Exception {
    withAnotherJournalsSegmentLinkedToAHeldOne(
        (other, segment) ->
            assertRefused(
                segment, "a journal", () -> JournalSegments.lines(other, 0, 4, (l, s) -> {})));
  }

  /** What is checked of {@code other}'s segment, a hard link of a journal held here. */
  @FunctionalInterface
  private interface SegmentCheck {
    void run(Path other, Path segment) throws Exception;
  }

  /**
   * Runs {@code check} while this process holds a journal of which the first segment of another
   * journal, {@code other}, is a hard link; then the held journal still appends, locked to others.
   */
  private void withAnotherJournalsSegmentLinkedToAHeldOne(SegmentCheck check) throws Exception {
    Path heldPath = dir.resolve("held.log");
    Path other = dir.resolve("other.log");
    Path segment = archivedFirstFour(other);
    try (FileJournal held = FileJournal.open(heldPath)) {
      Files.delete(segment);
      Files.createLink(segment, heldPath);

      check.run(other, segment);
      held.append(FileJournalStreamTest.sealed(0));
      SnapshotLockFileLinkedToJournalTest.assertLockedToOthers(heldPath);
    }
  }

  /** Appends ten records to {@code journal} and archives the first four; returns their segment. */
  private static Path archivedFirstFour(Path journal) throws Exception {
    try (FileJournal j = FileJournal.openUnsynced(journal)) {
      for (int i = 0; i < 10; i++) {
        j.append(FileJournalStreamTest.sealed(i));
      }
    }
    List<byte[]> lines = JournalFile.read(journal).lines();
    FileJournal.archive(journal, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>());
    Path segment = JournalSegments.file(journal, 0);
    assertThat(segment).isRegularFile();
    return segment;
  }

  /** {@code read} is refused {@code IO}, naming {@code segment} as another name of {@code what}. */
  private static void assertRefused(Path segment, String what, ThrowingCallable read) {
    JournalException e = catchThrowableOfType(JournalException.class, read);
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.detail())
        .isEqualTo(
            "cannot read "
                + segment
                + ": it is another name (a hard link) of "
                + what
                + " that this process holds, and opening and closing it would let that lock go;"
                + " it is left as it is. An archive never makes one: move it out of "
                + segment.toAbsolutePath().getParent());
  }
}
