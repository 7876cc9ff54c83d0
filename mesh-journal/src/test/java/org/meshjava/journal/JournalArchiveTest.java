package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * Archived segments (SPEC.md §60.8): records covered by a snapshot move out of the live file into
 * {@code <journal>.segments/}, the history stays whole and readable from record 0 while the
 * segments are present, and a read that needs a missing one fails {@code ARCHIVED}.
 */
class JournalArchiveTest {
  @TempDir Path dir;

  Path journal(int n) throws JournalException {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.openUnsynced(p)) {
      for (int i = 0; i < n; i++) {
        j.append(FileJournalStreamTest.sealed(i));
      }
    }
    return p;
  }

  static JournalPosition positionAt(List<byte[]> lines, int count, long locator) {
    return new JournalPosition(
        count, Optional.of(ContentId.ofBytes(lines.get(count - 1))), locator);
  }

  static List<JournalRecord> readAll(Path p, JournalPosition from) throws JournalException {
    List<JournalRecord> out = new ArrayList<>();
    try (FileJournal j = FileJournal.open(p)) {
      j.read(from, new HashMap<>(), out::add);
    }
    return out;
  }

  static void assertArchived(Path p, JournalPosition from) {
    assertThatThrownBy(() -> readAll(p, from))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.ARCHIVED));
  }

  @Test
  void archivedRecords_leaveTheLiveFile_andTheHistoryStaysWhole() throws Exception {
    Path p = journal(10);
    JournalFile.Contents before = JournalFile.read(p);
    List<byte[]> lines = before.lines();
    long hint = before.goodLength(); // a wrong hint: it is only a hint
    assertThat(FileJournal.archive(p, positionAt(lines, 4, hint), new HashMap<>())).isEqualTo(4);
    assertThat(FileJournal.firstSequence(p)).isEqualTo(4);
    Path segment = JournalSegments.file(p, 0);
    assertThat(segment.getFileName().toString()).isEqualTo("00000000000000000000.jsonl");
    assertThat(Files.readAllLines(segment)).hasSize(4);
    assertThat(Files.readAllLines(p)).hasSize(6);
    assertThat(Files.readString(p)).startsWith("{\"seq\":4,");

    assertThat(readAll(p, JournalPosition.GENESIS)).isEqualTo(before.records());
    assertThat(readAll(p, positionAt(lines, 2, -1))).isEqualTo(before.records().subList(2, 10));
    assertThat(readAll(p, positionAt(lines, 4, -1))).isEqualTo(before.records().subList(4, 10));
    assertThat(readAll(p, positionAt(lines, 7, -1))).isEqualTo(before.records().subList(7, 10));

    // a second archive, with the exact locator of the cut, adds a second segment
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().count()).isEqualTo(10);
      j.append(FileJournalStreamTest.sealed(10));
    }
    long at7 = 0;
    for (int i = 4; i < 7; i++) {
      at7 += lines.get(i).length + 1;
    }
    assertThat(FileJournal.archive(p, positionAt(lines, 7, at7), new HashMap<>())).isEqualTo(3);
    assertThat(JournalSegments.list(p))
        .extracting(JournalSegments.Segment::firstSeq)
        .containsExactly(0L, 4L);
    assertThat(FileJournal.firstSequence(p)).isEqualTo(7);
    List<JournalRecord> all = readAll(p, JournalPosition.GENESIS);
    assertThat(all).hasSize(11);
    assertThat(all.subList(0, 10)).isEqualTo(before.records());
    assertThat(readAll(p, positionAt(lines, 5, -1))).hasSize(6);

    List<JournalRecord> scanned = new ArrayList<>();
    FileJournal.scan(p, JournalPosition.GENESIS, new HashMap<>(), scanned::add);
    assertThat(scanned).isEqualTo(all);

    // without the first segment, only reads from record 4 on can be answered
    Files.delete(JournalSegments.file(p, 0));
    assertArchived(p, JournalPosition.GENESIS);
    assertArchived(p, positionAt(lines, 3, -1));
    assertThat(readAll(p, positionAt(lines, 4, -1))).hasSize(7);
    // without any, only the live file's
    Files.delete(JournalSegments.file(p, 4));
    assertArchived(p, positionAt(lines, 4, -1));
    assertArchived(p, positionAt(lines, 6, -1));
    assertThat(readAll(p, positionAt(lines, 7, -1))).hasSize(4);
  }

  /**
   * A segment that is there but ends before the live file begins was cut after the archive forced
   * it whole: damage, refused as {@code CORRUPT} naming the file (it was {@code ARCHIVED}, as if
   * absent, and a starting steward then skipped the check of the records its snapshot covers). So
   * is one renamed to start after the record asked for (it was {@code ARCHIVED} too, found by a
   * tampering sweep); a segment truly starting later, the earlier ones removed, leaves that record
   * with no segment: {@code ARCHIVED} (see above).
   */
  @Test
  void aSegmentThatEndsShort_isCorrupt_andOneThatStartsLate_isArchivedHistoryMissing()
      throws Exception {
    Path p = journal(8);
    List<byte[]> lines = JournalFile.read(p).lines();
    FileJournal.archive(p, positionAt(lines, 5, -1), new HashMap<>());
    Path seg = JournalSegments.file(p, 0);
    List<String> held = Files.readAllLines(seg);
    Files.write(seg, held.subList(0, 3));
    for (JournalPosition from : List.of(JournalPosition.GENESIS, positionAt(lines, 4, -1))) {
      assertThatThrownBy(() -> readAll(p, from))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
                assertThat(e.getMessage()).contains("archived segment " + seg);
              });
    }
    // the same records, filed as if they started later
    Files.write(seg, held);
    Path renamed = JournalSegments.file(p, 1);
    Files.move(seg, renamed);
    assertThatThrownBy(() -> readAll(p, JournalPosition.GENESIS))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage())
                  .contains(
                      "archived segment "
                          + renamed
                          + " is named for record 1 but begins with"
                          + " record 0");
            });
    assertThatThrownBy(() -> JournalSegments.from0(p))
        .hasMessageContaining("is named for record 1 but begins with record 0");
    // emptied, it can be no segment either
    Files.write(renamed, new byte[0]);
    assertThatThrownBy(() -> readAll(p, JournalPosition.GENESIS))
        .hasMessageContaining("archived segment " + renamed + " holds no whole record");
  }

  /**
   * Regression: a file where the segment folder goes was listed as an empty folder, so the archived
   * records read as absent ({@code ARCHIVED}) and went unchecked. Found by a tampering sweep.
   */
  @Test
  void aFileWhereTheSegmentFolderGoes_isRefusedNamingIt() throws Exception {
    Path p = journal(6);
    List<byte[]> lines = JournalFile.read(p).lines();
    FileJournal.archive(p, positionAt(lines, 3, -1), new HashMap<>());
    Path folder = JournalSegments.directory(p);
    Path away = dir.resolve("away");
    Files.move(folder, away);
    Files.writeString(folder, "");
    for (var read :
        List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
            () -> readAll(p, JournalPosition.GENESIS),
            () -> JournalSegments.list(p),
            () -> JournalSegments.from0(p))) {
      assertThatThrownBy(read)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
                assertThat(e.getMessage())
                    .isEqualTo("cannot list " + folder + ": it is not a folder");
              });
    }
    // the records after them are still read without the folder
    assertThat(readAll(p, positionAt(lines, 3, -1))).hasSize(3);
    Files.delete(folder);
    Files.move(away, folder);
    assertThat(readAll(p, JournalPosition.GENESIS)).hasSize(6);
  }

  @Test
  void theLastRecord_alwaysStaysInTheLiveFile() throws Exception {
    Path p = journal(5);
    JournalFile.Contents c = JournalFile.read(p);
    JournalPosition end = positionAt(c.lines(), 5, c.goodLength());
    assertThat(FileJournal.archive(p, end, new HashMap<>())).isEqualTo(4);
    assertThat(Files.readAllLines(p)).hasSize(1);
    // nothing more can go
    assertThat(FileJournal.archive(p, end, new HashMap<>())).isZero();
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().count()).isEqualTo(5);
      assertThat(j.position().lastHash()).isEqualTo(end.lastHash());
      assertThat(j.append(FileJournalStreamTest.sealed(5)).seq()).isEqualTo(5);
    }
    assertThat(FileJournal.archive(p, JournalPosition.GENESIS, new HashMap<>())).isZero();
  }

  @Test
  void anArchiveKilledBeforeItsRename_leavesAFileThatTheNextArchiveRemoves() throws Exception {
    Path p = journal(5);
    JournalFile.Contents c = JournalFile.read(p);
    JournalPosition end = positionAt(c.lines(), 5, c.goodLength());
    assertThat(FileJournal.archive(p, end, new HashMap<>())).isEqualTo(4);
    // What a SIGKILL between the copy and the rename leaves: a copy of the journal's tail.
    Path leftover = dir.resolve(p.getFileName() + ".archiving");
    Files.write(leftover, Files.readAllBytes(p));
    // The next archive removes it, even with nothing left to archive.
    assertThat(FileJournal.archive(p, end, new HashMap<>())).isZero();
    assertThat(leftover).doesNotExist();
  }

  @Test
  void aPositionNotInTheJournal_archivesNothing() throws Exception {
    Path p = journal(5);
    JournalPosition foreign =
        new JournalPosition(3, Optional.of(ContentId.ofBytes(new byte[] {1})), -1);
    assertThatThrownBy(() -> FileJournal.archive(p, foreign, new HashMap<>()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.POSITION_MISMATCH));
    assertThat(Files.exists(JournalSegments.directory(p))).isFalse();
    try (FileJournal held = FileJournal.open(p)) {
      assertThatThrownBy(() -> FileJournal.archive(p, JournalPosition.GENESIS, new HashMap<>()))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED));
    }
  }

  @Test
  void segmentFiles_areNamedByTheirFirstSequence() throws Exception {
    Path p = dir.resolve("steward.journal");
    assertThat(JournalSegments.directory(p)).isEqualTo(dir.resolve("steward.journal.segments"));
    assertThat(JournalSegments.list(p)).isEmpty();
    Path d = JournalSegments.directory(p);
    Files.createDirectories(d);
    Files.writeString(d.resolve("00000000000000000012.jsonl"), "");
    Files.writeString(d.resolve("00000000000000000003.jsonl"), "");
    Files.writeString(d.resolve("0000000000000000003.jsonl"), "");
    Files.writeString(d.resolve("0000000000000000000x.jsonl"), "");
    Files.writeString(d.resolve("00000000000000000004.txt"), "");
    assertThat(JournalSegments.list(p))
        .extracting(JournalSegments.Segment::firstSeq)
        .containsExactly(3L, 12L);
    assertThat(JournalSegments.file(p, 12)).isEqualTo(d.resolve("00000000000000000012.jsonl"));
    assertThat(new String(new byte[0], StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void theFirstSequence_isKnownWhileAStewardHoldsTheJournal() throws Exception {
    Path p = journal(6);
    List<byte[]> lines = JournalFile.read(p).lines();
    FileJournal.archive(p, positionAt(lines, 3, -1), new HashMap<>());
    try (FileJournal held = FileJournal.open(p)) {
      assertThat(FileJournal.firstSequence(p)).isEqualTo(3);
      // nothing before the live file's first record is left to archive: no segment is written
      held.close();
      assertThat(FileJournal.archive(p, positionAt(lines, 3, -1), new HashMap<>())).isZero();
    }
    assertThat(JournalSegments.list(p))
        .extracting(JournalSegments.Segment::firstSeq)
        .containsExactly(0L);
  }

  @Test
  void aCutFoundByCountingLinesAcrossChunks_isExact() throws Exception {
    Path p = journal(9_000); // about 1.5 MB: the reader's 1 MiB chunks split a line
    List<byte[]> lines = JournalFile.read(p).lines();
    assertThat(FileJournal.archive(p, positionAt(lines, 8_000, -1), new HashMap<>()))
        .isEqualTo(8_000);
    assertThat(Files.readAllLines(JournalSegments.file(p, 0))).hasSize(8_000);
    assertThat(Files.readString(p)).startsWith("{\"seq\":8000,");
    List<JournalRecord> tail = readAll(p, positionAt(lines, 7_990, -1));
    assertThat(tail).hasSize(1_010);
    assertThat(tail.getFirst().seq()).isEqualTo(7_990);
  }

  /**
   * Regression: an archive that failed on a full disk left its part written segment and {@code
   * .archiving} file behind, holding the space the steward's next start needed for its first record
   * ({@code mesh journal archive} on a tmpfs with one page free: exit 1, and a 4096-byte {@code
   * 00000000000000000000.jsonl} stayed). Failed here at the force of the live file's new beginning,
   * the last step before the rename, when both copies are as large as they get.
   */
  @Test
  void anArchiveThatFails_removesWhatItWrote_andLeavesTheJournalAsItWas() throws Exception {
    Path p = journal(10);
    JournalFile.Contents before = JournalFile.read(p);
    Path tmp = p.toRealPath().resolveSibling("j.log.archiving");
    Forcer full =
        (channel, file, metaData) -> {
          if (file.equals(tmp)) {
            throw new java.io.IOException("No space left on device");
          }
          channel.force(metaData);
        };
    assertThatThrownBy(
            () -> FileJournal.archive(p, positionAt(before.lines(), 4, -1), new HashMap<>(), full))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
              assertThat(e.getMessage()).contains("No space left on device");
            });
    assertThat(tmp).doesNotExist();
    assertThat(JournalSegments.file(p.toRealPath(), 0)).doesNotExist();
    assertThat(FileJournal.firstSequence(p)).isZero();
    assertThat(readAll(p, JournalPosition.GENESIS)).isEqualTo(before.records());
  }
}
