package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lock attempt another process refuses is tried again a few times before the refusal stands: the
 * other process may hold the file only for the moment of its probe ({@link
 * LockHolder#closeKeepingLocks}, a shared lock taken while it closes a descriptor it read this file
 * through). Regression: the first refusal stood, so a steward starting on a journal while a steward
 * in another process read that journal by name was refused {@code LOCKED} by a journal no one held.
 */
class LockRefusedForAMomentTest {
  @TempDir Path dir;

  @Test
  void aLockAnotherProcessRefusesForAMoment_isTakenOnARetry() throws Exception {
    try (FileChannel ch = channel()) {
      AtomicInteger tries = new AtomicInteger();
      FileLock lock = LockHolder.tryLock(() -> tries.incrementAndGet() == 1 ? null : ch.tryLock());
      assertThat(lock).as("the lock, once the probe has let go").isNotNull();
      assertThat(tries).hasValue(2);
    }
  }

  @Test
  void aRefusalThatStands_isReturnedAfterEveryRetry() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    long start = System.nanoTime();
    FileLock lock =
        LockHolder.tryLock(
            () -> {
              tries.incrementAndGet();
              return null;
            });
    assertThat(lock).isNull();
    assertThat(tries).hasValue(LockHolder.RETRY_PAUSES.size() + 1);
    long pauses = LockHolder.RETRY_PAUSES.stream().mapToLong(d -> d.toNanos()).sum();
    assertThat(System.nanoTime() - start).as("paused between tries").isGreaterThanOrEqualTo(pauses);
  }

  /**
   * A pause woken early (an unpark left over from a {@code Future} this thread waited on, a
   * spurious wake-up) still lasts its length. Regression: each pause was one park, which such a
   * wake-up ended at once, so the refusal stood after far less than the probe's moment.
   */
  @Test
  void pausesWokenEarly_stillLastTheirLength() throws Exception {
    Thread caller = Thread.currentThread();
    AtomicBoolean done = new AtomicBoolean();
    Thread waker =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  while (!done.get()) {
                    LockSupport.unpark(caller);
                    LockSupport.parkNanos(100_000);
                  }
                });
    long start = System.nanoTime();
    FileLock lock;
    try {
      lock = LockHolder.tryLock(() -> null);
    } finally {
      done.set(true);
      waker.join();
    }
    long elapsed = System.nanoTime() - start;
    assertThat(lock).isNull();
    long pauses = LockHolder.RETRY_PAUSES.stream().mapToLong(d -> d.toNanos()).sum();
    assertThat(elapsed).as("paused between tries, woken early").isGreaterThanOrEqualTo(pauses);
  }

  /** A caller that is being interrupted is answered at once, and keeps its interrupt. */
  @Test
  void anInterruptedCaller_isGivenTheRefusalWithoutRetries_keepingItsInterrupt() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    Thread.currentThread().interrupt();
    FileLock lock;
    try {
      lock =
          LockHolder.tryLock(
              () -> {
                tries.incrementAndGet();
                return null;
              });
    } finally {
      assertThat(Thread.interrupted()).as("the caller's interrupt").isTrue();
    }
    assertThat(lock).isNull();
    assertThat(tries).hasValue(1);
  }

  private FileChannel channel() throws Exception {
    Path file = Files.createFile(dir.resolve("lock"));
    return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
  }
}
