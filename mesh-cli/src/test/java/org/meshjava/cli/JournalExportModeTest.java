package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;

/**
 * {@code mesh journal export --out} writes a copy of the journal's records, which say who spent
 * what and when as the journal does, so the copy is its owner's alone as the journal is (SPEC.md
 * §78, "The operator's files"): it was made with the umask's mode, readable by every local user
 * under the usual 022, beside a journal made 0600.
 */
class JournalExportModeTest {
  @TempDir Path tmp;

  @Test
  void anExport_isTheOwnersAlone_whateverTheUmask() throws Exception {
    assumeTrue(tmp.getFileSystem().supportedFileAttributeViews().contains("posix"));
    Path probe = Files.createFile(tmp.resolve("probe"));
    assumeTrue(
        Files.getPosixFilePermissions(probe).contains(PosixFilePermission.OTHERS_READ),
        "a umask that already keeps others out shows nothing");
    Path journal = tmp.resolve("steward.journal");
    try (FileJournal j = FileJournal.open(journal)) {
      for (int i = 0; i < 3; i++) {
        j.append(new JournalEntry.Sealed(i, ContentId.ofBytes(new byte[] {(byte) i})));
      }
    }
    Path copy = tmp.resolve("copy.journal");

    MeshCommandTest.Run r = mesh("journal", "export", journal.toString(), "--out", copy.toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(copy)))
        .isEqualTo("rw-------");
  }
}
