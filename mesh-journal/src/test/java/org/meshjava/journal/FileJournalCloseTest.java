package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournalInterruptTest.OnItsThread;
import org.meshjava.journal.internal.JournalFile;

/**
 * Closing a file journal while records are queued or being written, as a steward's close does when
 * a serve outlived its grace (or an application closes the journal from another thread): the close
 * writes what was queued before it and answers its waiters, and never lets go of the file while a
 * write or sync is under way.
 */
@Timeout(60)
class FileJournalCloseTest {
  @TempDir Path dir;

  /**
   * Regression: the close released the file without writing the queue, so the record's waiter led a
   * write on a closed channel, was told {@code FAILED}, and the record was lost although its
   * enqueue had been accepted.
   */
  @Test
  void aRecordQueuedBeforeTheClose_isWrittenByTheClose_andItsWaiterIsAnswered() throws Exception {
    Path p = dir.resolve("j.log");
    FileJournal j = FileJournal.open(p);
    j.append(FileJournalStreamTest.sealed(0));
    Journal.Pending queued = j.enqueue(FileJournalStreamTest.sealed(1));
    j.close();
    queued.await();
    assertThat(JournalFile.read(p).records()).hasSize(2);
  }

  /**
   * Regression: the close released the file (its lock and descriptor) while another thread's write
   * was syncing it, so that sync failed on a closed channel and the lines it had written stayed in
   * the file with their waiters told they were not written.
   */
  @Test
  void aCloseDuringAnotherThreadsSync_waitsForIt_thenWritesWhatWasQueuedAfter() throws Exception {
    Path p = dir.resolve("j.log");
    CountDownLatch syncing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FileJournal j =
        FileJournal.open(
            p,
            FileChannel::tryLock,
            FileJournalInterruptTest.holdingTheFirstSync(syncing, release));
    OnItsThread leader = new OnItsThread(() -> j.append(FileJournalStreamTest.sealed(0)));
    assertThat(syncing.await(30, TimeUnit.SECONDS)).isTrue();
    Journal.Pending queued = j.enqueue(FileJournalStreamTest.sealed(1));
    OnItsThread closer = new OnItsThread(j::close);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (closer.thread.getState() != Thread.State.WAITING
        && closer.thread.isAlive()
        && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    release.countDown();
    leader.end();
    closer.end();
    assertThat(leader.error.get()).isNull();
    assertThat(closer.error.get()).isNull();
    queued.await();
    assertThat(j.locked()).isFalse();
    JournalFile.Contents c = JournalFile.read(p);
    assertThat(c.records()).hasSize(2);
    assertThat(c.tornTail()).isZero();
  }

  /**
   * Regression: a close whose last write threw an error (the group commit rethrows an error as it
   * is) left the close before it released the file, so the OS lock stayed held by this process and
   * the journal could not be opened again until the process ended.
   */
  @Test
  void aCloseWhoseLastWriteThrowsAnError_stillReleasesTheFile() throws Exception {
    Path p = dir.resolve("j.log");
    FileJournal j =
        FileJournal.open(
            p,
            FileChannel::tryLock,
            (ch, length) -> {
              throw new StackOverflowError("the sync ran out of stack");
            });
    j.enqueue(FileJournalStreamTest.sealed(0));

    assertThatThrownBy(j::close).isInstanceOf(StackOverflowError.class);

    assertThat(j.locked()).isFalse();
    try (FileJournal again = FileJournal.open(p)) {
      assertThat(again.locked()).isTrue();
    }
  }
}
