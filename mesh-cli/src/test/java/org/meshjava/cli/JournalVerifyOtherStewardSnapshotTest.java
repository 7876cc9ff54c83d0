package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;

/**
 * A journal whose latest snapshot was replaced by another steward's (a snapshot folder shared or
 * copied) is refused by {@code mesh journal verify} with the reason a start gives, {@code
 * OTHER_STEWARD} (SPEC.md §60.8), not as a signature or record that fails when checked under the
 * snapshot's steward's key. The slow {@link FileJournalTamperingTest} holds the first case among
 * its edits; these run in the default suite, with the journal whole and with its first records
 * archived into segments.
 */
class JournalVerifyOtherStewardSnapshotTest {
  @TempDir Path dir;

  private static void assertOtherStewardNamed(History h) throws Exception {
    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.err()).isEqualTo(1);
    assertThat(verify.err())
        .as(verify.err())
        .containsIgnoringCase("OTHER_STEWARD")
        .doesNotContainIgnoringCase("bad_signature");
    Run start = FileJournalTamperingTest.serveOnATakenPort(h);
    assertThat(start.err())
        .as(start.err())
        .containsIgnoringCase("OTHER_STEWARD")
        .doesNotContain("cannot listen");
  }

  @Test
  void verify_ofAJournalWhoseLatestSnapshotIsAnotherStewards_namesOtherSteward_asAStartDoes()
      throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    History other = new History(dir, SigningKey.generate(), "other").serve(3, "other");
    h.replaceLatestSnapshot(other.latestSnapshot());
    assertOtherStewardNamed(h);
  }

  @Test
  void verify_ofAnArchivedJournalWhoseLatestSnapshotIsAnotherStewards_namesOtherSteward()
      throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted").archive();
    h.serve(2, "later");
    History other = new History(dir, SigningKey.generate(), "other").serve(3, "other");
    h.replaceLatestSnapshot(other.latestSnapshot());
    assertOtherStewardNamed(h);
  }

  /**
   * Regression: with the segments gone, only the snapshot named a steward, and verify took it at
   * its word: the live file then failed to follow it ("journal record 11: does not follow position
   * 11 ...; it is not in this journal's history", POSITION_MISMATCH), while a start, which knows
   * its key, refused the snapshot as OTHER_STEWARD. The live file's checkpoints now name the
   * steward.
   */
  @Test
  void verify_ofAnArchivedJournalWithoutSegments_whoseLatestSnapshotIsAnotherStewards_namesIt()
      throws Exception {
    History h = History.archivedWithoutSegments(dir);
    History other = new History(dir, SigningKey.generate(), "other").serve(3, "other");
    h.replaceLatestSnapshot(other.latestSnapshot());
    assertOtherStewardNamed(h);
    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.err()).contains("the live file's checkpoints name");
  }
}
