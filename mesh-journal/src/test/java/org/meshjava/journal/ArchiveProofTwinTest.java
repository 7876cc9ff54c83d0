package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * The archive's proof kept in two files beside the journal (SPEC.md 60.8): the marker and its
 * hidden twin. An archive creates one after the other with nothing forced between them, so a kill
 * can leave either alone, or either empty; a journal an older version of this protocol archived has
 * the marker alone; one never archived has neither and needs neither. Each opens holding every
 * record once, and the next archive leaves both files, each saying what it is. With either one
 * there, however it was made (a file, a folder, a link), a copy taken before the last archive is
 * refused.
 */
class ArchiveProofTwinTest {
  @TempDir Path dir;

  /** Which of the two proof files a kill, an older version or an operator left. */
  private enum Left {
    MARKER_ONLY,
    TWIN_ONLY,
    MARKER_EMPTY_ONLY,
    BOTH_EMPTY
  }

  /** Records 0..11, segment 0 holding 0..3, the proof files as {@code left} says. */
  private Path archivedOnce(String name, Left left) throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve(name), 8);
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 4);
    FileJournalStreamTest.journal(p, 4);
    leave(p, left);
    return p;
  }

  private static void leave(Path p, Left left) throws Exception {
    Path marker = JournalSegments.marker(p);
    Path twin = JournalSegments.markerTwin(p);
    switch (left) {
      case MARKER_ONLY -> Files.delete(twin);
      case TWIN_ONLY -> Files.delete(marker);
      case MARKER_EMPTY_ONLY -> {
        Files.delete(twin);
        Files.write(marker, new byte[0]);
      }
      case BOTH_EMPTY -> {
        Files.write(marker, new byte[0]);
        Files.write(twin, new byte[0]);
      }
    }
  }

  @Test
  void eitherProofFileLeftAlone_opensWhole_andTheNextArchiveWritesBoth() throws Exception {
    for (Left left : Left.values()) {
      Path p = archivedOnce("j-" + left, left);
      List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
      assertThat(all).as(left.toString()).hasSize(12);
      try (FileJournal j = FileJournal.open(p)) {
        assertThat(FileJournalStreamTest.read(j, JournalPosition.GENESIS))
            .as(left.toString())
            .isEqualTo(all);
      }
      LiveFileOlderThanArchiveTest.archiveUpTo(p, 8);
      assertThat(FileJournal.firstSequence(p)).as(left.toString()).isEqualTo(8);
      assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS))
          .as(left.toString())
          .isEqualTo(all);
      assertBothWritten(p, left == Left.BOTH_EMPTY || left == Left.MARKER_EMPTY_ONLY);
    }
  }

  /**
   * A kill in the first archive, after it made the segment folder and the marker and before the
   * twin: nothing archived, the journal opens whole, and the next archive writes the twin.
   */
  @Test
  void theFirstArchiveKilledBetweenMarkerAndTwin_opens_andTheNextArchiveCompletes()
      throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j"), 8);
    Files.createDirectories(JournalSegments.directory(p));
    Files.write(JournalSegments.marker(p), new byte[0]);
    List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(FileJournalStreamTest.read(j, JournalPosition.GENESIS)).isEqualTo(all);
    }
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 4);
    assertThat(FileJournal.firstSequence(p)).isEqualTo(4);
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).isEqualTo(all);
    assertBothWritten(p, true);
  }

  @Test
  void aJournalNeverArchived_needsNeither() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j"), 6);
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().count()).isEqualTo(6);
    }
    assertThat(JournalSegments.marker(p)).doesNotExist();
    assertThat(JournalSegments.markerTwin(p)).doesNotExist();
  }

  /**
   * With the marker removed and the twin replaced by a folder or a link (dangling or not) of its
   * name, the proof still stands: a copy taken before the last archive is refused, and left as it
   * is.
   */
  @Test
  void theTwinMadeAFolderOrALink_withTheMarkerRemoved_stillRefusesAnOldCopy() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("j"), 8);
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 4);
    FileJournalStreamTest.journal(p, 4);
    Path copy = Files.copy(p, dir.resolve("copy"));
    LiveFileOlderThanArchiveTest.archiveUpTo(p, 8);
    Files.delete(JournalSegments.marker(p));
    Path twin = JournalSegments.markerTwin(p);
    Files.copy(copy, p, StandardCopyOption.REPLACE_EXISTING);
    byte[] before = Files.readAllBytes(p);
    for (String form : List.of("folder", "link", "dangling link")) {
      Files.delete(twin);
      switch (form) {
        case "folder" -> Files.createDirectory(twin);
        case "link" -> Files.createSymbolicLink(twin, copy);
        default -> Files.createSymbolicLink(twin, dir.resolve("nowhere"));
      }
      assertThatThrownBy(() -> FileJournal.open(p).close())
          .as(form)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
          .hasMessageContaining("is a copy of the journal taken before that archive");
      assertThatThrownBy(() -> FileJournal.firstSequence(p))
          .as(form)
          .isInstanceOf(JournalException.class);
      assertThat(Files.readAllBytes(p)).as(form).isEqualTo(before);
    }
  }

  /**
   * Both proof files are there, regular files, saying what they are unless one an earlier kill left
   * empty may have been kept as it was ({@code rewrittenMayBeEmpty}).
   */
  private static void assertBothWritten(Path p, boolean rewrittenMayBeEmpty) throws Exception {
    for (Path f : List.of(JournalSegments.marker(p), JournalSegments.markerTwin(p))) {
      assertThat(f).isRegularFile();
      if (!rewrittenMayBeEmpty) {
        assertThat(Files.readString(f)).contains("named only once the live journal file");
      }
    }
  }
}
