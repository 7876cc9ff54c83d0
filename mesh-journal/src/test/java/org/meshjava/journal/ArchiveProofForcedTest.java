package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * The archive's proof files (the marker and its twin, SPEC.md 60.8) are durable before the first
 * pending segment is: an archive forces the journal's folder before it writes the segment even when
 * both files were there already, for an archive killed after it wrote them and before it forced
 * their folder leaves them there but not yet durable. Unforced, a power cut during the next archive
 * could keep its forced pending segment and lose both proof files, and the next opening would
 * refuse the journal as {@code CORRUPT} (a pending segment no archive wrote).
 */
class ArchiveProofForcedTest {
  @TempDir Path dir;

  @Test
  void bothProofFilesThere_theirFolderIsForcedBeforeThePendingSegment() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j.log"), 8);
    // Both written, as by an archive killed before it forced their folder.
    Files.createDirectories(JournalSegments.directory(p));
    Files.writeString(JournalSegments.marker(p), "proof");
    Files.writeString(JournalSegments.markerTwin(p), "proof");
    Path folder = p.toRealPath().getParent();
    Path pending = JournalSegments.pendingFile(p, 0);
    List<String> forces = new ArrayList<>();
    Forcer seen =
        (channel, file, metaData) -> {
          if (file.equals(folder)) {
            forces.add("journal folder");
          } else if (file.equals(pending)) {
            forces.add("pending segment");
          }
          channel.force(metaData);
        };
    List<byte[]> lines = LiveFileOlderThanArchiveTest.lines(p);
    FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 4, -1), new HashMap<>(), seen);
    assertThat(FileJournal.firstSequence(p)).isEqualTo(4);
    assertThat(forces).as("forces, in order").startsWith("journal folder", "pending segment");
  }
}
