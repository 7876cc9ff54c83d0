package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A live file that the segments archived beside it show to be older than them is refused (SPEC.md
 * §60.8, "The live file follows its segments"): a segment, a copy or a hard link of one, or a copy
 * of the journal taken before its last archive, put in the live file's place, is a valid stretch of
 * the chain, so without a snapshot beside it (removed, or never kept) a start replayed it alone and
 * every spend recorded after it came back. An open, and the read-only checks {@code mesh journal
 * verify} makes, refuse it alike and leave the files as they were; the layouts an archive, a crash
 * during one, or an operator's pruning leaves still open.
 */
class LiveFileOlderThanArchiveTest {
  @TempDir Path dir;

  /** A journal of 10 records whose first 4 were archived: segment 0 holds 0..3, the live 4..9. */
  private Path archived(Path p) throws Exception {
    FileJournalStreamTest.journal(p, 10);
    archiveUpTo(p, 4);
    return JournalSegments.file(p, 0);
  }

  /** Archives the records of {@code p} before {@code count}. */
  static void archiveUpTo(Path p, int count) throws Exception {
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines(p), count, -1), new HashMap<>());
  }

  /** The live file's lines, each at its record's index (the archived ones before it left null). */
  static List<byte[]> lines(Path p) throws Exception {
    List<byte[]> all = new java.util.ArrayList<>();
    for (long s = 0; s < FileJournal.firstSequence(p); s++) {
      all.add(null);
    }
    byte[] bytes = Files.readAllBytes(p);
    for (int from = 0, at = 0; at < bytes.length; at++) {
      if (bytes[at] == '\n') {
        all.add(java.util.Arrays.copyOfRange(bytes, from, at));
        from = at + 1;
      }
    }
    return all;
  }

  @Test
  void aHardLinkOfTheLastSegment_inTheLiveFilesPlace_isRefused() throws Exception {
    Path j = dir.resolve("j");
    Path segment = archived(j);
    Files.delete(j);
    Files.createLink(j, segment);

    assertRefused(j, "holds records 0 to 3", "holds nothing after what was archived");
  }

  @Test
  void aCopyOfTheLastSegment_inTheLiveFilesPlace_isRefused() throws Exception {
    Path j = dir.resolve("j");
    Path segment = archived(j);
    Files.copy(segment, j, StandardCopyOption.REPLACE_EXISTING);

    assertRefused(j, "holds records 0 to 3", "holds nothing after what was archived");
  }

  @Test
  void aCopyOfTheJournalTakenBeforeItsLastArchive_beginningBeforeTheLastSegment_isRefused()
      throws Exception {
    Path j = dir.resolve("j");
    FileJournalStreamTest.journal(j, 10);
    Path copy = Files.copy(j, dir.resolve("copy"));
    archiveUpTo(j, 4);
    FileJournalStreamTest.journal(j, 6); // records 10..15
    archiveUpTo(j, 12); // segment 4 holds 4..11, the live file 12..15
    Files.copy(copy, j, StandardCopyOption.REPLACE_EXISTING); // records 0..9

    assertRefused(j, "holds records 0 to 9", "begins before the last archive cut it");
  }

  @Test
  void anEmptiedLiveFile_isRefused_andAMissingOneIsNotMadeAgain() throws Exception {
    Path j = dir.resolve("j");
    archived(j);
    Files.write(j, new byte[0]);
    assertRefused(j, "the live file holds no record", "holds nothing after what was archived");

    Files.delete(j);
    assertThatThrownBy(() -> FileJournal.open(j).close())
        .hasMessageContaining("older than the records archived from it");
    assertThat(Files.exists(j)).as("a refused open leaves no new file").isFalse();
  }

  @Test
  void whatAnArchiveACrashOrAnOperatorLeaves_stillOpens() throws Exception {
    // An archive killed before its rename: a segment named for the live file's first record, a
    // copy of its first lines, here cut in a line.
    Path crashed = dir.resolve("crashed");
    archived(crashed);
    // Left so by a version that named the segment before the cut, in a folder without the marker
    // (ArchiveCrashPointsTest covers what this version's archive leaves).
    Files.delete(JournalSegments.marker(crashed));
    Files.delete(JournalSegments.markerTwin(crashed));
    byte[] live = Files.readAllBytes(crashed);
    Files.write(JournalSegments.file(crashed, 4), java.util.Arrays.copyOf(live, live.length / 2));
    assertOpens(crashed, 4, 10);
    // ... and one killed before it wrote a byte.
    Files.write(JournalSegments.file(crashed, 4), new byte[0]);
    assertOpens(crashed, 4, 10);

    // Every segment removed by the operator, or the first ones only.
    Path pruned = dir.resolve("pruned");
    archived(pruned);
    FileJournalStreamTest.journal(pruned, 6);
    archiveUpTo(pruned, 12);
    Files.delete(JournalSegments.file(pruned, 0));
    assertOpens(pruned, 12, 16);
    Files.delete(JournalSegments.file(pruned, 4));
    assertOpens(pruned, 12, 16);

    // A new journal beside an empty segment folder.
    Path fresh = dir.resolve("fresh");
    Files.createDirectories(JournalSegments.directory(fresh));
    assertOpens(fresh, 0, 0);
  }

  /**
   * A last segment renamed, or with a last line that is no record, is not judged by this check but
   * by the read that needs it, in its words: a steward's start reports that as a refusal to start,
   * which an open refused here would not be (mesh-cli's JournalArchiveCommandTest pins the start).
   */
  @Test
  void aDamagedLastSegment_isLeftToTheReadThatNeedsIt() throws Exception {
    Path j = dir.resolve("j");
    Path segment = archived(j);
    Path renamed = JournalSegments.file(j, 1);
    Files.move(segment, renamed);
    assertOpens(j, 4, 10);
    assertThatThrownBy(() -> JournalArchiveTest.readAll(j, JournalPosition.GENESIS))
        .hasMessageContaining("is named for record 1 but begins with record 0");

    Files.move(renamed, segment);
    Files.write(segment, "not a record\n".getBytes(), java.nio.file.StandardOpenOption.APPEND);
    assertOpens(j, 4, 10);
    assertThatThrownBy(() -> JournalArchiveTest.readAll(j, JournalPosition.GENESIS))
        .isInstanceOf(JournalException.class);
  }

  private static void assertOpens(Path p, long first, long count) throws Exception {
    try (FileJournal journal = FileJournal.open(p)) {
      assertThat(journal.position().count()).as(p.toString()).isEqualTo(count);
    }
    assertThat(FileJournal.firstSequence(p)).as(p.toString()).isEqualTo(first);
  }

  private static void assertRefused(Path j, String holds, String why) throws Exception {
    byte[] before = Files.readAllBytes(j);
    String last = JournalSegments.list(j).getLast().file().toString();
    assertRefusedSaying(() -> FileJournal.open(j).close(), "open", holds, why, last);
    assertRefusedSaying(() -> FileJournal.firstSequence(j), "firstSequence", holds, why, last);
    assertRefusedSaying(
        () -> FileJournal.scan(j, JournalPosition.GENESIS, new HashMap<>(), r -> {}),
        "scan",
        holds,
        why,
        last);
    assertRefusedSaying(
        () -> FileJournal.checkLinksBefore(j, 1), "checkLinksBefore", holds, why, last);
    assertThat(Files.readAllBytes(j)).isEqualTo(before);
  }

  private static void assertRefusedSaying(
      ThrowingCallable call, String what, String holds, String why, String segment) {
    assertThatThrownBy(call)
        .as(what)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining("older than the records archived from it")
        .hasMessageContaining(holds)
        .hasMessageContaining(segment)
        .hasMessageContaining(why)
        .hasMessageContaining("Put back the live file that goes on from the segments");
  }
}
