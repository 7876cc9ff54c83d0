package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * What a file journal creates is its owner's alone on a POSIX file system, whatever the umask
 * (SPEC.md §78, "The operator's files"): files 0600, folders 0700. The journal says who spent what
 * and when; with the usual umask of 022 it was readable by every local user. What exists keeps its
 * mode, and a file rewritten whole (an archive's new live file, the next snapshot) takes the mode
 * of the one it replaces, so an operator's {@code chmod} stays.
 */
class OwnerOnlyFilesTest {
  @TempDir Path dir;

  @BeforeEach
  void posixOnly() {
    assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"));
  }

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void aNewJournal_itsFoldersAndItsSegments_areTheOwnersAlone() throws Exception {
    Path j = dir.resolve("made/for/it/j.log");
    FileJournalStreamTest.journal(j, 10);
    assertThat(mode(j)).isEqualTo("rw-------");
    assertThat(mode(dir.resolve("made"))).isEqualTo("rwx------");
    assertThat(mode(dir.resolve("made/for/it"))).isEqualTo("rwx------");

    LiveFileOlderThanArchiveTest.archiveUpTo(j, 4);
    assertThat(mode(JournalSegments.directory(j))).isEqualTo("rwx------");
    assertThat(mode(JournalSegments.file(j, 0))).isEqualTo("rw-------");
    assertThat(mode(j)).isEqualTo("rw-------");
  }

  @Test
  void anExistingJournalsMode_isKept_throughAppendsAndAnArchive() throws Exception {
    Path j = dir.resolve("j.log");
    Files.createFile(j);
    Files.setPosixFilePermissions(j, PosixFilePermissions.fromString("rw-r-----"));
    FileJournalStreamTest.journal(j, 10);
    assertThat(mode(j)).isEqualTo("rw-r-----");

    LiveFileOlderThanArchiveTest.archiveUpTo(j, 1);
    assertThat(FileJournal.firstSequence(j)).isEqualTo(1);
    assertThat(mode(j)).as("the live file rewritten by the archive").isEqualTo("rw-r-----");
  }

  @Test
  void aSnapshotFolder_itsSnapshotsLockAndRecord_areTheOwnersAlone_andAChmodOfTheLatestStays()
      throws Exception {
    Path j = FileJournalStreamTest.journal(dir.resolve("j.log"), 1);
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps/of/j"));
    try (SnapshotFolderClaim claim = store.claim(j)) {
      store.save(FileSnapshotStoreTest.at(1));
      assertThat(mode(dir.resolve("snaps"))).isEqualTo("rwx------");
      assertThat(mode(store.directory())).isEqualTo("rwx------");
      assertThat(mode(store.directory().resolve("steward.lock"))).isEqualTo("rw-------");
      assertThat(mode(store.directory().resolve("journal.path"))).isEqualTo("rw-------");
      assertThat(store.files()).singleElement().satisfies(f -> assertMode(f, "rw-------"));

      Files.setPosixFilePermissions(
          store.files().getLast(), PosixFilePermissions.fromString("rw-r-----"));
      store.save(FileSnapshotStoreTest.at(2));
      assertThat(mode(store.files().getLast())).isEqualTo("rw-r-----");
    }
  }

  private static void assertMode(Path p, String expected) {
    try {
      assertThat(mode(p)).as(p.toString()).isEqualTo(expected);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
