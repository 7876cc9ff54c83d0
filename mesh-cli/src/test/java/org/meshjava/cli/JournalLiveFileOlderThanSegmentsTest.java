package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;

/**
 * A hard link of a journal's archived segment put in its live file's place, with the snapshots
 * removed (SPEC.md §60.8, "The live file follows its segments"): {@code mesh serve} and {@code mesh
 * journal verify} refuse it alike, naming both files, and leave it as it was.
 */
class JournalLiveFileOlderThanSegmentsTest {
  @TempDir Path dir;

  /**
   * Regression: both accepted it, and the start replayed the segment's records alone, so every
   * spend recorded after them came back.
   */
  @Test
  void aSegmentHardLinkedOverTheLiveFile_isRefusedByServeAndVerifyAlike() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later");
    Path segment;
    try (Stream<Path> s = Files.list(h.segments())) {
      segment = s.sorted().findFirst().orElseThrow();
    }
    byte[] before = Files.readAllBytes(segment);
    h.removeSnapshots();
    Files.move(h.journal, dir.resolve("live.moved"));
    Files.createLink(h.journal, segment);

    refusedByVerifyAndServe(h, segment, "is older than the records archived from it");
    assertThat(Files.readAllBytes(segment)).isEqualTo(before);
  }

  /** {@code mesh journal verify} and {@code mesh serve} both exit 1 naming both files and why. */
  static void refusedByVerifyAndServe(History h, Path segment, String why) throws Exception {
    Run verify = mesh("journal", "verify", h.journal.toString());
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    for (Run r : new Run[] {verify, start}) {
      assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
      assertThat(r.err())
          .doesNotContain("cannot listen")
          .contains(h.journal.toString())
          .contains(segment.toString())
          .contains(why);
    }
  }
}
