package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.journal.FileJournal;

/**
 * {@code mesh journal inspect} takes no lock, as verify and export do, so an archive may move the
 * journal's files while it reads them (SPEC.md 60.8, "Verifying"): here while it reads the
 * segments, having looked at where the live file began, which then begins later. The journal is
 * whole throughout, so inspect must print it whole, each record once: it reads the files again when
 * a read failed while they changed, and prints only the records the failed read had not.
 */
class JournalInspectDuringArchiveTest {
  @TempDir Path tmp;

  @Test
  void anArchiveWhileInspectReadsTheSegments_printsEveryRecordOnce() throws Exception {
    History h = ArchiveDuringCommand.archivedOnce(tmp);
    long first = FileJournal.firstSequence(h.journal);
    assertThat(first).isPositive();
    ArchiveDuringCommand run =
        ArchiveDuringCommand.run(h.journal, "checked 3 records", "inspect", h.journal.toString());

    assertThat(run.archive().code()).as(run.archive().err()).isZero();
    assertThat(FileJournal.firstSequence(h.journal)).isGreaterThan(first);
    assertThat(run.command().code()).as(run.command().err()).isZero();
    // What an inspect of the journal as it is now prints: every record once, then the spend.
    Run after = mesh("journal", "inspect", h.journal.toString());
    assertThat(after.code()).as(after.err()).isZero();
    List<String> records = after.out().lines().filter(l -> l.startsWith("#")).toList();
    assertThat(records).hasSizeGreaterThan((int) first);
    assertThat(run.command().out()).isEqualTo(after.out());
  }
}
