package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A path that leads to one of a journal's archived segments is never opened as a live journal
 * (SPEC.md §60.8, "Segments"): a segment holds an older stretch of the history, so a steward
 * started on it would serve with the later records' spends rolled back and append into the archive.
 * An open and the read-only checks {@code mesh journal verify} makes refuse it alike, naming the
 * path, the segment and its journal, and leave the segment as it was; layouts that only look alike
 * still open.
 */
class SegmentAsJournalTest {
  @TempDir Path dir;

  /** A journal of 10 records whose first 4 were archived into its first segment. */
  private Path archived(Path p) throws Exception {
    FileJournalStreamTest.journal(p, 10);
    List<byte[]> lines = JournalFile.read(p).lines();
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>());
    return JournalSegments.file(p, 0);
  }

  @Test
  void aJournalNameLinkedToItsOwnSegment_isRefusedByOpenAndByTheChecksVerifyMakes()
      throws Exception {
    Path j = dir.resolve("j");
    Path segment = archived(j);
    byte[] before = Files.readAllBytes(segment);
    Files.move(j, dir.resolve("j.moved"));
    Files.createSymbolicLink(j, segment);

    assertRefused(j, segment);
    assertThat(Files.readAllBytes(segment)).isEqualTo(before);
  }

  @Test
  void aSegmentNamedDirectly_isRefused() throws Exception {
    Path segment = archived(dir.resolve("j"));
    assertRefused(segment, segment);
  }

  @Test
  void aLinkToASegmentNotWrittenYet_isRefusedAndCreatesNothing() throws Exception {
    Path j = dir.resolve("j");
    archived(j);
    Path later = JournalSegments.file(j, 4);
    Path link = dir.resolve("k");
    Files.createSymbolicLink(link, later);

    assertRefusedNaming(() -> FileJournal.open(link).close(), "open", link, later.toString());
    assertThat(Files.exists(later)).isFalse();
  }

  @Test
  void layoutsThatOnlyLookAlike_stillOpen() throws Exception {
    // A journal on another disk, linked from here: the link's target is no segment.
    Path elsewhere = Files.createDirectories(dir.resolve("disk2")).resolve("j");
    FileJournalStreamTest.journal(elsewhere, 3);
    Path link = dir.resolve("linked");
    Files.createSymbolicLink(link, elsewhere);
    // A journal whose own name ends as a segment folder's does, one in a folder named so, and one
    // named as a segment is, in a folder that is no segment folder.
    List<Path> plain =
        List.of(
            dir.resolve("a.segments"),
            Files.createDirectories(dir.resolve("b.segments")).resolve("journal.log"),
            Files.createDirectories(dir.resolve("c")).resolve("00000000000000000000.jsonl"),
            Files.createDirectories(dir.resolve(".segments"))
                .resolve("00000000000000000000.jsonl"));
    for (Path p : plain) {
      FileJournalStreamTest.journal(p, 3);
    }
    for (Path p : concat(link, plain)) {
      try (FileJournal journal = FileJournal.open(p)) {
        assertThat(journal.position().count()).as(p.toString()).isEqualTo(3);
      }
      assertThat(FileJournal.firstSequence(p)).as(p.toString()).isZero();
    }
  }

  private static List<Path> concat(Path first, List<Path> rest) {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(first), rest.stream())
        .toList();
  }

  private static void assertRefused(Path given, Path segment) throws Exception {
    String real = segment.toRealPath().toString();
    assertRefusedNaming(() -> FileJournal.open(given).close(), "open", given, real);
    assertRefusedNaming(() -> FileJournal.firstSequence(given), "firstSequence", given, real);
    assertRefusedNaming(
        () -> FileJournal.scan(given, JournalPosition.GENESIS, new HashMap<>(), r -> {}),
        "scan",
        given,
        real);
  }

  private static void assertRefusedNaming(
      ThrowingCallable call, String what, Path given, String segment) {
    assertThatThrownBy(call)
        .as(what + " of " + given)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining(given.toString())
        .hasMessageContaining(segment)
        .hasMessageContaining("archived segment of journal")
        .hasMessageContaining("name the live journal file");
  }
}
