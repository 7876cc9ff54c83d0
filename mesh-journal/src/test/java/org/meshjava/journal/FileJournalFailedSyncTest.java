package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write or sync of the group commit that fails (a full disk, an {@code EIO} from {@code
 * fdatasync}) fails the journal, and the failed batch's lines must not outlive it in the file: the
 * waiters were told their records were not written, and a restart that read those lines would spend
 * the presentation of a serve that was refused, and hold its reservation as unresolved. Found by
 * injecting {@code fdatasync → EIO} with strace into {@code mesh serve}: the refused serve's {@code
 * Authorised} line stayed whole in the file, and the next start refused a new try of it as {@code
 * presentation-spent}. The {@link FileJournal.Syncer} seam stands in for the failing device.
 */
class FileJournalFailedSyncTest {
  @TempDir Path dir;

  /** Syncs for real until {@link #failing} is set, then throws as a failing device does. */
  static final class FailingSyncer implements FileJournal.Syncer {
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean failing;

    @Override
    public void sync(FileChannel channel, long length) throws IOException {
      calls.incrementAndGet();
      if (failing) {
        throw new IOException("Input/output error");
      }
      channel.force(false);
    }
  }

  @Test
  void aFailedSync_cutsTheRefusedRecordsFromTheFile_soARestartDoesNotReadThem() throws Exception {
    Path p = dir.resolve("j.log");
    FailingSyncer syncer = new FailingSyncer();
    long synced;
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, syncer)) {
      j.append(FileJournalStreamTest.sealed(0));
      synced = Files.size(p);
      syncer.failing = true;
      Journal.Pending first = j.enqueue(FileJournalStreamTest.sealed(1));
      Journal.Pending second = j.enqueue(FileJournalStreamTest.sealed(2));
      assertThatThrownBy(first::await)
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
      assertThatThrownBy(second::await).isInstanceOf(JournalException.class);
      assertThat(Files.size(p)).as("the failed batch is cut off again").isEqualTo(synced);
    }
    try (FileJournal reopened = FileJournal.open(p)) {
      assertThat(reopened.position().count()).isEqualTo(1);
      assertThat(reopened.recovered()).hasSize(1);
      // and the journal goes on from the last record that was durable
      reopened.append(FileJournalStreamTest.sealed(1));
      assertThat(reopened.recovered()).hasSize(2);
    }
  }

  /**
   * A device layer may throw an {@code IOException} with no message; the journal's failure then
   * named nothing ("write to … failed: null"), in the waiter's refusal and in every later one.
   */
  @Test
  void aFailedSyncWithoutAMessage_isNamedByItsClass_notAsNull() throws Exception {
    Path p = dir.resolve("j.log");
    try (FileJournal j =
        FileJournal.open(
            p,
            FileChannel::tryLock,
            (channel, length) -> {
              throw new IOException();
            })) {
      assertThatThrownBy(() -> j.append(FileJournalStreamTest.sealed(0)))
          .isInstanceOf(JournalException.class)
          .hasMessageContaining("failed: IOException")
          .hasMessageNotContaining("null");
      assertThat(j.refusesAppends()).hasValueSatisfying(r -> assertThat(r).doesNotContain("null"));
      assertThatThrownBy(() -> j.append(FileJournalStreamTest.sealed(0)))
          .hasMessageContaining("IOException")
          .hasMessageNotContaining("null");
    }
  }

  @Test
  void aFailedSync_isNeverRetried_evenOnceTheDeviceRecovers() throws Exception {
    Path p = dir.resolve("j.log");
    FailingSyncer syncer = new FailingSyncer();
    try (FileJournal j = FileJournal.open(p, FileChannel::tryLock, syncer)) {
      j.append(FileJournalStreamTest.sealed(0));
      syncer.failing = true;
      assertThatThrownBy(() -> j.append(FileJournalStreamTest.sealed(1)))
          .isInstanceOf(JournalException.class);
      int calls = syncer.calls.get();
      long size = Files.size(p);
      syncer.failing = false;
      // A sync that succeeds after one that failed proves nothing (the kernel may have dropped
      // the pages it could not write), so nothing is written or synced until the journal is
      // reopened.
      assertThatThrownBy(() -> j.append(FileJournalStreamTest.sealed(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.FAILED));
      assertThat(syncer.calls.get()).isEqualTo(calls);
      assertThat(Files.size(p)).isEqualTo(size);
      assertThat(j.refusesAppends()).hasValueSatisfying(why -> assertThat(why).contains("failed"));
    }
  }
}
