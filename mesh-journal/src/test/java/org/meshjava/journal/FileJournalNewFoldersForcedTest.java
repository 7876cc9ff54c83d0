package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournalForceTest.Forced;
import org.meshjava.journal.FileJournalForceTest.Recorder;

/**
 * The folders {@link FileJournal#open} makes above a new journal are durable before it returns:
 * each new folder's name is forced in the folder above it, from the highest down, and then the
 * journal's own name in its folder. Without them a power cut after the first forced records could
 * take a new folder's name, and the journal with it. The {@link Forcer} seam records what was
 * forced; a power cut cannot be staged in one process.
 */
class FileJournalNewFoldersForcedTest {
  @TempDir Path dir;

  @Test
  void aJournalInFoldersMadeOnTheSpot_forcesEachNewFoldersName_fromTheTopDown() throws Exception {
    Path top = dir.toAbsolutePath().resolve("a");
    Path p = top.resolve("b").resolve("c").resolve("j.log");
    Recorder r = new Recorder(p);
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, FileJournal.Syncer.FORCE, r)) {
      j.append(FileJournalStreamTest.sealed(0));
    }
    assertThat(r.forced)
        .filteredOn(f -> Files.isDirectory(f.file()))
        .extracting(Forced::file)
        .containsExactly(dir.toAbsolutePath(), top, top.resolve("b"), top.resolve("b/c"));
    assertThat(Files.readAllLines(p)).hasSize(1);
  }
}
