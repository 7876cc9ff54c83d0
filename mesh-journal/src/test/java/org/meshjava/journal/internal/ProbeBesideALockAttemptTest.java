package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.FileJournal;

/**
 * A read's close probes the file it read with a shared lock ({@link LockHolder#closeKeepingLocks}),
 * which the JDK lists among this process's locks until that descriptor closes. A journal opened on
 * the same file meanwhile must wait the probe out, not be refused as overlapping: regression, the
 * two were not serialised, and a steward starting on a journal that a scan had just read failed
 * {@code UNLOCKABLE} on a file no one held. The probe is held open here through a descriptor whose
 * shared lock waits on a latch, so the overlap is certain.
 */
class ProbeBesideALockAttemptTest {
  @TempDir Path dir;

  @AfterEach
  void openByName() {
    LockHolder.openByName();
  }

  @Test
  void aJournalOpenedWhileAReadsCloseProbesItsFile_waitsTheProbeOut_andIsLocked() throws Exception {
    Path journal = dir.resolve("journal.log");
    FileJournal.open(journal).close();
    CountDownLatch probing = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    // The probe runs only while this process holds some lock: another journal, held throughout.
    try (FileJournal unused = FileJournal.open(dir.resolve("other.log"))) {
      // Only the read below waits in its probe; the opening's own reads do not.
      AtomicBoolean once = new AtomicBoolean();
      LockHolder.openWith(
          file -> {
            FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
            return once.compareAndSet(false, true) ? new ProbeWaits(ch, probing, letGo) : ch;
          });
      Thread read =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (HeldJournals.ReadChannel ch = LockHolder.openToRead(journal)) {
                      ch.channel().size();
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
      assertThat(probing.await(10, TimeUnit.SECONDS)).as("the read's close probing").isTrue();
      AtomicReference<Object> opened = new AtomicReference<>();
      Thread open =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (FileJournal j = FileJournal.open(journal)) {
                      opened.set(j.locked());
                    } catch (Exception e) {
                      opened.set(e);
                    }
                  });
      // Until the opening (or a thread it waits for) waits on the probe, or has its answer (the
      // overlap, before the fix).
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (open.isAlive() && !waitsOn(read) && System.nanoTime() < until) {
        Thread.onSpinWait();
      }
      letGo.countDown();
      open.join(10_000);
      read.join(10_000);
      assertThat(opened.get()).as("the journal's opening beside the probe").isEqualTo(true);
    }
  }

  /** Whether some thread but {@code owner}, which holds it, waits for a monitor of LockHolder's. */
  private static boolean waitsOn(Thread owner) {
    for (var t : Thread.getAllStackTraces().entrySet()) {
      if (t.getKey() != owner
          && t.getKey().getState() == Thread.State.BLOCKED
          && java.util.Arrays.stream(t.getValue())
              .anyMatch(f -> f.getClassName().startsWith(LockHolder.class.getName()))) {
        return true;
      }
    }
    return false;
  }

  /** A read descriptor whose shared lock (the close's probe) is held until {@code letGo}. */
  private static final class ProbeWaits extends FileChannel {
    private final FileChannel ch;
    private final CountDownLatch probing;
    private final CountDownLatch letGo;

    ProbeWaits(FileChannel ch, CountDownLatch probing, CountDownLatch letGo) {
      this.ch = ch;
      this.probing = probing;
      this.letGo = letGo;
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      FileLock lock = ch.tryLock(position, size, shared);
      probing.countDown();
      try {
        letGo.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return lock;
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return ch.lock(position, size, shared);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return ch.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return ch.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return ch.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return ch.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      return ch.write(srcs, offset, length);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return ch.write(src, position);
    }

    @Override
    public long position() throws IOException {
      return ch.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      ch.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return ch.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      ch.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      ch.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return ch.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      return ch.transferFrom(src, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return ch.map(mode, position, size);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      ch.close();
    }
  }
}
