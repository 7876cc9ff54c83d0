package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal whose lock another process refuses only for a moment (its probe of the file, while it
 * closes a descriptor it read the journal through by name) opens: the attempt is tried again.
 * Regression: the open was refused {@code LOCKED}, "another steward process", though none held it.
 */
class JournalOpenBesideAProbeTest {
  @TempDir Path dir;

  @Test
  void aJournalAnotherProcessProbesAsItIsLocked_opens() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    FileJournal.Locker probedOnce = ch -> tries.incrementAndGet() == 1 ? null : ch.tryLock();
    try (FileJournal j = FileJournal.open(dir.resolve("j.log"), probedOnce)) {
      assertThat(j.locked()).isTrue();
      j.append(FileJournalStreamTest.sealed(0));
    }
    assertThat(tries).hasValue(2);
  }
}
