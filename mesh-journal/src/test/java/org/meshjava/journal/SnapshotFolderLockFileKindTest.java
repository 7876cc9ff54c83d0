package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot folder's lock file ({@value SnapshotFolderClaim#LOCK_FILE}) must be a regular file,
 * for a claim opens it read-write to lock it. Regression: a named pipe put there was opened (Linux
 * opens a pipe read-write at once) and locked, so a claim "held" the folder through a pipe; a
 * symbolic link was followed and the file it led to, anywhere, opened read-write and locked; a link
 * to {@code /dev/null} opened the device. Now each is refused {@code IO} at once, naming what is
 * there, and left as it is; removed, the next claim makes a file and holds the folder.
 */
class SnapshotFolderLockFileKindTest {
  @TempDir Path tmp;

  @Test
  void aPipeALinkOrAFolderAsTheLockFile_isRefusedNamingIt_andLeft() throws Exception {
    Path elsewhere = Files.writeString(tmp.resolve("elsewhere.txt"), "not a lock file");
    List<Kind> kinds =
        List.of(
            new Kind("a named pipe", lock -> NamedPipes.make(lock)),
            new Kind(
                "a symbolic link to " + elsewhere,
                lock -> Files.createSymbolicLink(lock, elsewhere)),
            new Kind(
                "a symbolic link to /dev/null",
                lock -> Files.createSymbolicLink(lock, Path.of("/dev/null"))),
            new Kind("a folder", Files::createDirectory));
    for (Kind k : kinds) {
      Path dir = Files.createDirectories(tmp.resolve("snaps-" + kinds.indexOf(k)));
      Path lock = dir.resolve(SnapshotFolderClaim.LOCK_FILE);
      k.put().at(lock);
      FileSnapshotStore store = new FileSnapshotStore(dir);
      SnapshotException e =
          Assertions.assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> catchThrowableOfType(SnapshotException.class, store::claim));
      assertThat(e).as("claim with the lock file %s", k.words()).isNotNull();
      assertThat(e.reason()).isEqualTo(SnapshotException.Reason.IO);
      assertThat(e.detail())
          .isEqualTo(
              "cannot lock snapshot folder "
                  + dir
                  + ": its lock file "
                  + lock
                  + " is "
                  + k.words()
                  + ", and a lock file must be a regular file, for it is opened read-write to be"
                  + " locked; it is left as it is. Remove it, and the next claim makes a file"
                  + " there");
      assertThat(Files.exists(lock, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isTrue();
      Files.delete(lock);
      try (SnapshotFolderClaim claim = store.claim()) {
        assertThat(Files.isRegularFile(lock, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(claim.intact()).isTrue();
      }
    }
    assertThat(elsewhere).hasContent("not a lock file");
  }

  /** How a test puts something other than a file at the lock file's name. */
  @FunctionalInterface
  private interface Put {
    void at(Path lock) throws Exception;
  }

  private record Kind(String words, Put put) {}
}
