package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
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
 * A journal file of one line whose first bytes were overwritten has no next record to be told by
 * (FileJournalTest's damaged-first-bytes case), and was refused as "not a mesh journal", as a
 * README is. Where the line has a record's shape past its first bytes and a folder only a journal
 * has is beside the file (its snapshot or segment folder), it is a damaged journal: {@code CORRUPT}
 * at its record, to be restored. Without that folder it is still said to be no journal.
 */
class OneLineJournalFirstBytesTest {
  @TempDir Path dir;

  /** A journal of {@code n} records at {@code name}, then its first byte overwritten. */
  private Path damaged(String name, int n) throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve(name), n);
    overwriteFirstByte(p);
    return p;
  }

  private static void overwriteFirstByte(Path p) throws Exception {
    byte[] b = Files.readAllBytes(p);
    b[0] = 'X';
    Files.write(p, b);
  }

  private static void assertDamagedAt(Path p, long seq) {
    assertDamagedAt(() -> FileJournal.open(p), p, seq);
  }

  private static void assertDamagedAt(ThrowingCallable open, Path p, long seq) {
    assertThatThrownBy(open)
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(seq);
              assertThat(e.getMessage())
                  .startsWith("journal record " + seq + ": the only line of " + p + " is damaged")
                  .contains("restore it from a copy")
                  .doesNotContain("not a mesh journal");
            });
  }

  /** Regression: "is not a mesh journal" though its snapshot folder is beside it. */
  @Test
  void oneDamagedLine_besideItsSnapshotFolder_isRecordZeroDamaged() throws Exception {
    Path p = damaged("steward.journal", 1);
    assertThatThrownBy(() -> FileJournal.open(p)).hasMessageContaining("is not a mesh journal");
    Files.createDirectory(FileSnapshotStore.beside(p).directory());
    assertDamagedAt(p, 0);
    assertThatThrownBy(() -> FileJournal.firstSequence(p))
        .hasMessageContaining("the only line of " + p + " is damaged");
  }

  /**
   * Regression: with its snapshot folder kept elsewhere (as {@code mesh serve}'s {@code
   * snapshots.dir} keeps it), nothing is beside the file, and it was "not a mesh journal" though
   * that folder records it as its journal. Given the folder, the open refuses it at its record; a
   * folder that records no journal, or another one, proves nothing.
   */
  @Test
  void oneDamagedLine_whoseSnapshotFolderElsewhereRecordsIt_isRecordZeroDamaged() throws Exception {
    Path p = damaged("steward.journal", 1);
    Path folder = Files.createDirectory(dir.resolve("elsewhere"));
    assertThatThrownBy(() -> FileJournal.open(p, folder))
        .hasMessageContaining("is not a mesh journal");
    Files.writeString(
        folder.resolve(SnapshotFolderOwner.FILE), dir.resolve("other.journal") + "\n");
    assertThatThrownBy(() -> FileJournal.open(p, folder))
        .hasMessageContaining("is not a mesh journal");

    Files.writeString(folder.resolve(SnapshotFolderOwner.FILE), p.toRealPath() + "\n");
    assertDamagedAt(() -> FileJournal.open(p, folder), p, 0);
    assertThatThrownBy(() -> FileJournal.open(p, folder)).hasMessageContaining(folder.toString());
  }

  /**
   * Regression: the refusal said the snapshot folder kept elsewhere "is beside" the file, sending
   * its operator to look for it there. It says what proves the file a journal: that folder records
   * it.
   */
  @Test
  void oneDamagedLine_whoseSnapshotFolderElsewhereRecordsIt_saysTheFolderRecordsIt()
      throws Exception {
    Path p = damaged("steward.journal", 1);
    Path folder = Files.createDirectory(dir.resolve("elsewhere"));
    Files.writeString(folder.resolve(SnapshotFolderOwner.FILE), p.toRealPath() + "\n");

    assertThatThrownBy(() -> FileJournal.open(p, folder))
        .hasMessageContaining(folder + ", its snapshot folder, records it as its journal")
        .hasMessageNotContaining("beside");
  }

  /**
   * An archive leaves one record in the live file, so a one-line live file is usual there: damaged,
   * it is refused at its record, the one after the last segment's.
   */
  @Test
  void anArchivedLiveFileOfOneDamagedLine_isItsRecordDamaged() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("archived.journal"), 6);
    List<byte[]> lines = JournalFile.read(p).lines();
    assertThat(FileJournal.archive(p, JournalArchiveTest.positionAt(lines, 6, -1), new HashMap<>()))
        .isEqualTo(5);
    assertThat(Files.readAllLines(p)).hasSize(1);
    assertThat(JournalSegments.directory(p)).isDirectory();
    overwriteFirstByte(p);
    assertDamagedAt(p, 5);
  }

  /** A file beside such a folder that has no record's shape is still no journal. */
  @Test
  void aLineWithoutARecordsShape_besideSuchAFolder_isStillNoJournal() throws Exception {
    Path p = Files.writeString(dir.resolve("notes.journal"), "{\"name\": \"x\", \"seq\": 0}\n");
    Files.createDirectory(FileSnapshotStore.beside(p).directory());
    assertThatThrownBy(() -> FileJournal.open(p))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e).hasMessageContaining("is not a mesh journal"));
    Files.writeString(p, "# notes\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> FileJournal.open(p)).hasMessageContaining("is not a mesh journal");
  }

  /**
   * Regression: a null snapshot folder passed every healthy open, since the folder is read only
   * when the journal is refused, and surfaced as a NullPointerException inside a later refusal.
   */
  @Test
  void aNullSnapshotFolder_isRefusedAtOnce_evenForAHealthyJournal() throws Exception {
    Path p = FileJournalStreamTest.journal(dir.resolve("healthy.journal"), 2);
    Path noFolder = null;
    assertThatThrownBy(() -> FileJournal.open(p, noFolder))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("snapshotFolder");
    assertThatThrownBy(() -> FileJournal.firstSequence(p, noFolder))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("snapshotFolder");
  }
}
