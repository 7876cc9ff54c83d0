package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalFile;

/**
 * Interrupting a thread that uses the file journal (a cancelled serve, an executor shut down now)
 * never reaches the journal's channel: a {@code FileChannel} closes itself when a thread using it
 * is interrupted, which would fail the journal for every later append and drop its OS lock. The
 * caller's I/O completes, and it keeps its interrupt. The same for the snapshot store's files.
 */
class FileJournalInterruptTest {
  @TempDir Path dir;

  @AfterEach
  void clearInterrupt() {
    // A failing assertion must not leave the interrupt to the next test on this thread.
    Thread.interrupted();
  }

  @Test
  void anAppendOnAnInterruptedThread_isWritten_andTheJournalKeepsItsLock() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(FileJournalStreamTest.sealed(0));
      Thread.currentThread().interrupt();
      j.append(FileJournalStreamTest.sealed(1));
      assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
      assertThat(j.locked()).isTrue();
      assertThat(j.refusesAppends()).isEmpty();
      j.append(FileJournalStreamTest.sealed(2));
      assertThat(j.position().count()).isEqualTo(3);
    }
    assertThat(JournalFile.read(p).records()).hasSize(3);
  }

  @Test
  void aLeaderInterruptedDuringItsSync_stillMakesItsBatchDurable_andStaysInterrupted()
      throws Exception {
    Path p = dir.resolve("j.log");
    CountDownLatch syncing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FileJournal.Syncer blocking = holdingTheFirstSync(syncing, release);
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, blocking)) {
      OnItsThread leader = new OnItsThread(() -> j.append(FileJournalStreamTest.sealed(0)));
      assertThat(syncing.await(30, TimeUnit.SECONDS)).isTrue();
      leader.thread.interrupt();
      release.countDown();
      leader.end();
      assertThat(leader.error.get()).isNull();
      assertThat(leader.interruptedAfter).isTrue();
      assertThat(j.locked()).isTrue();
      j.append(FileJournalStreamTest.sealed(1));
    }
    assertThat(JournalFile.read(p).records()).hasSize(2);
  }

  @Test
  void aFollowerAwaitingUninterruptibly_waitsThroughAnInterrupt_forItsRecordToBeDurable()
      throws Exception {
    Path p = dir.resolve("j.log");
    CountDownLatch syncing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FileJournal.Syncer blocking = holdingTheFirstSync(syncing, release);
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, blocking)) {
      Thread leader = Thread.ofPlatform().start(() -> appendQuietly(j, 0));
      assertThat(syncing.await(30, TimeUnit.SECONDS)).isTrue();
      Journal.Pending second = j.enqueue(FileJournalStreamTest.sealed(1));
      OnItsThread follower = new OnItsThread(second::awaitUninterruptibly);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (follower.thread.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      follower.thread.interrupt();
      release.countDown();
      follower.end();
      leader.join(30_000);
      assertThat(follower.error.get()).isNull();
      assertThat(follower.interruptedAfter).isTrue();
      assertThat(j.position().count()).isEqualTo(2);
    }
    assertThat(JournalFile.read(p).records()).hasSize(2);
  }

  @Test
  void aReadOnAnInterruptedThread_readsEverything_andTheJournalKeepsItsLock() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(FileJournalStreamTest.sealed(0));
      j.append(FileJournalStreamTest.sealed(1));
      Thread.currentThread().interrupt();
      List<JournalRecord> read = FileJournalStreamTest.read(j, JournalPosition.GENESIS);
      assertThat(Thread.interrupted()).isTrue();
      assertThat(read).hasSize(2);
      assertThat(j.locked()).isTrue();
      j.append(FileJournalStreamTest.sealed(2));
    }
    assertThat(JournalFile.read(p).records()).hasSize(3);
  }

  @Test
  void anOpenOnAnInterruptedThread_opensAndLocks_andKeepsTheInterrupt() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(FileJournalStreamTest.sealed(0));
    }
    Thread.currentThread().interrupt();
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(Thread.interrupted()).isTrue();
      assertThat(j.locked()).isTrue();
      j.append(FileJournalStreamTest.sealed(1));
    }
    assertThat(JournalFile.read(p).records()).hasSize(2);
  }

  @Test
  void aSnapshotSavedAndReadOnAnInterruptedThread_isWhole_andTheInterruptIsKept() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    Thread.currentThread().interrupt();
    store.save(FileSnapshotStoreTest.at(5));
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(store.latestBuffer())
        .hasValueSatisfying(
            b ->
                assertThat(b)
                    .isEqualTo(java.nio.ByteBuffer.wrap(FileSnapshotStoreTest.at(5).encoded())));
    assertThat(Thread.interrupted()).isTrue();
    assertThat(store.latest())
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(FileSnapshotStoreTest.at(5).encoded()));
  }

  /** Journal work. */
  @FunctionalInterface
  interface Work {
    void run() throws JournalException;
  }

  /** Journal work on a thread of its own: what it threw, and whether it ended interrupted. */
  static final class OnItsThread {
    final AtomicReference<Throwable> error = new AtomicReference<>();
    final AtomicBoolean interruptedAfter = new AtomicBoolean();
    final Thread thread;

    OnItsThread(Work work) {
      thread =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      work.run();
                    } catch (Throwable t) {
                      error.set(t);
                    }
                    interruptedAfter.set(Thread.currentThread().isInterrupted());
                  });
    }

    void end() throws InterruptedException {
      thread.join(30_000);
      assertThat(thread.isAlive()).isFalse();
    }
  }

  /**
   * A syncer that holds the first sync, whatever interrupts its thread, until {@code release}
   * (having counted down {@code syncing}), then forces as the production one does: a thread
   * interrupted meanwhile reaches the force with its interrupt set.
   */
  static FileJournal.Syncer holdingTheFirstSync(CountDownLatch syncing, CountDownLatch release) {
    AtomicBoolean holdFirst = new AtomicBoolean(true);
    return (ch, length) -> {
      if (holdFirst.getAndSet(false)) {
        syncing.countDown();
        awaitThroughInterrupts(release);
      }
      ch.force(false);
    };
  }

  private static void appendQuietly(Journal j, int i) {
    try {
      j.append(FileJournalStreamTest.sealed(i));
    } catch (JournalException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits for {@code latch} whatever interrupts come, and sets the interrupt again after. */
  private static void awaitThroughInterrupts(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        if (!latch.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("never released");
        }
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
