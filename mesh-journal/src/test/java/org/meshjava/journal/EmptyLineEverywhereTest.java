package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * An empty line (an edit: no append writes one) is refused in one wording wherever a journal's
 * lines are read, naming the file, its byte offset and the record before it, and saying to remove
 * it: in an archived segment, before the record a read starts from (lines skipped, not decoded), in
 * the line count a read falls back to when a position's locator is stale, and before the live
 * file's first record. journal24b gave the live file's reads these words; these reads still said
 * "has no seq", "holds seq ... records do not form one chain" or "is not a mesh journal".
 */
class EmptyLineEverywhereTest {
  @TempDir Path dir;

  /** Ten records, the first four archived into segment 0. */
  private Path archivedAtFour(List<byte[]> lines) throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j.log"), 10);
    lines.addAll(JournalFile.read(p).lines());
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>());
    return p;
  }

  /**
   * Ten records archived at four ({@code lines} gets them all), then an empty line put before line
   * {@code i} of the segment; returns the segment.
   */
  private Path segmentWithAnEmptyLineBefore(List<byte[]> lines, int i) throws Exception {
    Path seg = JournalSegments.file(archivedAtFour(lines), 0);
    withEmptyLineBefore(seg, lines.subList(0, 4), i);
    return seg;
  }

  /** Byte offset of line {@code i} in a file of {@code lines}. */
  private static long offsetOf(List<byte[]> lines, int i) {
    long at = 0;
    for (int k = 0; k < i; k++) {
      at += lines.get(k).length + 1;
    }
    return at;
  }

  /** Writes {@code lines} to {@code file} with an empty line inserted before line {@code i}. */
  private static void withEmptyLineBefore(Path file, List<byte[]> lines, int i) throws Exception {
    List<String> out = new ArrayList<>();
    for (byte[] l : lines) {
      out.add(new String(l, StandardCharsets.UTF_8));
    }
    out.add(i, "");
    Files.write(file, out, StandardCharsets.UTF_8);
  }

  private static void assertEmptyLine(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable read,
      Path file,
      long at,
      String after) {
    assertThatThrownBy(read)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e)
                  .hasMessageContaining("the line at byte " + at + " of " + file + " is empty, ")
                  .hasMessageContaining(after)
                  .hasMessageContaining("remove the empty line");
            });
  }

  /** Regression: "record 2: not a JSON object" (the line handed to the decoder). */
  @Test
  void anEmptyLineBetweenRecordsOfASegment_isNamedInTheSegment() throws Exception {
    List<byte[]> lines = new ArrayList<>();
    Path seg = segmentWithAnEmptyLineBefore(lines, 2);
    Path p = dir.resolve("j.log");
    assertEmptyLine(
        () -> JournalArchiveTest.readAll(p, JournalPosition.GENESIS),
        seg,
        offsetOf(lines, 2),
        "after record 1");
    // mesh journal verify, inspect and export read it through the scan.
    assertEmptyLine(
        () -> JournalFile.scan(p, 4, n -> {}, (r, line) -> {}),
        seg,
        offsetOf(lines, 2),
        "after record 1");
  }

  /**
   * Regression: a read from record 3 skips records 0 to 2 uncounted, and took the empty line for
   * one of them, so record 2 came where 3 belonged: "holds seq 2 ... records do not form one
   * chain".
   */
  @Test
  void anEmptyLineInASegmentBeforeWhereAReadStarts_isNamed() throws Exception {
    List<byte[]> lines = new ArrayList<>();
    Path seg = segmentWithAnEmptyLineBefore(lines, 1);
    Path p = dir.resolve("j.log");
    assertEmptyLine(
        () -> JournalArchiveTest.readAll(p, JournalArchiveTest.positionAt(lines, 3, -1)),
        seg,
        offsetOf(lines, 1),
        "after record 0");
  }

  /** Regression: "the first line of archived segment ... has no seq". */
  @Test
  void anEmptyFirstLineOfASegment_isNamedAsBeforeItsFirstRecord() throws Exception {
    List<byte[]> lines = new ArrayList<>();
    Path seg = segmentWithAnEmptyLineBefore(lines, 0);
    Path p = dir.resolve("j.log");
    assertEmptyLine(
        () -> JournalArchiveTest.readAll(p, JournalPosition.GENESIS), seg, 0, "before record 0");
    assertThatThrownBy(() -> JournalSegments.from0(p))
        .hasMessageContaining("the line at byte 0 of " + seg + " is empty, before record 0");
  }

  /**
   * Regression: a position whose locator no longer points at its record (the file changed under it)
   * is found by counting lines, which counted the empty line as a record: "holds seq 5 in ...;
   * records do not form one chain".
   */
  @Test
  void anEmptyLineBeforeAStaleLocator_isNamed_notCountedAsARecord() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j.log"), 10);
    List<byte[]> lines = JournalFile.read(p).lines();
    // The locator a snapshot at record 6 took: the offset of record 6, which the edit shifts.
    JournalPosition at6 = JournalArchiveTest.positionAt(lines, 6, offsetOf(lines, 6));
    withEmptyLineBefore(p, lines, 3);
    assertEmptyLine(
        () -> JournalArchiveTest.readAll(p, at6), p, offsetOf(lines, 3), "after record 2");
  }

  /** Regression: "is not a mesh journal", as if another kind of file had been named. */
  @Test
  void anEmptyLineBeforeTheLiveFilesFirstRecord_isNamed() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("k.log"), 3);
    withEmptyLineBefore(p, JournalFile.read(p).lines(), 0);
    assertEmptyLine(() -> FileJournal.open(p).close(), p, 0, "before record 0");
    // A live file whose first records were archived: the record before is its first's less one.
    List<byte[]> lines = new ArrayList<>();
    Path archived = archivedAtFour(lines);
    withEmptyLineBefore(archived, lines.subList(4, 10), 0);
    assertEmptyLine(() -> FileJournal.open(archived).close(), archived, 0, "after record 3");
  }
}
