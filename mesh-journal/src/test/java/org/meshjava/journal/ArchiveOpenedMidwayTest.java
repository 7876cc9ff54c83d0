package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;

/**
 * A steward started while an archive is at work, at each force of it (SPEC.md 60.8): before the cut
 * the opening is refused {@code LOCKED} and leaves the archive's files (the pending segment, {@code
 * .archiving}) alone; after it the new live file is not the archive's, and an opening settles the
 * pending segment as it would after a crash, without failing the archive. Verify's read, which
 * takes no lock, reads every record once whatever step the archive has reached.
 */
class ArchiveOpenedMidwayTest {
  @TempDir Path dir;

  @Test
  void anOpeningAtEveryStepOfAnArchive_isRefusedLocked_andVerifyReadsEveryRecord()
      throws Exception {
    for (int step = 1; step <= 6; step++) {
      Path p = dir.resolve("j" + step);
      FileJournalStreamTest.journal(p, 6);
      LiveFileOlderThanArchiveTest.archiveUpTo(p, 3);
      try (FileJournal j = FileJournal.openUnsynced(p)) {
        for (int i = 6; i < 12; i++) {
          j.append(FileJournalStreamTest.sealed(i));
        }
      }
      List<JournalRecord> all = FileJournalStreamTest.scan(p, JournalPosition.GENESIS);
      CountDownLatch reached = new CountDownLatch(1);
      CountDownLatch go = new CountDownLatch(1);
      int at = step;
      int[] seen = {0};
      Forcer held =
          (channel, file, metaData) -> {
            if (++seen[0] == at) {
              reached.countDown();
              try {
                // Bounded: released at the latest when this step's checks end (below), however
                // they end; a failed one must fail the test, not hold the archive's thread.
                if (!go.await(60, TimeUnit.SECONDS)) {
                  throw new java.io.IOException("step " + at + " was never let go on");
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            channel.force(metaData);
          };
      List<byte[]> lines = LiveFileOlderThanArchiveTest.lines(p);
      CompletableFuture<Long> archive =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return FileJournal.archive(
                      p, JournalArchiveTest.positionAt(lines, 8, -1), new HashMap<>(), held);
                } catch (JournalException e) {
                  throw new IllegalStateException(e);
                }
              },
              // A thread of its own, not the common pool, which has one worker on two cores: held
              // there, it would hold every other test's task queued behind it.
              task -> Thread.ofPlatform().daemon().name("archive-step-" + at).start(task));
      try {
        awaitStep(step, reached, archive);
        checkWhileHeld(p, step, all);
      } finally {
        go.countDown();
      }
      assertThat(archive.get(60, TimeUnit.SECONDS)).isEqualTo(5);
      assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS)).isEqualTo(all);
    }
  }

  /**
   * Waits until the archive is held at its {@code step}th force; fails at once if it ends without
   * getting there (it failed, or forces less often than this test counts on), not after the bound.
   */
  private static void awaitStep(int step, CountDownLatch reached, CompletableFuture<Long> archive)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!reached.await(20, TimeUnit.MILLISECONDS)) {
      assertThat(archive).as("the archive, before its force " + step).isNotDone();
      assertThat(System.nanoTime() - deadline).as("the archive reached force " + step).isNegative();
    }
  }

  /**
   * What holds while the archive waits at its {@code step}th force: verify reads every record, and
   * an opening is refused before the cut and opens after it.
   */
  private static void checkWhileHeld(Path p, int step, List<JournalRecord> all) throws Exception {
    assertThat(FileJournalStreamTest.scan(p, JournalPosition.GENESIS))
        .as("step " + step)
        .isEqualTo(all);
    if (step <= 4) {
      // before the cut (the proof files' folder, the pending segment, its name, the live file's
      // new beginning): the journal is the archive's
      List<Path> before = folder(p);
      assertThatThrownBy(() -> FileJournal.open(p).close())
          .as("step " + step)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED));
      assertThat(folder(p)).as("step " + step).isEqualTo(before);
    } else {
      // after it, the new live file is free: its opening names the pending segment if the
      // archive has not yet, and the archive still completes
      try (FileJournal j = FileJournal.open(p)) {
        assertThat(FileJournalStreamTest.read(j, JournalPosition.GENESIS)).isEqualTo(all);
      }
      assertThat(JournalSegments.pendingFile(p, 3)).doesNotExist();
    }
  }

  /** The names in the journal's folder and its segment folder. */
  private static List<Path> folder(Path p) throws Exception {
    try (var a = Files.list(p.getParent());
        var b = Files.list(JournalSegments.directory(p))) {
      return java.util.stream.Stream.concat(a, b).sorted().toList();
    }
  }
}
