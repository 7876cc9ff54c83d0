package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

  /** {@code mesh} with the snapshot read limit lowered to 64 bytes, below any snapshot's size. */
  private static Run meshReadingAtMost64(String... args) {
    return ScopedValue.where(JournalCommand.SnapshotDirectory.READ_LIMIT, 64L)
        .call(() -> mesh(args));
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
    Run archived = mesh("journal", "archive", file.toString());
    assertThat(archived.code()).as(archived.err()).isZero();
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
    Run r = meshReadingAtMost64("journal", "verify", file.toString());
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("the latest snapshot's header (NOT_IN_JOURNAL")
        .contains("does not match the journal")
        .contains("the journal was replaced or rewritten");
  }

  /**
   * Regression: every refusal by the header ended "records were cut or the journal was replaced",
   * also when the header names another format or another steward, which says nothing of the
   * journal. Each reason now says what it is.
   */
  @Test
  void verify_withATooLargeLatestSnapshot_namesAFormatMismatchAsOne() throws Exception {
    Path file = journal(3);
    // The header's "format" 2 made 3: the body is never read, so only the header is refused.
    rewriteLatestSnapshot(file, keyed("format", new byte[] {2}), keyed("format", new byte[] {3}));
    Run r = meshReadingAtMost64("journal", "verify", file.toString());
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("the latest snapshot's header (UNSUPPORTED_VERSION")
        .contains("is in a format this version does not read")
        .contains("written by another version of mesh, or altered")
        .doesNotContain("journal was replaced")
        .doesNotContain("cut");
  }

  @Test
  void verify_withATooLargeLatestSnapshot_namesAStewardMismatchAsOne() throws Exception {
    Path file = journal(3);
    String ours = Snapshot.openAsNamed(latestBytes(file)).steward().value();
    String theirs = org.meshjava.jcp.Jcp.identity(SigningKey.generate()).value();
    assertThat(theirs).hasSameSizeAs(ours);
    rewriteLatestSnapshot(file, keyed("steward", text(ours)), keyed("steward", text(theirs)));
    // Named: the journal's serves are ungranted, so no record names its steward.
    Run r = meshReadingAtMost64("journal", "verify", file.toString(), "--steward", ours);
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("the latest snapshot's header (OTHER_STEWARD")
        .contains("is another steward's")
        .contains("snapshots of two stewards were mixed up")
        .doesNotContain("journal was replaced")
        .doesNotContain("cut");
  }

  /**
   * Regression: with no steward named and no grant decided (ungranted serves), verify checked the
   * header against the steward the header names itself, so another steward's passed, exit 0, where
   * the start refuses it. The journal's checkpoints name its steward, and now do here.
   */
  @Test
  void verify_withATooLargeLatestSnapshotOfAnotherSteward_isRefusedByTheCheckpointsSteward()
      throws Exception {
    Path file = journal(3);
    String ours = Snapshot.openAsNamed(latestBytes(file)).steward().value();
    String theirs = org.meshjava.jcp.Jcp.identity(SigningKey.generate()).value();
    rewriteLatestSnapshot(file, keyed("steward", text(ours)), keyed("steward", text(theirs)));
    Run r = meshReadingAtMost64("journal", "verify", file.toString());
    assertThat(r.code()).as(r.out()).isNotZero();
    assertThat(r.err()).contains("the latest snapshot's header (OTHER_STEWARD");
  }

  /** As above, for a snapshot read whole: another steward's, validly signed by that steward. */
  @Test
  void verify_withAnotherStewardsSnapshot_isRefusedByTheCheckpointsSteward() throws Exception {
    Path file = journal(3);
    Path other = dir.resolve("other.journal");
    serve(SigningKey.generate(), other, 3, "other ", true);
    Path snapshots = FileSnapshotStore.beside(file).directory();
    try (var files = Files.list(snapshots)) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(snapshots);
    Files.move(FileSnapshotStore.beside(other).directory(), snapshots);
    Run r = mesh("journal", "verify", file.toString());
    assertThat(r.code()).as(r.out()).isNotZero();
    assertThat(r.err())
        .contains("(OTHER_STEWARD) is steward")
        .contains("the journal's checkpoints name");
  }

  /** A CBOR text string (shorter than 256 bytes), its head and its UTF-8 bytes. */
  private static byte[] text(String value) {
    byte[] v = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    if (v.length < 24) {
      out.write(0x60 + v.length);
    } else {
      out.write(0x78);
      out.write(v.length);
    }
    out.writeBytes(v);
    return out.toByteArray();
  }

  /** The map entry of text key {@code key} and the encoded {@code value}. */
  private static byte[] keyed(String key, byte[] value) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(text(key));
    out.writeBytes(value);
    return out.toByteArray();
  }

  private static Path latestFile(Path journal) throws Exception {
    try (var files = Files.list(FileSnapshotStore.beside(journal).directory())) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(".snapshot"))
          .max(java.util.Comparator.naturalOrder())
          .orElseThrow();
    }
  }

  private static byte[] latestBytes(Path journal) throws Exception {
    return Files.readAllBytes(latestFile(journal));
  }

  /** Replaces the one occurrence of {@code from} in the latest snapshot file by {@code to}. */
  private static void rewriteLatestSnapshot(Path journal, byte[] from, byte[] to) throws Exception {
    Path latest = latestFile(journal);
    byte[] bytes = Files.readAllBytes(latest);
    // One char per byte, so that a String search finds byte offsets.
    String all = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    String what = new String(from, java.nio.charset.StandardCharsets.ISO_8859_1);
    int at = all.indexOf(what);
    assertThat(at).as("where the header holds it").isNotNegative();
    assertThat(all.indexOf(what, at + 1)).as("a second occurrence").isNegative();
    System.arraycopy(to, 0, bytes, at, to.length);
    Files.write(latest, bytes);
  }

  @Test
  void verify_withATooLargeLatestSnapshot_checksTheWholeJournalAgainstItsHeader() throws Exception {
    Path file = journal(3);
    Run r = meshReadingAtMost64("journal", "verify", file.toString());
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
    Run r = meshReadingAtMost64("journal", "verify", file.toString());
    assertThat(r.code()).isNotZero();
    assertThat(r.err())
        .contains("the latest snapshot's header (AHEAD_OF_JOURNAL")
        .contains("covers more than the journal holds")
        .contains("records were cut from the journal's end, or the journal was replaced");
  }

  @Test
  void verify_withATooLargeLatestSnapshot_andArchivedRecordsWithoutSegments_failsAsArchived()
      throws Exception {
    Path file = archivedJournal();
    Path segments = file.resolveSibling("steward.journal.segments");
    Files.move(segments, dir.resolve("elsewhere"));
    Run r = meshReadingAtMost64("journal", "verify", file.toString());
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
    Run r = meshReadingAtMost64("journal", "archive", file.toString());
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
    Run r = meshReadingAtMost64("journal", "verify", file.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("form one chain and replay")
        .contains("is too large to read, so it was checked by its header only");
  }
}
