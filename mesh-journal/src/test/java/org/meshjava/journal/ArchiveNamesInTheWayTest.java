package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * What an archive or a start finds at a name it makes beside the journal (SPEC.md 60.8): it is
 * named for what it is, left as it is, and nothing is written through it.
 */
class ArchiveNamesInTheWayTest {
  @TempDir Path dir;

  /**
   * A symbolic link put at the marker's name after the archive found it free and before it wrote
   * the marker. Regression: the marker was made, then opened again by its name following links, so
   * a link swapped in between had the marker's words written to its target (a pipe there blocked
   * the archive); a link there before the making was refused as "exists and is a symbolic link to
   * …, not a folder", where no folder was wanted. Now one opening makes and writes it, following no
   * link, and the refusal names what is there.
   */
  @Test
  void aLinkPutAtTheMarkersNameBeforeItIsWritten_isRefused_andNothingIsWrittenThroughIt()
      throws Exception {
    Path p = dir.resolve("j.log");
    FileJournalStreamTest.journal(p, 6);
    List<byte[]> lines = LiveFileOlderThanArchiveTest.lines(p);
    Path segments = Files.createDirectory(JournalSegments.directory(p));
    // What a killed archive of a version that named its segment first left: a copy of the live
    // file's first line (its newline not yet written), named for its first record. Its removal is
    // forced, and that force is where
    // the link is put, after the archive found the marker's name free.
    Files.write(JournalSegments.file(p, 0), lines.get(0));
    Path marker = JournalSegments.marker(p);
    Path elsewhere = dir.resolve("elsewhere.txt");
    Forcer linking =
        (channel, file, metaData) -> {
          if (file.equals(segments)
              && !Files.exists(marker, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(marker, elsewhere);
          }
          channel.force(metaData);
        };
    JournalException e =
        catchThrowableOfType(
            JournalException.class,
            () ->
                FileJournal.archive(
                    p, JournalArchiveTest.positionAt(lines, 3, -1), new HashMap<>(), linking));
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.detail())
        .isEqualTo(
            "cannot archive "
                + p
                + ": "
                + marker
                + " exists and is a symbolic link to "
                + elsewhere);
    assertThat(elsewhere).doesNotExist();
    assertThat(Files.readSymbolicLink(marker)).isEqualTo(elsewhere);
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).hasSize(6);
  }

  /**
   * A folder holding files at {@code <journal>.archiving}, where an archive writes the live file's
   * new beginning and a start removes what a killed archive left. Regression: every start was
   * refused "cannot recover J: J.archiving", saying neither what was wrong nor what to do. Now the
   * refusal says it is a folder that is not empty, to be moved, and leaves it as it is.
   */
  @Test
  void aFolderWithFilesAtTheArchivingName_isRefusedNamingIt_andIsKept() throws Exception {
    Path p = dir.resolve("j.log");
    FileJournalStreamTest.journal(p, 3);
    Path folder = Files.createDirectory(dir.resolve("j.log" + JournalOwnedName.ARCHIVING));
    Path mine = Files.writeString(folder.resolve("notes.txt"), "mine");
    JournalException e =
        catchThrowableOfType(JournalException.class, () -> FileJournal.open(p).close());
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.IO);
    assertThat(e.detail())
        .isEqualTo(
            "cannot open "
                + p
                + ": "
                + folder
                + " is a folder that is not empty; an archive writes the journal's new beginning"
                + " as a file of that name, and a start removes what a killed archive left there,"
                + " so the name must be free. It is left as it is: move it elsewhere (it is"
                + " nothing of the journal's) and start again");
    assertThat(mine).hasContent("mine");
    Files.delete(mine);
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(FileJournalStreamTest.read(j, JournalPosition.GENESIS)).hasSize(3);
    }
    assertThat(folder).doesNotExist();
  }

  /**
   * An empty folder at {@code <journal>.archiving} holds nothing of anyone's: a start removes it as
   * it removes a killed archive's copy, and the journal opens with every record.
   */
  @Test
  void anEmptyFolderAtTheArchivingName_isRemoved_andTheJournalOpens() throws Exception {
    Path p = dir.resolve("j.log");
    FileJournalStreamTest.journal(p, 3);
    Path folder = Files.createDirectory(dir.resolve("j.log" + JournalOwnedName.ARCHIVING));
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(FileJournalStreamTest.read(j, JournalPosition.GENESIS)).hasSize(3);
    }
    assertThat(folder).doesNotExist();
  }
}
