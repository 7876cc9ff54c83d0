package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * A journal path with a typo in it must not start a steward on a new, empty journal unseen: every
 * grant's spend would start again from zero. A missing folder is refused; a new journal in an
 * existing folder starts, and says so in one line.
 */
class ServeNewJournalTest {
  @TempDir Path tmp;

  /**
   * Regression: {@code mesh serve --journal /var/lib/mesh/jounral/steward.journal} created the
   * mistyped folder and served from a new journal, with nothing said.
   */
  @Test
  void serve_onAJournalInAMissingFolder_isRefusedNamingTheFolder_andMakesNothing()
      throws Exception {
    Path folder = tmp.resolve("jounral");
    Path journal = folder.resolve("steward.journal");
    // On a port already taken: a start that got past the journal fails at once instead of serving.
    Run r = CliErrorsTest.serveOnATakenPort(journal);
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh serve: --journal " + journal + ": its folder " + folder + " does not exist")
        .contains("(mkdir -p " + folder + ")");
    assertThat(r.out()).as("nothing started").isEmpty();
    assertThat(folder).doesNotExist();
  }

  /**
   * Regression: a journal path under a file ({@code notes.txt/steward.journal}) was refused as if
   * its folder were missing, advising {@code mkdir -p notes.txt}, which fails: the file is there.
   */
  @Test
  void serve_onAJournalUnderAFile_saysItIsNoFolder_andAdvisesNoMkdir() throws Exception {
    Path file = Files.writeString(tmp.resolve("notes.txt"), "x");
    Path journal = file.resolve("steward.journal");
    Run r = CliErrorsTest.serveOnATakenPort(journal);
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err())
        .contains("mesh serve: --journal " + journal + ": " + file + " is a file, not a folder")
        .doesNotContain("mkdir")
        .doesNotContain("does not exist");
    assertThat(Files.readString(file)).isEqualTo("x");
  }

  @Test
  void serve_onANewJournal_saysSoOnStderr_andNotOnTheNextStart() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    String[] args =
        InProcessServe.withoutMiniLm(
            tmp, "--journal", journal.toString(), "--meter", "estimator", "--port", "0");
    InProcessServe first = InProcessServe.start(tmp.resolve("port1"), args);
    first.close();
    assertThat(first.run().err())
        .containsOnlyOnce("starting a new journal at " + journal.toAbsolutePath() + "\n");
    assertThat(first.run().out()).doesNotContain("starting a new journal");
    assertThat(journal).exists();

    InProcessServe second = InProcessServe.start(tmp.resolve("port2"), args);
    second.close();
    assertThat(second.run().err()).doesNotContain("starting a new journal");
    assertThat(Files.isRegularFile(journal)).isTrue();
  }
}
