package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * An archive whose disk fills as it copies (SPEC.md 60.8), shown as {@link FileSizeLimitTest} shows
 * a full disk to an append: a child JVM under a file size limit, whose writes past it fail as they
 * would with {@code ENOSPC}. Whether the segment's copy or the live file's new beginning does not
 * fit, the archive is refused {@code IO}, nothing it wrote is left (no pending segment, no {@code
 * .archiving} copy), and the journal opens with every record once and archives once there is room.
 */
class ArchiveFullDiskTest {
  @TempDir Path dir;

  @Test
  void anArchiveWhoseCopiesDoNotFit_isRefusedIo_andLeavesEveryRecordOnce() throws Exception {
    Path p = dir.resolve("j.log");
    FileJournalStreamTest.journal(p, 200);
    List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
    long size = Files.size(p);
    assertThat(size).as("a journal larger than the limit, of 8 KiB at least").isGreaterThan(40_000);
    // Up to 10: the segment fits, the live file's new beginning does not. Up to 190: the segment
    // does not.
    List<String> lines =
        FileSizeLimitTest.runLimited(ArchiveFullDiskChild.class, p.toString(), "10", "190");
    assertThat(lines).containsExactly("REFUSED IO", "REFUSED IO");
    assertThat(Files.size(p)).isEqualTo(size);
    try (var names = Files.list(dir)) {
      assertThat(names.map(n -> n.getFileName().toString()))
          .noneMatch(n -> n.endsWith(JournalOwnedName.ARCHIVING));
    }
    try (var names = Files.list(JournalSegments.directory(p))) {
      assertThat(names.map(n -> n.getFileName().toString()))
          .noneMatch(n -> n.endsWith(".pending") || n.endsWith(".jsonl"));
    }
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).isEqualTo(all);
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 190);
    assertThat(FileJournal.firstSequence(p)).isEqualTo(190);
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).isEqualTo(all);
  }
}
