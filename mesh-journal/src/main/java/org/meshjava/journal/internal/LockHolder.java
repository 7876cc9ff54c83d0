package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * What holds a journal writer's lock: the file journal's one descriptor on its file (the OS lock
 * goes with it) or the PostgreSQL journal's session (the advisory lock goes with it). Both journals
 * give it up the same way when they close or fail to open. Thread-safe; what it keeps is the
 * descriptors {@link #closeKeepingLocks} may not close, at most {@link #MAX_KEPT} of them.
 */
public final class LockHolder {
  private LockHolder() {}

  /**
   * How many descriptors {@link #closeKeepingLocks} keeps open before {@link #openToRead} and
   * {@link #requireRoomToKeep} refuse to open more. Only a file this process holds locked, swapped
   * in under a name it was opening by someone who can write that folder, is kept, one per swap; a
   * process that has seen this many is under attack, and a bound on what it keeps is kept by
   * refusing to open, never by closing one whose file it still holds (which would let a lock go):
   * at the bound, those whose file it holds no more are closed first.
   */
  static final int MAX_KEPT = 32;

  /**
   * Taken around every OS file lock this module tries ({@link #tryLock}) and around {@link
   * #closeKeepingLocks}'s probe and close. The probe is a real shared lock in the JDK's table of
   * this process's locks, held until its descriptor closes; a journal's or a snapshot folder's lock
   * tried meanwhile on that file would be refused as overlapping, an {@code UNLOCKABLE} refusal of
   * a file no one holds. Serialised, no attempt ever sees a probe.
   */
  private static final Object TABLE = new Object();

  private static final Kept KEPT = new Kept(MAX_KEPT);

  /** Opens a file to read; a seam so a test can put another file under the name as it is opened. */
  @FunctionalInterface
  interface Opener {
    FileChannel open(Path file) throws IOException;
  }

  private static volatile Opener opener = file -> FileChannel.open(file, StandardOpenOption.READ);

  /** For tests: how {@link #openToRead} opens from now on. */
  static void openWith(Opener open) {
    opener = open;
  }

  /** For tests: {@link #openToRead} opens by name again. */
  static void openByName() {
    opener = file -> FileChannel.open(file, StandardOpenOption.READ);
  }

  /**
   * For tests: how many descriptors are kept, and then closes them all; only once the test has let
   * go of every lock they were kept for (closing them then lets none go).
   */
  static int closeKept() {
    return KEPT.closeAll();
  }

  /** A file lock attempt: the lock, or null where another process holds one. */
  @FunctionalInterface
  public interface Attempt {
    /** Tries the lock. */
    @Nullable FileLock tryLock() throws IOException;
  }

  /**
   * The pauses before each retry of a lock attempt another process refused (see {@link #tryLock}):
   * 1, 5 and 25 ms, so a refusal that stands is reported about 31 ms later than its first try.
   */
  static final List<Duration> RETRY_PAUSES =
      List.of(Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(25));

  /**
   * The pauses {@link #tryLock} makes: {@link #RETRY_PAUSES}, but in a test that refuses many locks
   * on purpose and counts what each refusal leaves, not how long it takes to stand.
   */
  private static volatile List<Duration> retryPauses = RETRY_PAUSES;

  /** For tests: the pauses {@link #tryLock} makes from now on; {@link #RETRY_PAUSES} restores. */
  static void pauseBeforeRetries(List<Duration> pauses) {
    retryPauses = List.copyOf(pauses);
  }

  /**
   * Runs {@code attempt}, an OS file lock a journal or a snapshot folder's claim tries, never while
   * {@link #closeKeepingLocks} probes a file (see {@link #TABLE}). Where another process refuses
   * it, it is tried again after each of {@link #RETRY_PAUSES} before the refusal stands: that
   * process may be only probing the file ({@link #closeKeepingLocks} in another process that reads
   * this journal by name takes a shared lock on it for the moment of a close), and a steward
   * starting at that instant would otherwise be refused {@code LOCKED} by a journal no one holds. A
   * real holder holds it for as long as it runs, so only the refusal's report is later. An
   * interrupt of the calling thread during a pause ends the retries with the refusal, its interrupt
   * kept. Thread-safe.
   *
   * @throws IOException what the attempt throws
   */
  public static @Nullable FileLock tryLock(Attempt attempt) throws IOException {
    List<Duration> pauses = retryPauses;
    for (int retry = 0; ; retry++) {
      FileLock lock;
      synchronized (TABLE) {
        lock = attempt.tryLock();
      }
      if (lock != null || retry == pauses.size() || Thread.currentThread().isInterrupted()) {
        return lock;
      }
      // Outside the table's turn: a probe in this process may run meanwhile. Parked until the
      // pause is over: one park may end at once (an unpark left from a Future this thread waited
      // on, a spurious wake-up), and the refusal would stand before the probe's moment had passed.
      long until = System.nanoTime() + pauses.get(retry).toNanos();
      for (long left = until - System.nanoTime();
          left > 0 && !Thread.currentThread().isInterrupted();
          left = until - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
    }
  }

  /**
   * Opens {@code file}, a file no lock is taken on, to read, for a try-with-resources block whose
   * close is {@link #closeKeepingLocks}: another name of a file this process holds locked swapped
   * in under {@code file} after the caller checked it stays locked. Thread-safe.
   *
   * @throws IOException if it cannot be opened, or this process keeps {@link #MAX_KEPT} descriptors
   *     already ({@link #requireRoomToKeep})
   */
  public static HeldJournals.ReadChannel openToRead(Path file) throws IOException {
    KEPT.requireRoom();
    return new HeldJournals.ReadChannel(opener.open(file), true);
  }

  /**
   * Refuses to open one more file whose descriptor may have to be kept: this process keeps {@link
   * #MAX_KEPT} already. Called before every open whose close is {@link #closeKeepingLocks}. Several
   * threads past this check at once may each keep one more, so the count stays within the bound
   * plus the threads opening at that moment.
   *
   * @throws IOException saying so, for the caller's {@code IO} refusal
   */
  public static void requireRoomToKeep() throws IOException {
    KEPT.requireRoom();
  }

  /**
   * Closes {@code holder}, if there is one, dropping the checked exception a failed close throws:
   * nothing more can be done about it, and the lock is released anyway once the holder is gone (the
   * OS releases a file lock with the process, the server an advisory lock with the session). An
   * unchecked exception is a bug, and passes.
   */
  public static void closeQuietly(@Nullable AutoCloseable holder) {
    if (holder == null) {
      return;
    }
    try {
      holder.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception ignored) {
      // See above: the lock goes with the process or the session.
    }
  }

  /**
   * Closes {@code channel} unless this process holds a lock on its file through another descriptor,
   * in which case it is kept open for the rest of the process's life. Closing any descriptor of a
   * file lets go every POSIX lock this process holds on that file, so a descriptor opened on a file
   * this process holds (another name of a held journal or lock file, swapped in under the name
   * opened after that name was checked) must never be closed while the holder lives; only such a
   * swap, by someone who can write the journal's folder, keeps one, and each swap keeps at most
   * one. Where this process holds no journal and no snapshot folder, nothing is asked: no lock of
   * its can go. Otherwise it is asked of the JDK's table of this process's locks, by a shared lock
   * on the whole file: refused as overlapping where one is held, else taken (or refused by another
   * process's lock) and let go with the descriptor, all while no lock of this module is tried
   * ({@link #tryLock}), which the probe's lock would otherwise refuse.
   */
  public static void closeKeepingLocks(@Nullable FileChannel channel) {
    KEPT.close(channel);
  }

  /**
   * Releases the OS file lock {@code lock} and closes {@code channel}, the descriptor it was taken
   * through, ignoring a failed release: closing the channel releases the lock as well.
   */
  public static void release(FileLock lock, FileChannel channel) {
    try {
      lock.release();
    } catch (IOException ignored) {
      // Closing the channel releases it too.
    }
    closeQuietly(channel);
  }

  /**
   * Descriptors {@link #closeKeepingLocks} keeps open, closing one would let a held lock go, and
   * the bound on how many. One for the process; a test makes its own.
   */
  static final class Kept {
    private final int bound;
    private final Set<FileChannel> channels = ConcurrentHashMap.newKeySet();

    Kept(int bound) {
      if (bound < 1) {
        throw new IllegalArgumentException("bound must be positive: " + bound);
      }
      this.bound = bound;
    }

    /** How many it keeps. */
    int size() {
      return channels.size();
    }

    /** Closes every descriptor kept; returns how many there were. See {@link #closeKept}. */
    int closeAll() {
      List<FileChannel> all = List.copyOf(channels);
      channels.removeAll(all);
      all.forEach(LockHolder::closeQuietly);
      return all.size();
    }

    /**
     * As {@link LockHolder#requireRoomToKeep}. At the bound, each descriptor kept is asked again
     * whether this process still holds its file's lock, and those whose lock has gone since (the
     * journal closed, the folder's claim let go) are closed first: closing them lets no lock go,
     * and a process that saw swaps while it held a journal is not refused for good once it holds it
     * no more.
     */
    void requireRoom() throws IOException {
      if (channels.size() >= bound) {
        closeNoLongerHeld();
      }
      int kept = channels.size();
      if (kept >= bound) {
        throw new IOException(
            "this process keeps open "
                + kept
                + " descriptors of files it holds locked that were swapped in under names it was"
                + " opening (someone who can write its folders did so), and closing one would let"
                + " that lock go; it opens no more while it holds those files or until it restarts");
      }
    }

    /** Closes each descriptor kept whose file this process no longer holds a lock on. */
    private void closeNoLongerHeld() {
      for (FileChannel channel : List.copyOf(channels)) {
        synchronized (TABLE) {
          if (!heldHere(channel) && channels.remove(channel)) {
            closeQuietly(channel);
          }
        }
      }
    }

    /** As {@link LockHolder#closeKeepingLocks}. */
    void close(@Nullable FileChannel channel) {
      if (channel == null) {
        return;
      }
      synchronized (TABLE) {
        if (!heldHere(channel)) {
          closeQuietly(channel);
          return;
        }
      }
      channels.add(channel);
    }
  }

  /**
   * Whether this process holds a lock on the file open on {@code channel}; a shared lock this takes
   * to learn it is let go when the caller closes the channel. Called holding {@link #TABLE}.
   */
  private static boolean heldHere(FileChannel channel) {
    if (!HeldJournals.holdsAny()) {
      return false;
    }
    try {
      channel.tryLock(0, Long.MAX_VALUE, true);
      return false;
    } catch (OverlappingFileLockException heldHere) {
      return true;
    } catch (IOException | RuntimeException cannotLock) {
      // No lock can be taken through it (a closed channel, a file system without locks), so none
      // this process holds is let go by its closing either.
      return false;
    }
  }
}
