package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A segment's last line cut at every byte (SPEC.md §60.8, "Segments": an archive forces a segment
 * whole before it cuts the live file, so a segment cut short was damaged afterwards): a read from
 * record 0, as a start's check of the records its snapshot covers makes, and the scan {@code mesh
 * journal verify} makes, both refuse it {@code CORRUPT} naming the segment, for the first segment
 * (which the next segment follows) and the last (which the live file follows), and leave it as it
 * was.
 */
class SegmentCutTest {
  @TempDir Path dir;

  @Test
  void aSegmentsLastLineCutAtAnyByte_isRefusedNamingTheSegment() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j.log"), 10);
    List<byte[]> lines = JournalFile.read(p).lines();
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>());
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 7, -1), new HashMap<>());
    List<JournalSegments.Segment> segments = JournalSegments.list(p);
    assertThat(segments).extracting(JournalSegments.Segment::firstSeq).containsExactly(0L, 4L);
    int cases = 0;
    for (JournalSegments.Segment s : segments) {
      byte[] whole = Files.readAllBytes(s.file());
      int last = lines.get((int) (s.firstSeq() == 0 ? 3 : 6)).length + 1;
      for (int less = 1; less <= last; less++) {
        byte[] cut = Arrays.copyOf(whole, whole.length - less);
        Files.write(s.file(), cut);
        String as = s.file().getFileName() + " cut by " + less + " of its last line's " + last;
        SegmentOverlapTest.assertRefusedNaming(p, s.file(), "");
        assertThat(Files.readAllBytes(s.file())).as(as).isEqualTo(cut);
        cases++;
      }
      Files.write(s.file(), whole);
    }
    assertThat(JournalArchiveTest.readAll(p, JournalPosition.GENESIS)).hasSize(10);
    assertThat(cases).isGreaterThan(2 * 60);
  }
}
