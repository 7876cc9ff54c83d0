package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OwnerOnly#writeAfresh} where a file is already at the name (a save or an archive an older
 * version made with the umask, killed before its rename, or a file put there): what is written is
 * owner-only whatever that file's mode, since it is renamed into place as the journal's own, and a
 * first snapshot has no earlier one whose mode it takes instead.
 */
class OwnerOnlyWriteAfreshTest {
  @TempDir Path dir;

  @Test
  void aWorldReadableFileAtTheName_isWrittenOwnerOnly() throws Exception {
    assumeThat(dir.getFileSystem().supportedFileAttributeViews()).contains("posix");
    Path tmp = Files.writeString(dir.resolve("snapshot.tmp"), "left by a killed save");
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));

    try (FileChannel ch = OwnerOnly.writeAfresh(tmp)) {
      ch.write(ByteBuffer.wrap("new".getBytes(StandardCharsets.UTF_8)));
    }

    assertThat(Files.readString(tmp)).isEqualTo("new");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp)))
        .isEqualTo("rw-------");
  }
}
