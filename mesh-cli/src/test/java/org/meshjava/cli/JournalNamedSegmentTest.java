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
 * A journal name replaced by a symbolic link to one of that journal's own archived segments
 * (SPEC.md §60.8, "A segment is never a live journal"): {@code mesh serve} and {@code mesh journal
 * verify}, with or without {@code --snapshots}, refuse it alike, naming the segment, and leave it
 * as it was.
 */
class JournalNamedSegmentTest {
  @TempDir Path dir;

  /**
   * Regression: the start served from the segment's older history, with the later records' spends
   * rolled back, appending into the segment, and plain verify accepted it; only {@code verify
   * --snapshots} with the folder beside the name refused it.
   */
  @Test
  void aJournalNameLinkedToItsFirstSegment_isRefusedByServeAndVerifyAlike() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later");
    Path segment;
    try (Stream<Path> s = Files.list(h.segments())) {
      segment = s.sorted().findFirst().orElseThrow();
    }
    byte[] before = Files.readAllBytes(segment);
    Files.move(h.journal, dir.resolve("live.moved"));
    Files.createSymbolicLink(h.journal, segment);

    Run verify = mesh("journal", "verify", h.journal.toString());
    Run withSnapshots =
        mesh("journal", "verify", "--snapshots", h.snapshots.toString(), h.journal.toString());
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    for (Run r : new Run[] {verify, withSnapshots, start}) {
      assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
      assertThat(r.err())
          .doesNotContain("cannot listen")
          .contains(h.journal.toString())
          .contains(segment.toRealPath().toString())
          .contains("an archived segment of journal")
          .contains("name the live journal file");
    }
    assertThat(Files.readAllBytes(segment)).isEqualTo(before);
  }
}
