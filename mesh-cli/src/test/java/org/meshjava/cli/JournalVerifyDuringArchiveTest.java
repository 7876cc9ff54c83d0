package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.journal.FileJournal;

/**
 * {@code mesh journal verify} takes no lock, so an archive may move the journal's files while it
 * reads them (SPEC.md 60.8, "Verifying"): here while it reads the segments of an archived journal,
 * the archive run from verify's progress line for its first record. Each state is whole, so verify
 * must pass. This path holds the live file it opened first, so it passes without a second run; the
 * window a second run is for (a journal with nothing archived when verify first looked at it, its
 * records then read from a file that an archive has cut) was reached here by an archive run while
 * verify read its {@code --key}, given as a FIFO, a second time. verify now reads the key once
 * ({@code JournalKeyReadOnceTest}), so nothing at the command line waits in that window, and {@code
 * UnlockedReadAcrossArchiveTest} (mesh-journal) drives it.
 */
class JournalVerifyDuringArchiveTest {
  @TempDir Path tmp;

  @Test
  void anArchiveBetweenVerifysReads_doesNotFailIt() throws Exception {
    History h = ArchiveDuringCommand.archivedOnce(tmp);
    long first = FileJournal.firstSequence(h.journal);
    assertThat(first).isPositive();
    ArchiveDuringCommand run =
        ArchiveDuringCommand.run(
            h.journal,
            "checked 1 record",
            "verify",
            h.journal.toString(),
            "--key",
            h.keyFile.toString());

    assertThat(run.archive().code()).as(run.archive().err()).isZero();
    assertThat(FileJournal.firstSequence(h.journal)).isGreaterThan(first);
    assertThat(run.command().code()).as(run.command().err()).isZero();
    assertThat(run.command().out()).contains("form one chain");
  }
}
