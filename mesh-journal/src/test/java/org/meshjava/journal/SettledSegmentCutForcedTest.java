package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * An archive killed after it renamed the live file's new beginning over the journal and before it
 * forced the journal's folder leaves a cut that a power cut can still undo, and its segment pending
 * (SPEC.md 60.8, the pending-segment protocol). The next opening names that segment, and then
 * appends to the file under the journal's name: both outlive a power cut only if the cut does, so
 * the opening forces the journal's folder before it names the segment, as the archive would have.
 * Unforced, a power cut after the opening's first appends brought the old live file back under the
 * journal's name: the appended records were lost with the new file, and beside a final-named
 * segment beginning where the old file begins, the journal was refused as a copy taken before the
 * archive.
 */
class SettledSegmentCutForcedTest {
  @TempDir Path dir;

  /** Writes records 0 to 11 to a new journal at {@code p}, 0 to 2 archived, and returns it. */
  static Path archivedOnce(Path p) throws Exception {
    FileJournalStreamTest.journal(p, 6);
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 3);
    try (FileJournal j = FileJournal.openUnsynced(p)) {
      for (int i = 6; i < 12; i++) {
        j.append(FileJournalStreamTest.sealed(i));
      }
    }
    return p;
  }

  /**
   * Archives the records of {@code p} before {@code upTo}, killing the archive where it would force
   * its cut: the rename over the journal is made, not yet forced, and the segment left pending.
   */
  static void archiveKilledAtTheCut(Path p, int upTo) throws Exception {
    Path folder = p.toRealPath().getParent();
    boolean[] segmentWritten = {false};
    // The journal's folder is forced before the segment too (for the proof files beside it,
    // ArchiveProofForcedTest); the cut is its first force after the pending segment's.
    Forcer killedAtTheCut =
        (channel, file, metaData) -> {
          if (String.valueOf(file.getFileName()).endsWith(".pending")) {
            segmentWritten[0] = true;
          }
          if (file.equals(folder) && segmentWritten[0]) {
            throw new ArchiveCrashPointsTest.Killed();
          }
          channel.force(metaData);
        };
    List<byte[]> lines = LiveFileOlderThanArchiveTest.lines(p);
    assertThatThrownBy(
            () ->
                FileJournal.archive(
                    p,
                    JournalArchiveTest.positionAt(lines, upTo, -1),
                    new HashMap<>(),
                    killedAtTheCut))
        .isInstanceOf(ArchiveCrashPointsTest.Killed.class);
  }

  @Test
  void anOpeningThatNamesAPendingSegment_forcesTheCutFirst() throws Exception {
    Path p = archivedOnce(dir.resolve("j.log"));
    Path folder = p.toRealPath().getParent();
    Path segments = JournalSegments.directory(p);
    Path pending = JournalSegments.pendingFile(p, 3);
    archiveKilledAtTheCut(p, 8);
    assertThat(pending).exists();
    assertThat(FileJournal.firstSequence(p)).isEqualTo(8);

    List<String> forces = new ArrayList<>();
    Forcer seen =
        (channel, file, metaData) -> {
          String state = Files.exists(pending) ? "pending" : "named";
          if (file.equals(folder)) {
            forces.add("journal folder, segment " + state);
          } else if (file.equals(segments)) {
            forces.add("segment folder, segment " + state);
          } else {
            forces.add(file.toString());
          }
          channel.force(metaData);
        };
    try (FileJournal j =
        FileJournal.open(p, FileChannel::tryLock, FileJournal.Syncer.FORCE, seen)) {
      assertThat(j.position().count()).isEqualTo(12);
    }
    assertThat(pending).doesNotExist();
    assertThat(forces)
        .containsSubsequence("journal folder, segment pending", "segment folder, segment named");
  }
}
