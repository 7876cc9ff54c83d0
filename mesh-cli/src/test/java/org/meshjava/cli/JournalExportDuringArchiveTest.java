package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
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
    History h = ArchiveDuringCommand.archivedOnce(tmp);
    long first = FileJournal.firstSequence(h.journal);
    assertThat(first).isPositive();
    long records = first + lines(h.journal);
    Path out = tmp.resolve("copy.journal");
    ArchiveDuringCommand run =
        ArchiveDuringCommand.run(
            h.journal, "checked 1 record", "export", h.journal.toString(), "--out", out.toString());

    assertThat(run.archive().code()).as(run.archive().err()).isZero();
    assertThat(FileJournal.firstSequence(h.journal)).isGreaterThan(first);
    assertThat(run.command().code()).as(run.command().err()).isZero();
    assertThat(lines(out)).isEqualTo(records);
    assertThat(mesh("journal", "verify", out.toString()).code()).isZero();
  }

  private static long lines(Path file) throws Exception {
    try (Stream<String> s = Files.lines(file)) {
      return s.count();
    }
  }
}
