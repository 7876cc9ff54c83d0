package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Snapshot;
import org.meshjava.steward.Steward;

/**
 * Regression: a journal whose latest snapshot is too large to read ({@code TOO_LARGE}) was refused
 * by {@code mesh journal verify} as unreadable, while a steward starts on it by replaying the whole
 * journal and checking it against the snapshot's header only (SPEC.md §60.8, "Size"). The verify
 * now does as the start does. The read limit is lowered for the test, which cannot write a file
 * past the real one.
 */
class JournalVerifyTooLargeSnapshotTest {
  @TempDir Path dir;

  @BeforeEach
  void lowerTheLimit() {
    JournalCommand.SnapshotDirectory.readLimit = 64;
  }

  @AfterEach
  void restoreTheLimit() {
    JournalCommand.SnapshotDirectory.readLimit = Snapshot.MAX_BYTES;
  }

  /** A journal of {@code receipts} serves, whose close saved a snapshot covering every record. */
  private Path journal(int receipts) throws Exception {
    Path file = dir.resolve("steward.journal");
    serve(SigningKey.generate(), file, receipts, "journal ", true);
    assertThat(FileSnapshotStore.beside(file).latest()).isPresent();
    return file;
  }

  /**
   * A journal of 3 serves whose records its snapshot covers were archived (under the real limit,
   * which archive checks too); the limit is lowered again after.
   */
  private Path archivedJournal() throws Exception {
    Path file = journal(3);
    JournalCommand.SnapshotDirectory.readLimit = Snapshot.MAX_BYTES;
    Run archived = mesh("journal", "archive", file.toString());
    assertThat(archived.code()).as(archived.err()).isZero();
    JournalCommand.SnapshotDirectory.readLimit = 64;
    return file;
  }

  /** Serves {@code receipts} prompts named from {@code prompt} into the journal {@code file}. */
  private static void serve(
      SigningKey key, Path file, int receipts, String prompt, boolean snapshots) throws Exception {
    Steward.Builder b = ReferenceSteward.builder(key, FileJournal.open(file));
    if (snapshots) {
      b.snapshots(FileSnapshotStore.beside(file));
    }
    try (Steward s = b.build()) {
      for (int i = 0; i < receipts; i++) {
        ServeRequest req = ReferenceSteward.request(prompt + i);
        s.serve(req, ReferenceSteward.payload(req));
      }
    }
  }

  @Test
  void verify_withATooLargeLatestSnapshot_refusesAnotherHistoryOfTheSameSteward() throws Exception {
    SigningKey key = SigningKey.generate();
    Path first = dir.resolve("first.journal");
    serve(key, first, 3, "first ", true);
    // The same steward's other journal, longer, beside the first one's snapshot.
    Path file = dir.resolve("steward.journal");
    serve(key, file, 5, "second ", false);
    Files.move(
        FileSnapshotStore.beside(first).directory(), FileSnapshotStore.beside(file).directory());
    Run r = mesh("journal", "verify", file.toString());
    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("the latest snapshot's header (NOT_IN_JOURNAL");
  }

  @Test
  void verify_withATooLargeLatestSnapshot_checksTheWholeJournalAgainstItsHeader() throws Exception {
    Path file = journal(3);
    Run r = mesh("journal", "verify", file.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("form one chain and replay")
        .contains("is too large to read, so it was checked by its header only");
  }

  @Test
  void verify_withATooLargeLatestSnapshot_refusesAJournalShorterThanItsHeaderSays()
      throws Exception {
    Path file = journal(3);
    List<String> lines = Files.readAllLines(file);
    Files.write(file, lines.subList(0, lines.size() - 1));
    Run r = mesh("journal", "verify", file.toString());
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("the latest snapshot's header (AHEAD_OF_JOURNAL")
        .contains("does not match the journal");
  }

  @Test
  void verify_withATooLargeLatestSnapshot_andArchivedRecordsWithoutSegments_failsAsArchived()
      throws Exception {
    Path file = archivedJournal();
    Path segments = file.resolveSibling("steward.journal.segments");
    Files.move(segments, dir.resolve("elsewhere"));
    Run r = mesh("journal", "verify", file.toString());
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("were archived without their segments, and the latest snapshot is too large")
        .contains("(ARCHIVED); put the journal's segments back");
  }

  @Test
  void archive_withATooLargeLatestSnapshot_isRefusedNamingTheSize_notAsHavingNone()
      throws Exception {
    Path file = journal(3);
    byte[] before = Files.readAllBytes(file);
    Run r = mesh("journal", "archive", file.toString());
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("more than the 64 a snapshot can be")
        .doesNotContain("no snapshot");
    assertThat(Files.readAllBytes(file)).isEqualTo(before);
  }

  @Test
  void verify_withATooLargeLatestSnapshot_andItsSegmentsPresent_checksTheWholeHistory()
      throws Exception {
    Path file = archivedJournal();
    Run r = mesh("journal", "verify", file.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("form one chain and replay")
        .contains("is too large to read, so it was checked by its header only");
  }
}
