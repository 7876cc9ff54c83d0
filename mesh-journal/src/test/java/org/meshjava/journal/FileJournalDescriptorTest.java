package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.ShortLockRetries;

/**
 * Opening and closing a journal, successfully or not, leaves no file descriptor behind: a steward
 * that retries a locked or unlockable journal for months must not run out of them. Counted from
 * {@code /proc/self/fd} over many cycles, so one descriptor leaked per cycle shows above whatever
 * else the JVM opens meanwhile; skipped where there is no {@code /proc} (CI runs on Linux).
 */
// Each refused open waits out the lock's retries (about 31 ms); a pause changes nothing counted.
@ExtendWith(ShortLockRetries.class)
class FileJournalDescriptorTest {
  private static final Path FDS = Path.of("/proc/self/fd");
  private static final int CYCLES = 64;

  @TempDir Path dir;

  @BeforeEach
  void procIsThere() {
    assumeTrue(Files.isDirectory(FDS), "no /proc/self/fd on this platform");
  }

  static long openDescriptors() throws IOException {
    try (Stream<Path> s = Files.list(FDS)) {
      return s.count();
    }
  }

  /** Runs {@code cycle} {@link #CYCLES} times; fewer than half as many descriptors may remain. */
  static void assertNoLeak(Cycle cycle) throws Exception {
    cycle.run(-1); // class loading and first-use caches, outside the count
    long before = openDescriptors();
    for (int i = 0; i < CYCLES; i++) {
      cycle.run(i);
    }
    assertThat(openDescriptors() - before).isLessThan(CYCLES / 2);
  }

  @FunctionalInterface
  interface Cycle {
    void run(int i) throws Exception;
  }

  @Test
  void creatingOpeningAndClosingJournals_leavesNoDescriptorOpen() throws Exception {
    assertNoLeak(
        i -> {
          try (FileJournal j = FileJournal.open(dir.resolve("new-" + i + ".log"))) {
            j.append(FileJournalStreamTest.sealed(0));
          }
        });
    Path p = dir.resolve("again.log");
    assertNoLeak(
        i -> {
          try (FileJournal j = FileJournal.open(p)) {
            assertThat(j.locked()).isTrue();
          }
        });
  }

  @Test
  void aRefusedOpen_leavesNoDescriptorOpen_andTheJournalCanBeOpenedAfter() throws Exception {
    Path p = dir.resolve("j.log");
    assertNoLeak(
        i ->
            assertThatThrownBy(
                    () ->
                        FileJournal.open(
                            p,
                            ch -> {
                              throw new IOException("No locks available");
                            }))
                .isInstanceOfSatisfying(
                    JournalException.class,
                    e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.UNLOCKABLE)));
    // another process holds the lock: tryLock answers null
    assertNoLeak(
        i ->
            assertThatThrownBy(() -> FileJournal.open(p, ch -> null))
                .isInstanceOfSatisfying(
                    JournalException.class,
                    e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED)));
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.locked()).isTrue();
    }
  }

  @Test
  void anIoErrorDuringRecovery_failsTheOpen_andReleasesTheJournal() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(FileJournalStreamTest.sealed(0));
    }
    // the channel fails once the lock is taken, so recovery's first read is an I/O error
    FileJournal.Locker failing =
        ch -> {
          FileLock lock = ch.tryLock();
          ch.close();
          return lock;
        };
    assertThatThrownBy(() -> FileJournal.open(p, failing))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.IO));
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.position().count()).isEqualTo(1);
    }
  }
}
