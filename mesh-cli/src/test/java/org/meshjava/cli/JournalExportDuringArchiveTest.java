package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;

/**
 * {@code mesh journal export} takes no lock, as verify does, so an archive may move the journal's
 * files while it copies them (SPEC.md 60.8, "Verifying"): here while it reads the segments, having
 * looked at where the live file began, which then begins later. The journal is whole throughout, so
 * the export must write it whole; it reads the files again when a read failed while they changed.
 * The archive runs from its progress line for the first record.
 */
class JournalExportDuringArchiveTest {
  @TempDir Path tmp;

  @Test
  void anArchiveWhileExportReadsTheSegments_doesNotFailIt() throws Exception {
    History h = new History(tmp, SigningKey.generate(), "steward").serve(6, "granted");
    assertThat(mesh("journal", "archive", h.journal.toString()).code()).isZero();
    h.serve(6, "granted");
    long first = FileJournal.firstSequence(h.journal);
    assertThat(first).isPositive();
    long records = first + lines(h.journal);
    Path out = tmp.resolve("copy.journal");
    Run[] archive = {null};
    StringWriter err =
        new StringWriter() {
          @Override
          public void write(String s, int off, int len) {
            super.write(s, off, len);
            if (archive[0] == null && toString().contains("checked 1 record")) {
              archive[0] = mesh("journal", "archive", h.journal.toString());
            }
          }
        };
    StringWriter stdout = new StringWriter();
    int code =
        Mesh.run(
            new PrintWriter(stdout, true),
            new PrintWriter(err, true),
            "journal",
            "export",
            h.journal.toString(),
            "--out",
            out.toString(),
            "--progress-every",
            "1");

    assertThat(archive[0]).isNotNull();
    assertThat(archive[0].code()).as(archive[0].err()).isZero();
    assertThat(FileJournal.firstSequence(h.journal)).isGreaterThan(first);
    assertThat(code).as(err.toString()).isZero();
    assertThat(lines(out)).isEqualTo(records);
    assertThat(mesh("journal", "verify", out.toString()).code()).isZero();
  }

  private static long lines(Path file) throws Exception {
    try (Stream<String> s = Files.lines(file)) {
      return s.count();
    }
  }
}
