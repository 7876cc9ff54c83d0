package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournal;

/**
 * Descriptors kept because their file was held here ({@link LockHolder#closeKeepingLocks}) are
 * asked again once the bound is reached: those whose lock has gone since are closed, and reads may
 * open again. Regression: kept ones were never asked again, so a process that had seen the bound's
 * worth of swaps was refused every read by name until it restarted, though it held none of those
 * files any more.
 */
class KeptDescriptorsRecheckedTest {
  @TempDir Path dir;

  @Test
  void atTheBound_keptDescriptorsOfFilesNoLongerHeld_areClosed_andThoseStillHeldStay()
      throws Exception {
    Path stays = dir.resolve("stays.log");
    Path closes = dir.resolve("closes.log");
    LockHolder.Kept kept = new LockHolder.Kept(2);
    try (FileJournal staying = FileJournal.open(stays)) {
      FileChannel ofStaying = read(stays);
      FileChannel ofClosing;
      try (FileJournal closing = FileJournal.open(closes)) {
        kept.close(ofStaying);
        ofClosing = read(closes);
        kept.close(ofClosing);
        assertThat(kept.size()).as("kept, both files held").isEqualTo(2);
        assertThatThrownBy(kept::requireRoom)
            .as("at the bound, both still held")
            .isInstanceOf(IOException.class)
            .hasMessageStartingWith("this process keeps open 2 descriptors");
        assertThat(kept.size()).isEqualTo(2);
      }
      assertThatCode(kept::requireRoom).as("room, one journal closed").doesNotThrowAnyException();
      assertThat(kept.size()).isEqualTo(1);
      assertThat(ofClosing.isOpen()).as("the closed journal's descriptor").isFalse();
      assertThat(ofStaying.isOpen()).as("the held journal's descriptor").isTrue();
      assertThat(OsLocks.heldHere(stays)).as("the held journal's lock").isTrue();
      assertThat(staying.locked()).isTrue();
    }
    // Every journal closed: closing what is kept lets no lock go.
    assertThat(kept.closeAll()).isEqualTo(1);
  }

  private static FileChannel read(Path file) throws IOException {
    return FileChannel.open(file, StandardOpenOption.READ);
  }
}
