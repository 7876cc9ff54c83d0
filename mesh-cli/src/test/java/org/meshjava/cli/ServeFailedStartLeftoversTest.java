package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.journal.FileSnapshotStore;

/**
 * A {@code mesh serve} that fails at start, on a journal that was there before or a new one, leaves
 * no snapshot folder it made behind it, nor the folders it made to hold a configured one; and it
 * leaves a port file that was there as it was.
 */
class ServeFailedStartLeftoversTest {
  @TempDir Path tmp;

  @Test
  void aFailedStartOnAnEmptyExistingJournal_removesTheSnapshotFolderItMade() throws Exception {
    Path journal = Files.createFile(tmp.resolve("existing.journal"));
    Path folder = FileSnapshotStore.beside(journal).directory();
    Run r = CliErrorsTest.serveOnATakenPort(journal);
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(journal).exists();
    assertThat(folder).doesNotExist();
  }

  /**
   * Regression: a configured snapshot folder under folders that were missing was made with them,
   * and a failed start removed only the snapshot folder, leaving its parents behind.
   */
  @Test
  void aFailedStart_withAConfiguredFolderUnderMissingFolders_removesThemAll() throws Exception {
    Path journal = Files.createFile(tmp.resolve("existing.journal"));
    assertThat(failedStartWithSnapshotsUnderMissingFolders(journal)).doesNotExist();
  }

  /**
   * Regression: for a new journal, the journal's own removal of its new snapshot folder took the
   * claim's lock file with it, so the claim no longer knew the folder for its own and left the
   * folders made to hold it.
   */
  @Test
  void aFailedStartOnANewJournal_withAConfiguredFolderUnderMissingFolders_removesThemAll()
      throws Exception {
    Path journal = tmp.resolve("new.journal");
    Path top = failedStartWithSnapshotsUnderMissingFolders(journal);
    assertThat(journal).doesNotExist();
    assertThat(top).doesNotExist();
  }

  /**
   * Serves {@code journal} on a port in use, with its snapshot folder configured as {@code
   * a/b/snaps} where {@code a} is missing, and returns {@code a} once the start has failed.
   */
  private Path failedStartWithSnapshotsUnderMissingFolders(Path journal) throws Exception {
    Path top = tmp.resolve("a");
    Path snaps = top.resolve("b").resolve("snaps");
    Path config = tmp.resolve("mesh.json");
    // No MiniLM: the start fails at its port, and loading the model first was most of its time.
    Files.writeString(
        config,
        "{\"default_decision_engine\": false, \"snapshots\": {\"dir\": \"" + snaps + "\"}}");
    Run r = CliErrorsTest.serveOnATakenPort(journal, "--config", config.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains("cannot listen");
    return top;
  }

  /**
   * The port file's rule (README, {@code --help}): a failed start neither writes nor removes it,
   * since it may be a running steward's, whose scripts would lose it; a script deletes it first.
   */
  @Test
  void aFailedStart_leavesAnEarlierPortFileAsItWas() throws Exception {
    Path portFile = Files.writeString(tmp.resolve("steward.port"), "40123\n");
    Run r =
        CliErrorsTest.serveOnATakenPort(
            tmp.resolve("steward.journal"), "--port-file", portFile.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(portFile).hasContent("40123");
  }
}
