package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * An {@link Error} in one step of {@code mesh serve}'s cleanup (out of memory again, cleaning up
 * after running out of memory) neither hides the failure that stopped the start nor skips the steps
 * after it: the new journal is still removed, the snapshot folder let go, and the first failure is
 * the one said.
 */
class ServeCleanupErrorTest {
  @TempDir Path tmp;

  /**
   * {@code mesh serve} on a port in use, or a free one where {@code starting} is to fail the start
   * (the steward starts after the bind), with an Error thrown before each step named in {@code at}.
   */
  static Run serveFailingCleanUp(Path journal, boolean portTaken, Runnable starting, Set<String> at)
      throws Exception {
    return ScopedValue.where(ServeCommand.STEWARD_STARTING, starting)
        .where(
            ServeCommand.CLEANING_UP,
            step -> {
              if (at.contains(step)) {
                throw new StackOverflowError("cleaning up " + step);
              }
            })
        .call(
            () ->
                portTaken
                    ? CliErrorsTest.serveOnATakenPort(journal)
                    : CliErrorsTest.serveOnAFreePort(journal));
  }

  /**
   * Regression: an Error closing the journal took the place of the start's own and skipped the
   * removal of the journal the start had created, so the next start took it for an earlier one's.
   */
  @Test
  void anErrorClosingTheJournal_keepsTheFirstFailure_andStillRemovesTheNewJournal()
      throws Exception {
    Path journal = tmp.resolve("new.journal");
    Run r =
        serveFailingCleanUp(
            journal,
            false,
            () -> {
              throw new OutOfMemoryError("Java heap space");
            },
            Set.of("journal"));

    assertThat(r.code()).as(r.err()).isEqualTo(Mesh.EXIT_RESOURCE);
    assertThat(r.err()).contains("out of memory (Java heap space)").doesNotContain("cleaning up");
    assertThat(journal).doesNotExist();
    Run next = CliErrorsTest.serveOnATakenPort(journal);
    assertThat(next.err()).contains("mesh serve: cannot listen");
  }

  /**
   * Regression: an Error letting the snapshot folder go after a refused start (a port in use) was
   * said as a bug in mesh (exit 70) instead of the refusal, which says what to do.
   */
  @Test
  void anErrorLettingTheSnapshotFolderGo_keepsTheRefusal() throws Exception {
    Path journal = tmp.resolve("new.journal");
    Run r = serveFailingCleanUp(journal, true, () -> {}, Set.of("snapshot folder claim"));

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("mesh serve: cannot listen").doesNotContain("internal error");
  }
}
