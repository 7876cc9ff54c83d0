package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;

/**
 * The journal lock follows the file's identity (issue 14 item 1): a second steward, in another JVM
 * or this one, is refused whatever name reaches the file — a symlink, a hard link, a deleted
 * sidecar — and a journal whose file changed under it writes nothing more.
 */
class JournalLockTest {
  @TempDir Path dir;

  private final List<Process> children = new ArrayList<>();

  @AfterEach
  void stopChildren() throws Exception {
    for (Process p : children) {
      p.getOutputStream().close();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void secondSteward_throughASymlink_isRefused() throws Exception {
    Path journal = dir.resolve("j.log");
    Path link = Files.createSymbolicLink(dir.resolve("link.log"), journal.getFileName());
    assertThat(holdInChild(journal)).isEqualTo("OPEN");
    assertRefusedHere(link);
    // And the other way round: held through the link, refused by its real name.
    stopChildren();
    children.clear();
    assertThat(holdInChild(link)).isEqualTo("OPEN");
    assertRefusedHere(journal);
  }

  @Test
  void open_throughASymlinkToNothingYet_createsTheJournalWhereItPoints_andLocksThatFile()
      throws Exception {
    Path journal = dir.resolve("data").resolve("j.log");
    Files.createDirectories(journal.getParent());
    // A chain of two links, the last one relative: each followed from its own folder.
    Path inner = Files.createSymbolicLink(dir.resolve("inner.log"), Path.of("data", "j.log"));
    Path link = Files.createSymbolicLink(dir.resolve("link.log"), inner);
    try (FileJournal j = FileJournal.open(link)) {
      j.append(FileJournalTest.sealed(0));
      assertThat(journal).isRegularFile();
      assertThat(Files.isSymbolicLink(link)).isTrue();
      assertThat(Files.isSymbolicLink(inner)).isTrue();
      Process other = child(journal);
      assertThat(firstLine(other)).isEqualTo("LOCKED");
    }
    assertThat(JournalFile.read(journal).records()).hasSize(1);
  }

  @Test
  void open_throughASymlinkIntoAMissingFolder_saysItIsADanglingLink_andCreatesNothing()
      throws Exception {
    Path target = dir.resolve("missing").resolve("j.log");
    Path link = Files.createSymbolicLink(dir.resolve("link.log"), target);
    assertThatThrownBy(() -> FileJournal.open(link))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage())
                  .contains("is a symbolic link to " + target)
                  .contains("does not exist")
                  .contains("create the folder");
            });
    assertThat(dir.resolve("missing")).doesNotExist();
  }

  @Test
  void secondSteward_throughAHardLink_isRefused() throws Exception {
    Path journal = dir.resolve("j.log");
    Files.createFile(journal);
    Path other = Files.createDirectory(dir.resolve("elsewhere"));
    Path hard = Files.createLink(other.resolve("copy.log"), journal);
    assertThat(holdInChild(journal)).isEqualTo("OPEN");
    assertRefusedHere(hard);
  }

  @Test
  void secondSteward_afterTheLockSidecarIsDeleted_isRefused() throws Exception {
    Path journal = dir.resolve("j.log");
    // A sidecar left by an older version, or made by hand: it carries no weight either way.
    Path sidecar = Files.createFile(dir.resolve("j.log.lock"));
    assertThat(holdInChild(journal)).isEqualTo("OPEN");
    Files.delete(sidecar);
    assertRefusedHere(journal);
    assertThat(sidecar).doesNotExist();
  }

  @Test
  void twoStewards_racingThroughDifferentNames_exactlyOneOpens() throws Exception {
    Path journal = dir.resolve("j.log");
    Files.createFile(journal);
    Path link = Files.createSymbolicLink(dir.resolve("link.log"), journal);
    Path hard = Files.createLink(dir.resolve("hard.log"), journal);
    Process a = child(journal);
    Process b = child(link);
    Process c = child(hard);
    List<String> answers = List.of(firstLine(a), firstLine(b), firstLine(c));
    assertThat(answers).containsOnly("OPEN", "LOCKED");
    assertThat(answers).filteredOn("OPEN"::equals).hasSize(1);
  }

  @Test
  void secondOpenInThisProcess_throughAnotherName_isRefused() throws Exception {
    Path journal = dir.resolve("j.log");
    Path link = Files.createSymbolicLink(dir.resolve("link.log"), journal.getFileName());
    try (FileJournal held = FileJournal.open(journal)) {
      Files.createLink(dir.resolve("hard.log"), journal);
      assertRefusedHere(link);
      assertRefusedHere(dir.resolve("hard.log"));
      held.append(FileJournalTest.sealed(0));
    }
  }

  /**
   * The lock is the file's, not its name's: a folder reached through a symbolic link, or a path
   * through {@code ..}, names the same file and is refused as a link to it is.
   */
  @Test
  void secondOpenInThisProcess_throughALinkedFolderOrADotDotPath_isRefused() throws Exception {
    Path data = Files.createDirectory(dir.resolve("data"));
    Path journal = data.resolve("j.log");
    Path linkedFolder = Files.createSymbolicLink(dir.resolve("linked"), data);
    Path dotDot = Files.createDirectory(data.resolve("sub")).resolve("..").resolve("j.log");
    try (FileJournal held = FileJournal.open(journal)) {
      assertRefusedHere(linkedFolder.resolve("j.log"));
      assertRefusedHere(dotDot);
      held.append(FileJournalTest.sealed(0));
    }
    // And held through the linked folder, refused by the real name.
    try (FileJournal held = FileJournal.open(linkedFolder.resolve("j.log"))) {
      assertRefusedHere(journal);
      assertRefusedHere(dotDot);
    }
    assertThat(JournalFile.read(journal).records()).hasSize(1);
  }

  @Test
  void readingAHeldJournalInProcess_keepsTheLock() throws Exception {
    Path journal = dir.resolve("j.log");
    try (FileJournal held = FileJournal.open(journal)) {
      held.append(FileJournalTest.sealed(0));
      // An inspector in the steward's own process: reading must not drop the OS lock.
      assertThat(JournalFile.read(journal).records()).hasSize(1);
      assertThat(JournalFile.read(dir.resolve("j.log")).records()).hasSize(1);
      Process other = child(journal);
      assertThat(firstLine(other)).isEqualTo("LOCKED");
    }
  }

  @Test
  void aWriterBehindTheJournal_failsIt_andNothingMoreIsWritten() throws Exception {
    Path journal = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(journal)) {
      j.append(FileJournalTest.sealed(0));
      Files.write(
          journal, "{\"seq\":1}\n".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
      long size = Files.size(journal);
      assertThatThrownBy(() -> j.append(FileJournalTest.sealed(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
      assertThat(Files.size(journal)).isEqualTo(size);
      assertThatThrownBy(() -> j.append(FileJournalTest.sealed(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    }
  }

  @Test
  void aTruncatedJournal_failsIt() throws Exception {
    Path journal = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(journal)) {
      j.append(FileJournalTest.sealed(0));
      j.append(FileJournalTest.sealed(1));
      try (var ch = java.nio.channels.FileChannel.open(journal, StandardOpenOption.WRITE)) {
        ch.truncate(10);
      }
      assertThatThrownBy(() -> j.append(FileJournalTest.sealed(2)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    }
  }

  @Test
  void aJournalReplacedUnderItsName_failsIt_andTheNewFileIsUntouched() throws Exception {
    Path journal = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(journal)) {
      j.append(FileJournalTest.sealed(0));
      Files.move(journal, dir.resolve("moved.log"));
      Files.write(journal, new byte[0]);
      assertThatThrownBy(() -> j.append(FileJournalTest.sealed(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
      assertThat(Files.size(journal)).isZero();
    }
  }

  @Test
  void aJournalDeletedUnderIt_failsIt() throws Exception {
    Path journal = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(journal)) {
      j.append(FileJournalTest.sealed(0));
      Files.delete(journal);
      assertThatThrownBy(() -> j.append(FileJournalTest.sealed(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
    }
  }

  @Test
  void platformThatCannotLock_refusesToOpen_andLeavesNothingHeld() throws Exception {
    Path journal = dir.resolve("j.log");
    assertThatThrownBy(
            () ->
                FileJournal.open(
                    journal,
                    ch -> {
                      throw new UnsupportedOperationException("this filesystem has no locks");
                    }))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.UNLOCKABLE));
    assertThatThrownBy(
            () ->
                FileJournal.open(
                    journal,
                    ch -> {
                      throw new java.io.IOException("No locks available");
                    }))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.UNLOCKABLE));
    try (FileJournal j = FileJournal.open(journal)) {
      assertThat(j.recovered()).isEmpty();
    }
  }

  @Test
  void open_removesAnArchivingFileLeftByAKilledArchive_onceItHoldsTheLock() throws Exception {
    Path journal = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(journal)) {
      j.append(FileJournalTest.sealed(0));
    }
    // What a SIGKILL between an archive's copy and its rename leaves beside the journal.
    Path leftover = Files.write(dir.resolve("j.log.archiving"), Files.readAllBytes(journal));
    try (FileJournal j = FileJournal.open(journal)) {
      assertThat(leftover).doesNotExist();
      assertThat(j.recovered()).hasSize(1);
    }
  }

  @Test
  void open_refusedBecauseAnotherHolds_leavesTheArchivingFile() throws Exception {
    Path journal = dir.resolve("j.log");
    Path inProgress = dir.resolve("j.log.archiving");
    // Held by another process, whose archive may be writing the file now: not this opener's.
    assertThat(holdInChild(journal)).isEqualTo("OPEN");
    Files.writeString(inProgress, "the other process's");
    assertRefusedHere(journal);
    assertThat(inProgress).hasContent("the other process's");
    // And held by another steward in this process.
    stopChildren();
    children.clear();
    try (FileJournal held = FileJournal.open(journal)) {
      Files.writeString(inProgress, "this process's");
      assertRefusedHere(journal);
      assertThat(inProgress).hasContent("this process's");
    }
  }

  @Test
  void closeAndRemove_removesTheFile_whileItsLockStillKeepsOutAnotherProcess() throws Exception {
    Path journal = dir.resolve("j.log");
    FileJournal j = FileJournal.open(journal);
    List<String> atRemoval = new ArrayList<>();
    boolean removed =
        j.closeAndRemove(
            path -> {
              // The moment the name goes: a second steward must still be kept out, or it could
              // open this file now and lose its records with the name.
              try {
                atRemoval.add(holdInChild(path));
              } catch (Exception e) {
                throw new java.io.IOException(e);
              }
              Files.delete(path);
            });
    assertThat(removed).isTrue();
    assertThat(atRemoval).containsExactly("LOCKED");
    assertThat(journal).doesNotExist();
    try (FileJournal again = FileJournal.open(journal)) {
      assertThat(again.recovered()).isEmpty();
    }
  }

  @Test
  void closeAndRemove_whenTheNameNowReachesAnotherFile_leavesThatFile() throws Exception {
    Path journal = dir.resolve("j.log");
    FileJournal j = FileJournal.open(journal);
    Files.move(journal, dir.resolve("moved.log"));
    Files.writeString(journal, "someone else's");
    assertThat(j.closeAndRemove()).isFalse();
    assertThat(journal).hasContent("someone else's");
  }

  @Test
  void closeAndRemove_afterClose_removesNothing() throws Exception {
    Path journal = dir.resolve("j.log");
    FileJournal j = FileJournal.open(journal);
    j.close();
    assertThat(j.closeAndRemove()).isFalse();
    assertThat(journal).exists();
  }

  /**
   * A holder killed with SIGKILL runs no cleanup; the OS drops its lock with the process, and no
   * file of it stays to be taken for a lock still held. Of two processes racing for the journal
   * then, exactly one opens and the other is refused {@code LOCKED}, and this process, while the
   * winner holds it, is refused too.
   */
  @Test
  void aHolderKilledWithSigkill_leavesNoStaleLock_andOfTwoRacingAfterItExactlyOneOpens()
      throws Exception {
    Path journal = dir.resolve("j.log");
    Process killed = child(journal);
    assertThat(firstLine(killed)).isEqualTo("OPEN");
    killed.destroyForcibly();
    assertThat(killed.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Process a = child(journal);
    Process b = child(journal);
    List<String> answers = List.of(firstLine(a), firstLine(b));
    assertThat(answers).containsExactlyInAnyOrder("OPEN", "LOCKED");
    assertRefusedHere(journal);
    try (var left = Files.list(dir)) {
      assertThat(left.map(f -> f.getFileName().toString())).containsExactly("j.log");
    }
  }

  private void assertRefusedHere(Path name) {
    assertThatThrownBy(() -> FileJournal.open(name))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED));
  }

  private String holdInChild(Path journal) throws Exception {
    return firstLine(child(journal));
  }

  private Process child(Path journal) throws Exception {
    Process p = ChildJvm.start(LockChild.class, journal);
    children.add(p);
    return p;
  }

  private static String firstLine(Process p) throws Exception {
    return ChildJvm.firstLine(p);
  }
}
