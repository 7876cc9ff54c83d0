package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import org.junit.jupiter.api.Test;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * {@code mesh journal archive} takes only a journal file, but its {@code --help} described {@code
 * --snapshots} as for {@code journal verify}, whose journal may be a database ("for a database, its
 * table mesh_journal_snapshot"), and said of {@code --steward} and {@code --key} only what they
 * are, not what they are for.
 */
class JournalArchiveHelpTest {
  @Test
  void archiveHelp_speaksOfAFileOnly_andSaysWhatTheStewardIsFor() {
    Run r = mesh("journal", "archive", "--help");
    assertThat(r.code()).isZero();
    String help = r.out().replaceAll("\\s+", " ");
    assertThat(help)
        .doesNotContain("database")
        .doesNotContain("mesh_journal_snapshot")
        .contains("--snapshots=DIR The steward's snapshot directory, whose latest snapshot says")
        .contains("whose signature the snapshot must carry");
  }

  @Test
  void verifyHelp_stillSaysWhereADatabasesSnapshotsAre() {
    Run r = mesh("journal", "verify", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out().replaceAll("\\s+", " ")).contains("its table mesh_journal_snapshot");
  }
}
