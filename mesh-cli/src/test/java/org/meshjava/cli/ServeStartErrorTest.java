package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * An {@link Error} while the steward starts (out of memory as it replays its journal, a thread the
 * system would not start) fails {@code mesh serve} as any failed start does: the journal it opened
 * is closed, its lock let go, and a journal it created removed, so that the next start in the same
 * JVM (an embedder's, a test's) opens it.
 */
class ServeStartErrorTest {
  @TempDir Path tmp;

  /** {@code mesh serve} on {@code journal} (on a free port) with {@code thrown} as it starts. */
  static Run serveThrowing(Path journal, Throwable thrown) throws Exception {
    return ScopedValue.where(
            ServeCommand.STEWARD_STARTING,
            () -> {
              if (thrown instanceof Error e) {
                throw e;
              }
              throw (RuntimeException) thrown;
            })
        .call(() -> CliErrorsTest.serveOnAFreePort(journal));
  }

  /**
   * Regression: an Error escaped the command past the close that removes a new journal, so the file
   * stayed, and in a JVM that went on, locked: the next start took it for an earlier one's.
   */
  @Test
  void anErrorAsTheStewardStarts_onANewJournal_removesIt() throws Exception {
    Path journal = tmp.resolve("new.journal");
    Run r = serveThrowing(journal, new OutOfMemoryError("Java heap space"));

    assertThat(r.code()).as(r.err()).isNotZero();
    assertThat(journal).doesNotExist();
    // The next start gets past the journal to the port.
    Run next = CliErrorsTest.serveOnATakenPort(journal);
    assertThat(next.err()).contains("mesh serve: cannot listen");
  }

  @Test
  void anErrorAsTheStewardStarts_onAJournalThatWasThere_letsItsLockGo() throws Exception {
    Path journal = Files.createFile(tmp.resolve("existing.journal"));
    Run r = serveThrowing(journal, new StackOverflowError("deep"));

    // A stack overflow stays a bug: nothing mesh reads is deep enough to need one.
    assertThat(r.code()).as(r.err()).isEqualTo(Mesh.EXIT_INTERNAL);
    assertThat(r.err()).contains("internal error (a bug in mesh");
    assertThat(journal).exists();
    Run next = CliErrorsTest.serveOnATakenPort(journal);
    assertThat(next.err()).doesNotContain("locked").contains("mesh serve: cannot listen");
  }
}
