package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * Where the archive's marker lives (SPEC.md 60.8): beside the journal, named after it, so that the
 * segment folder holds segments alone, and two journals in one folder each have their own.
 */
class SegmentMarkerBesideJournalTest {
  @TempDir Path dir;

  /**
   * Regression: the marker was written into the segment folder, where it sorted after every
   * segment, so a tool or script that took the folder's last file by name (to check, copy or
   * restore the last segment) took the marker instead.
   */
  @Test
  void theSegmentFolderHoldsSegmentsOnly_andItsLastFileIsTheLastSegment() throws Exception {
    Path a = dir.resolve("a.log");
    Path b = dir.resolve("b.log");
    FileJournalStreamTest.journal(a, 6);
    FileJournalStreamTest.journal(b, 6);
    LiveFileOlderThanArchiveTest.archiveUpTo(a, 3);

    List<Path> files = list(JournalSegments.directory(a));
    assertThat(files).allMatch(f -> f.getFileName().toString().matches("[0-9]{20}\\.jsonl"));
    assertThat(files.getLast()).isEqualTo(JournalSegments.file(a, 0));
    assertThat(JournalSegments.marker(a)).isEqualTo(dir.resolve("a.log.segments-named-after-cut"));
    assertThat(JournalSegments.marker(a)).isRegularFile();
    // b, not archived, is judged as a journal no archive of this version touched.
    assertThat(JournalSegments.marked(b)).isFalse();

    LiveFileOlderThanArchiveTest.archiveUpTo(b, 2);
    assertThat(JournalSegments.marked(b)).isTrue();
    assertThat(list(JournalSegments.directory(b))).containsExactly(JournalSegments.file(b, 0));
    assertThat(FileJournalStreamTest.scan(a, JournalPosition.GENESIS)).hasSize(6);
    assertThat(FileJournalStreamTest.scan(b, JournalPosition.GENESIS)).hasSize(6);
  }

  private static List<Path> list(Path folder) throws Exception {
    try (Stream<Path> s = Files.list(folder)) {
      return s.sorted().toList();
    }
  }
}
