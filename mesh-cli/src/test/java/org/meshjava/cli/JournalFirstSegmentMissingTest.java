package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.steward.Steward;

/**
 * A journal archived twice whose first segment was then removed, the later one kept (SPEC.md §60.8,
 * "Segments"): the records before the kept segment are absent, and said to be, by a start and by
 * {@code mesh journal verify}; with a snapshot covering them both go on, checking the kept
 * segment's links, and without one both refuse naming the records to put back.
 */
class JournalFirstSegmentMissingTest {
  @TempDir Path dir;

  /** The first record of the kept segment. */
  private long kept;

  /**
   * Three granted serves archived, two more archived, one more served (its closing snapshot
   * covering every record), then the first segment removed.
   */
  private History firstSegmentRemoved() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later").archive().serve(1, "last");
    List<Path> segments = segments(h);
    assertThat(segments).hasSize(2);
    Files.delete(segments.getFirst());
    kept = Long.parseLong(segments.getLast().getFileName().toString().replace(".jsonl", ""));
    return h;
  }

  private static List<Path> segments(History h) throws Exception {
    try (Stream<Path> s = Files.list(h.segments())) {
      return s.sorted().toList();
    }
  }

  /**
   * Regression: verify said records 0 to the live file's first were "archived without their
   * segments" and left the kept segment unchecked, and a start checked the live file only, so an
   * edit in the kept segment passed both.
   */
  @Test
  void aRecordEditedInTheKeptSegment_isRefusedByStartAndVerify() throws Exception {
    History h = firstSegmentRemoved();
    Path seg = segments(h).getFirst();
    List<String> l = new ArrayList<>(Files.readAllLines(seg));
    int i = debited(l);
    l.set(i, FileJournalTamperingTest.raiseEstimate(l.get(i)));
    Files.writeString(seg, String.join("\n", l) + "\n");

    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.out()).isEqualTo(1);
    assertThat(verify.err()).contains("records do not form one chain").contains(seg.toString());
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    assertThat(start.err())
        .doesNotContain("cannot listen")
        .contains("records do not form one chain")
        .contains(seg.toString());
  }

  private static int debited(List<String> lines) {
    for (int i = 1; i < lines.size(); i++) {
      if (lines.get(i).contains("\"type\":\"Debited\"")) {
        return i;
      }
    }
    throw new AssertionError("no Debited record in the kept segment");
  }

  /**
   * The snapshot covers the records the removed segment held: both go on, and say which records
   * only the snapshot stands for now (the start in its log, verify in its line).
   */
  @Test
  void withASnapshotCoveringTheGap_startAndVerifyGoOn_sayingWhichRecordsAreAbsent()
      throws Exception {
    History h = firstSegmentRemoved();
    long first = FileJournal.firstSequence(h.journal);

    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.err()).isZero();
    assertThat(verify.out())
        .contains(
            "records 0 to "
                + (kept - 1)
                + ", which it covers, were not checked (records 0 to "
                + (kept - 1)
                + " were archived and their segment is missing from "
                + h.segments()
                + " (the first segment there begins at record "
                + kept
                + "))")
        .contains("and records " + kept + " to ")
        .doesNotContain("records 0 to " + (first - 1) + " are archived without their segments");

    PrintStream err = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Run start;
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      start = FileJournalTamperingTest.serveUntilListening(h);
    } finally {
      System.setErr(err);
    }
    assertThat(start.err()).contains("cannot listen");
    assertAbsentRecordsWarned(log, h);
  }

  /** Asserts that the start's log names the records only the snapshot stands for. */
  private void assertAbsentRecordsWarned(ByteArrayOutputStream log, History h) {
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains(
            "records 0 to "
                + (kept - 1)
                + " were archived and their segment is missing from "
                + h.segments());
  }

  /**
   * Regression: a start from a snapshot covering more records than it checks before starting
   * ({@code checkRecordsBeforeSnapshot}) said nothing of the missing segment, the warning having
   * been part of that check; it needs only a listing, so it is said at any size.
   */
  @Test
  void aStartFromASnapshotTooLargeToCheck_stillWarnsWhichRecordsAreAbsent() throws Exception {
    History h = firstSegmentRemoved();
    PrintStream err = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try (Steward s =
        Steward.builder(h.key)
            .journal(FileJournal.open(h.journal))
            .meter(new EstimatorMeter())
            .backend(ReferenceSteward.engine())
            .snapshots(FileSnapshotStore.beside(h.journal))
            .snapshotEvery(0)
            .checkRecordsBeforeSnapshot(0)
            .build()) {
      assertThat(s.identity()).isNotNull();
    } finally {
      System.setErr(err);
    }
    assertAbsentRecordsWarned(log, h);
  }

  /**
   * Regression: with no snapshot to stand for them, a start was refused saying every record up to
   * the live file's was archived without its segment, though the kept segment holds some, and
   * verify said neither segments nor a snapshot were present.
   */
  @Test
  void withNoSnapshot_startAndVerifyRefuse_namingTheRecordsToPutBack() throws Exception {
    History h = firstSegmentRemoved();
    h.removeSnapshots();

    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.out()).isEqualTo(1);
    assertThat(verify.err())
        .contains(
            "records 0 to "
                + (kept - 1)
                + " were archived and their segment is missing from "
                + h.segments())
        .contains("put back the segments holding records 0 to " + (kept - 1))
        .contains("00000000000000000000.jsonl");
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    assertThat(start.err())
        .doesNotContain("cannot listen")
        .contains("records 0 to " + (kept - 1) + " of journal ")
        .contains("the segment holding them is missing from " + h.segments())
        .contains("begins at record " + kept)
        .contains("put back the segments holding records 0 to " + (kept - 1))
        .contains("00000000000000000000.jsonl");
  }
}
