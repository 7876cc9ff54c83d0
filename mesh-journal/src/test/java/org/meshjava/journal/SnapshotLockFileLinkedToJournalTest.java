package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot folder's lock file that is another name (a hard link) of the journal its steward
 * holds. Regression: the claim opened it, the JDK refused its lock as overlapping the journal's,
 * and the claim closed that descriptor; closing any descriptor of a file drops every lock this
 * process holds on it, so the journal went on serving unlocked and a second steward, in another
 * process, opened it. Now a lock file that is a journal this process holds is refused before it is
 * opened, and the journal stays locked. The reverse, a journal that is a hard link of a lock file
 * held here, is refused the same way and leaves the folder claimed.
 */
class SnapshotLockFileLinkedToJournalTest {
  @TempDir Path dir;

  @Test
  void aLockFileThatIsAHardLinkOfTheHeldJournal_isRefused_andTheJournalStaysLocked()
      throws Exception {
    Path journal = dir.resolve("j.log");
    Path snaps = Files.createDirectory(dir.resolve("snaps"));
    Path lock = snaps.resolve(SnapshotFolderClaim.LOCK_FILE);
    try (FileJournal held = FileJournal.open(journal)) {
      Files.createLink(lock, journal);
      SnapshotException e =
          catchThrowableOfType(SnapshotException.class, new FileSnapshotStore(snaps)::claim);
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
      assertThat(e.detail())
          .isEqualTo(
              "cannot lock snapshot folder "
                  + snaps
                  + ": its lock file "
                  + lock
                  + " is another name (a hard link) of a journal file this process holds, and"
                  + " opening and closing it would let that journal's lock go; it is left as it"
                  + " is. Remove it, and the next claim makes a file there");
      assertStillLocked(held, journal);
    }
    assertThat(Files.isSameFile(lock, journal)).isTrue();
  }

  /**
   * The same at a save: the lock file swapped for a link of the journal while the folder is held.
   */
  @Test
  void aLockFileSwappedForAHardLinkOfTheJournal_isRefusedAtRenew_andTheJournalStaysLocked()
      throws Exception {
    Path journal = dir.resolve("j.log");
    Path snaps = dir.resolve("snaps");
    Path lock = snaps.resolve(SnapshotFolderClaim.LOCK_FILE);
    try (FileJournal held = FileJournal.open(journal);
        SnapshotFolderClaim claim = new FileSnapshotStore(snaps).claim()) {
      Files.delete(lock);
      Files.createLink(lock, journal);
      SnapshotException e = catchThrowableOfType(SnapshotException.class, claim::renew);
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
      assertThat(e.detail()).contains(" is another name (a hard link) of a journal file");
      assertStillLocked(held, journal);
    }
  }

  /**
   * A lock file with another name that is no journal here (a backup made of hard links, say) is
   * locked as any is: only a journal this process holds is refused.
   */
  @Test
  void aLockFileWithAnotherNameThatIsNoHeldJournal_isClaimed() throws Exception {
    Path snaps = Files.createDirectory(dir.resolve("snaps"));
    Path lock = Files.createFile(snaps.resolve(SnapshotFolderClaim.LOCK_FILE));
    Files.createLink(dir.resolve("backup.lock"), lock);
    try (SnapshotFolderClaim claim = new FileSnapshotStore(snaps).claim()) {
      assertThat(claim.intact()).isTrue();
    }
  }

  /**
   * The reverse: a journal named by another name (a hard link) of a lock file this process holds.
   * Regression: the opening's lock was refused as overlapping the claim's, and closing its
   * descriptor dropped the claim's lock, so another process claimed the folder while this steward
   * saved there. Now it is refused before it is opened, and the folder stays held.
   */
  @Test
  void aJournalThatIsAHardLinkOfAHeldLockFile_isRefused_andTheFolderStaysClaimed()
      throws Exception {
    Path snaps = dir.resolve("snaps");
    Path journal = dir.resolve("j.log");
    try (SnapshotFolderClaim claim = new FileSnapshotStore(snaps).claim()) {
      Path lock = snaps.resolve(SnapshotFolderClaim.LOCK_FILE);
      Files.createLink(journal, lock);
      assertRefusedAsClaimedLockFile(
          "cannot open", journal, () -> FileJournal.open(journal).close());
      assertStillClaimed(claim, snaps);
      assertThat(Files.isSameFile(journal, lock)).isTrue();
      assertThat(Files.size(lock)).isZero();
    }
  }

  /**
   * The refusal of {@code journal}, a hard link of a lock file this process holds, by what begins
   * {@code what} ("cannot open", "cannot read").
   */
  static String claimedLockFileRefusal(String what, Path journal) {
    return what
        + " "
        + journal
        + ": it is another name (a hard link) of a snapshot folder's lock file that this process"
        + " holds, and opening and closing it would let that folder's lock go; it is left as it"
        + " is. Give the journal a file of its own";
  }

  /**
   * {@code act} on {@code journal}, a hard link of a lock file this process holds, is refused
   * {@code IO} in {@link #claimedLockFileRefusal}'s words, begun by {@code what}.
   */
  static void assertRefusedAsClaimedLockFile(String what, Path journal, ThrowingCallable act) {
    JournalException e = catchThrowableOfType(JournalException.class, act);
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.detail()).isEqualTo(claimedLockFileRefusal(what, journal));
  }

  /**
   * Another process is refused the folder {@code snaps}, and {@code claim} still names its lock.
   */
  static void assertStillClaimed(SnapshotFolderClaim claim, Path snaps) throws Exception {
    Process other = ChildJvm.start(SnapshotClaimChild.class, snaps);
    try {
      assertThat(ChildJvm.firstLine(other))
          .as("another process claiming the folder")
          .isEqualTo("REFUSED IN_USE");
    } finally {
      other.destroyForcibly().waitFor();
    }
    assertThat(claim.intact()).isTrue();
  }

  /** Another process is refused the journal, and its holder still appends. */
  private static void assertStillLocked(FileJournal held, Path journal) throws Exception {
    assertLockedToOthers(journal);
    held.append(FileJournalTest.sealed(0));
  }

  /** Another process is refused the journal {@code journal}: this process still holds its lock. */
  static void assertLockedToOthers(Path journal) throws Exception {
    Process other = ChildJvm.start(LockChild.class, journal);
    try {
      assertThat(ChildJvm.firstLine(other))
          .as("another process opening the journal")
          .isEqualTo("LOCKED");
    } finally {
      other.destroyForcibly();
    }
  }
}
