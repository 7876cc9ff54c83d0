package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;

/**
 * A journal archived without keeping its segments, served on, then edited in a record its latest
 * snapshot covers that the live file still holds: refused by a start and by {@code mesh journal
 * verify} alike (SPEC.md §60.8, "The records a snapshot covers").
 */
class ArchivedJournalLiveEditTest {
  @TempDir Path dir;

  /**
   * Three granted serves, archived, two more served on (the closing snapshot covering all), and the
   * segments removed.
   */
  private History archivedWithoutSegments() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later");
    h.removeSegments();
    return h;
  }

  /**
   * Regression: the check of the covered records read from record 0, failed {@code ARCHIVED} on the
   * missing segments and skipped the live file's records with them, so {@code mesh serve} started
   * on the edit, and verify passed it saying those records "were not checked".
   */
  @Test
  void aCoveredRecordEditedInTheLiveFile_withTheSegmentsGone_isRefusedByStartAndVerify()
      throws Exception {
    History h = archivedWithoutSegments();
    h.editLine(h.nth("Debited", 0), FileJournalTamperingTest::raiseEstimate);

    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.out()).isEqualTo(1);
    assertThat(verify.err()).contains("records do not form one chain");
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    assertThat(start.err())
        .doesNotContain("cannot listen")
        .contains("cannot be replayed")
        .contains("records do not form one chain");
  }

  /**
   * Regression: verify refused a live file cut behind its snapshot, with the segments gone, only as
   * "position 19 ... is beyond the end of journal (17 records)", where a start names the reason
   * ({@code AHEAD_OF_JOURNAL}) and what likely caused it.
   */
  @Test
  void theLiveFileCutBehindTheSnapshot_withTheSegmentsGone_isRefusedAheadOfJournalByBoth()
      throws Exception {
    History h = archivedWithoutSegments();
    List<String> lines = h.lines();
    // The closing snapshot covers every record.
    long covered = FileJournal.firstSequence(h.journal) + lines.size();
    h.write(lines.subList(0, lines.size() - 2));

    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.out()).isEqualTo(1);
    assertThat(verify.err())
        .contains("(AHEAD_OF_JOURNAL, at record " + covered + ")")
        .contains("records were cut from the journal's end");
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    assertThat(start.err()).doesNotContain("cannot listen").contains("(ahead_of_journal)");
  }
}
