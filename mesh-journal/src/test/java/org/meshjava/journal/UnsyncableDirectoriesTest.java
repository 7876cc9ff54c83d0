package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which failed directory syncs say the file system cannot sync a directory (SPEC.md §60.2), and the
 * one warning per folder that says its entries go unforced.
 */
class UnsyncableDirectoriesTest {
  private final List<String> warnings = new ArrayList<>();
  private final UnsyncableDirectories directories = new UnsyncableDirectories(warnings::add);

  @Test
  void einvalAndEbadf_areTheFileSystemsInability_byTheirExactText() {
    assertThat(UnsyncableDirectories.unsyncable(new IOException("Invalid argument")))
        .contains("EINVAL");
    assertThat(UnsyncableDirectories.unsyncable(new IOException("Bad file descriptor")))
        .contains("EBADF");
  }

  @Test
  void everyOtherFailure_staysAFailure() {
    for (String text :
        new String[] {
          "Input/output error",
          "No space left on device",
          "invalid argument",
          "Invalid argument: something else",
          "Argument invalide",
          ""
        }) {
      assertThat(UnsyncableDirectories.unsyncable(new IOException(text))).as(text).isEmpty();
      assertThat(directories.cannotSync(Path.of("/x"), new IOException(text))).as(text).isFalse();
    }
    assertThat(UnsyncableDirectories.unsyncable(new IOException())).isEmpty();
    assertThat(warnings).isEmpty();
  }

  @Test
  void aFolderThatCannotSync_isWarnedAboutOnce_andEachOtherFolderOnceToo() {
    Path a = Path.of("/mnt/smb/journals");
    Path b = Path.of("/mnt/fuse/snaps");
    assertThat(directories.cannotSync(a, new IOException("Invalid argument"))).isTrue();
    assertThat(directories.cannotSync(a, new IOException("Invalid argument"))).isTrue();
    assertThat(directories.cannotSync(a, new IOException("Bad file descriptor"))).isTrue();
    // The same folder by another spelling of its name.
    assertThat(
            directories.cannotSync(
                Path.of("/mnt/smb/./journals"), new IOException("Invalid argument")))
        .isTrue();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.getFirst())
        .contains("the file system of " + a + " cannot sync a directory (fsync: EINVAL")
        .contains("a power cut may lose them");
    assertThat(directories.cannotSync(b, new IOException("Bad file descriptor"))).isTrue();
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(1)).contains(b + " cannot sync a directory (fsync: EBADF");
  }
}
