package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.internal.JournalSegments;
import org.meshjava.steward.Steward;

/**
 * {@code mesh journal archive} on a journal whose file has a second name (a hard link) is refused
 * in words that say what is wrong and what to do, not as a failing disk; nothing is written, and
 * with the other name removed the archive goes on (SPEC.md 60.8).
 */
class JournalArchiveHardLinkCommandTest {
  @TempDir Path tmp;

  /** Two granted serves, and a snapshot covering them that its steward saved at close. */
  private Path journalWithSnapshot() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    ExpiredGrantJournal served = ExpiredGrantJournal.writtenAt(journal);
    Steward.builder(served.stewardKey)
        .journal(FileJournal.open(journal))
        .meter(new EstimatorMeter())
        .backend(ReferenceSteward.engine())
        .snapshots(FileSnapshotStore.beside(journal))
        .build()
        .close();
    return journal;
  }

  @Test
  void archive_ofAHardLinkedJournal_isRefused_namingTheLinks_andWhatToDo() throws Exception {
    Path journal = journalWithSnapshot();
    Path other = Files.createDirectory(tmp.resolve("elsewhere")).resolve("linked.journal");
    Files.createLink(other, journal);
    byte[] before = Files.readAllBytes(journal);

    Run refused = mesh("journal", "archive", journal.toString());
    assertThat(refused.code()).isEqualTo(1);
    assertThat(refused.err())
        .contains("cannot archive " + journal)
        .contains("2 names (hard links)")
        .contains("Remove the other names (find -samefile " + journal + ")")
        .contains("symbolic link")
        .doesNotContain("held by");
    assertThat(Files.readAllBytes(journal)).isEqualTo(before);
    assertThat(JournalSegments.directory(journal)).doesNotExist();

    Files.delete(other);
    Run archived = mesh("journal", "archive", journal.toString());
    assertThat(archived.code()).as(archived.err()).isZero();
  }
}
