package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OwnerOnly#keepMode} on a file system that answers {@code chmod} with an error (FAT, some
 * CIFS and FUSE mounts, which still report POSIX permissions to the JDK): the mode is left as the
 * file was made, and nothing is thrown, so an archive or a snapshot save there goes on. A real such
 * mount cannot be made in a test; the setter is faked with the error the JDK gives for {@code
 * EPERM}. Only a file that would then grant more than the one it replaces (one left or put at its
 * name, wider) is refused, since renamed into place it would show the records to whoever the
 * operator kept them from.
 */
class OwnerOnlyKeepModeTest {
  @TempDir Path dir;

  @Test
  void aModeTheFileSystemRefusesToSet_isLeft_andNothingIsThrown() throws Exception {
    assumeThat(dir.getFileSystem().supportedFileAttributeViews()).contains("posix");
    Path from = Files.createFile(dir.resolve("from"));
    Files.setPosixFilePermissions(from, PosixFilePermissions.fromString("rw-r-----"));
    Path to = Files.createFile(dir.resolve("to"), OwnerOnly.file(dir.resolve("to")));

    OwnerOnly.keepMode(
        from,
        to,
        (file, mode) -> {
          throw new FileSystemException(file.toString(), null, "Operation not permitted");
        });

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(to)))
        .isEqualTo("rw-------");
  }

  @Test
  void aModeThatCanBeSet_isKept() throws Exception {
    assumeThat(dir.getFileSystem().supportedFileAttributeViews()).contains("posix");
    Path from = Files.createFile(dir.resolve("from"));
    Files.setPosixFilePermissions(from, PosixFilePermissions.fromString("rw-r-----"));
    Path to = Files.createFile(dir.resolve("to"), OwnerOnly.file(dir.resolve("to")));

    OwnerOnly.keepMode(from, to);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(to)))
        .isEqualTo("rw-r-----");
  }

  @Test
  void aFileWiderThanTheOneItReplaces_whoseModeCannotBeSet_isRefused() throws Exception {
    assumeThat(dir.getFileSystem().supportedFileAttributeViews()).contains("posix");
    Path from = Files.createFile(dir.resolve("from"));
    Files.setPosixFilePermissions(from, PosixFilePermissions.fromString("rw-------"));
    Path to = Files.createFile(dir.resolve("to"));
    Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(() -> OwnerOnly.keepMode(from, to, OwnerOnlyKeepModeTest::refused))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("rw-r--r--");
  }

  /** The setter of a file system that answers {@code chmod} with {@code EPERM}. */
  private static void refused(Path file, Set<PosixFilePermission> mode) throws IOException {
    throw new FileSystemException(file.toString(), null, "Operation not permitted");
  }
}
