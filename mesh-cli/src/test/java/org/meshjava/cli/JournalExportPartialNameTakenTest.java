package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An export whose partial file's name ({@link UserFile#partialOf}: this process's id and its next
 * number) is already taken beside {@code --out}. A process killed by SIGKILL leaves such a file,
 * and where every run has the same process id (a container's first process is PID 1, and its
 * numbering starts again at 1) the next export to that {@code --out} is given the same name; the
 * cleanup keeps it, for the process it names is alive (this one). The export writes its copy all
 * the same, as a key or grant write does, and the leftover goes.
 */
class JournalExportPartialNameTakenTest {
  @TempDir Path dir;

  @Test
  void aLeftoverUnderTheNameThisExportIsGiven_isReplaced_andTheExportWritten() throws Exception {
    Path journal = UserFileTest.oneRecordJournal(dir);
    Path out = dir.resolve("out").resolve("copy.journal");
    Files.createDirectories(out.getParent());
    // The name given before the export's, and the next few after it (another test in this JVM may
    // take a number in between): what a killed run with this process id left.
    String given = UserFile.partialOf(out).getFileName().toString();
    String stem = given.substring(0, given.lastIndexOf('-') + 1);
    long next = Long.parseLong(given.substring(given.lastIndexOf('-') + 1)) + 1;
    for (long n = next; n < next + 8; n++) {
      Files.writeString(out.resolveSibling(stem + n), "{\"killed\":");
    }

    MeshCommandTest.Run r =
        MeshCommandTest.mesh("journal", "export", journal.toString(), "--out", out.toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(journal));
    try (Stream<Path> left = Files.list(out.getParent())) {
      assertThat(left.filter(f -> f.getFileName().toString().equals(stem + next))).isEmpty();
    }
  }
}
