package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;

/**
 * An append interrupted while it waits for another thread's group commit gives up with {@code IO}
 * and keeps its interrupt, so the thread's owner (an executor shutting down) still sees it; the
 * leader's sync and later appends are unaffected.
 */
class GroupCommitInterruptTest {
  @TempDir Path dir;

  @Test
  void aFollowerInterruptedWhileTheLeaderSyncs_throwsIo_andStaysInterrupted() throws Exception {
    Path p = dir.resolve("j.log");
    CountDownLatch syncing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean holdFirst = new AtomicBoolean(true);
    FileJournal.Syncer blocking =
        (ch, length) -> {
          if (holdFirst.getAndSet(false)) {
            syncing.countDown();
            try {
              release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          ch.force(false);
        };
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, blocking)) {
      AtomicReference<Throwable> leaderError = new AtomicReference<>();
      Thread leader =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      j.append(FileJournalStreamTest.sealed(0));
                    } catch (Throwable t) {
                      leaderError.set(t);
                    }
                  });
      assertThat(syncing.await(30, TimeUnit.SECONDS)).isTrue();

      AtomicReference<Throwable> followerError = new AtomicReference<>();
      AtomicBoolean interruptedAfter = new AtomicBoolean();
      Journal.Pending second = j.enqueue(FileJournalStreamTest.sealed(1));
      Thread follower =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      second.await();
                    } catch (Throwable t) {
                      followerError.set(t);
                    }
                    interruptedAfter.set(Thread.currentThread().isInterrupted());
                  });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (follower.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(follower.getState()).isEqualTo(Thread.State.WAITING);
      follower.interrupt();
      follower.join(30_000);
      assertThat(followerError.get())
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.IO));
      assertThat(interruptedAfter).isTrue();

      release.countDown();
      leader.join(30_000);
      assertThat(leaderError.get()).isNull();
      // the interrupted append's record is still queued: the next append makes both durable
      j.append(FileJournalStreamTest.sealed(2));
      assertThat(j.position().count()).isEqualTo(3);
    }
    assertThat(JournalFile.read(p).records()).hasSize(3);
  }
}
