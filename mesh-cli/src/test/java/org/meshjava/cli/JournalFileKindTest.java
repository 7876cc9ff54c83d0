package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: a journal command named a folder, a FIFO or a device said "no journal at X", as for a
 * file that is not there, though X is there: the user was left to wonder. It now says what X is.
 */
class JournalFileKindTest {
  @TempDir Path tmp;

  /** The commands that read a journal file whole: inspect, verify, and export to {@code out}. */
  static List<List<String>> readingCommands(Path journal, Path out) {
    return List.of(
        List.of("journal", "inspect", journal.toString()),
        List.of("journal", "verify", journal.toString()),
        List.of("journal", "export", journal.toString(), "--out", out.toString()));
  }

  private void assertRefused(Path journal, String why) {
    Path out = tmp.resolve("out.journal");
    List<List<String>> commands = new ArrayList<>(readingCommands(journal, out));
    // Refused before any database is reached (none listens here): an import locks its file and
    // may read it twice, neither of which a pipe allows (SPEC.md 60.7, "Lease").
    commands.add(
        List.of("journal", "import", journal.toString(), "--to", "postgresql://127.0.0.1:1/none"));
    for (List<String> args : commands) {
      Run r = mesh(args.toArray(String[]::new));
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.err().strip())
          .isEqualTo(
              "mesh " + args.get(0) + " " + args.get(1) + ": no journal at " + journal + why);
      assertThat(out).doesNotExist();
    }
  }

  @Test
  void aFolder_isSaidToBeOne() throws Exception {
    assertRefused(Files.createDirectory(tmp.resolve("d")), ": it is a folder");
  }

  @Test
  void aFifo_isSaidToBeNoRegularFile_andIsNotWaitedFor() throws Exception {
    assumeTrue(!System.getProperty("os.name", "").startsWith("Windows"), "FIFOs are POSIX");
    Path fifo = tmp.resolve("fifo");
    Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assumeTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "mkfifo is available");
    assertRefused(fifo, ": it is not a regular file (a FIFO or a device is no journal)");
  }

  @Test
  void aMissingFile_isSaidToBeMissing_asBefore() {
    assertRefused(tmp.resolve("none"), "");
  }
}
