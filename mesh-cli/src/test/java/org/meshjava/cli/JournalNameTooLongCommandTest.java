package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * A journal file named longer than the 229 bytes an archive leaves room for (SPEC.md 60.8), as an
 * earlier version let one be named: the commands that only read it (inspect, verify, export) read
 * it, for a long name harms no read, and {@code export --out} writes it under a name that fits;
 * {@code import}, which opens the journal to hold its lock through the copy and so settles what a
 * killed archive left beside it under names that add to the journal's, is refused as every opening
 * is, {@code NAME_TOO_LONG}, before any database is reached, with the one step that lets it go on:
 * rename the file. Nothing is written.
 */
class JournalNameTooLongCommandTest {
  @TempDir Path tmp;

  @Test
  void readingCommandsReadIt_andImportIsRefusedSayingRenameIt_leavingItAsItIs() throws Exception {
    Path journal = tmp.resolve("k".repeat(232) + ".journal");
    Path written = tmp.resolve("short.journal");
    ExpiredGrantJournal.writtenAt(written);
    Files.move(written, journal);
    byte[] before = Files.readAllBytes(journal);
    Path out = tmp.resolve("out.journal");
    // verify reads it as inspect does; export writes it under a name that fits.
    for (List<String> args :
        List.of(
            List.of("journal", "verify", journal.toString()),
            List.of("journal", "export", journal.toString(), "--out", out.toString()))) {
      Run r = mesh(args.toArray(String[]::new));
      assertThat(r.code()).as(args + ": " + r.err()).isZero();
    }
    assertThat(out).isNotEmptyFile();

    Run imported =
        mesh("journal", "import", journal.toString(), "--to", "postgresql://127.0.0.1:1/none");
    assertThat(imported.code()).isEqualTo(1);
    assertThat(imported.err())
        .contains("cannot open " + journal)
        .contains("is 240 bytes long, and a journal's name may be at most 229 bytes")
        .contains("rename the journal file")
        .doesNotContain("127.0.0.1");
    assertThat(Files.readAllBytes(journal)).isEqualTo(before);
    try (var left = Files.list(tmp)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder(journal.getFileName().toString(), "out.journal");
    }
  }
}
