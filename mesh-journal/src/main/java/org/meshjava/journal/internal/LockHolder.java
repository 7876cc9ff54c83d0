package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What holds a journal writer's lock: the file journal's one descriptor on its file (the OS lock
 * goes with it) or the PostgreSQL journal's session (the advisory lock goes with it). Both journals
 * give it up the same way when they close or fail to open. Thread-safe; what it keeps is the
 * descriptors {@link #closeKeepingLocks} may not close.
 */
public final class LockHolder {
  private LockHolder() {}

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
   * one. Whether a lock is held here is asked of the JDK's table of this process's locks, by a
   * shared lock on the whole file: refused as overlapping where one is held, else taken (or refused
   * by another process's lock) and let go with the descriptor.
   */
  public static void closeKeepingLocks(@Nullable FileChannel channel) {
    if (channel == null) {
      return;
    }
    try {
      channel.tryLock(0, Long.MAX_VALUE, true);
    } catch (OverlappingFileLockException heldHere) {
      KEPT.add(channel);
      return;
    } catch (IOException | RuntimeException cannotLock) {
      // No lock can be taken through it (a closed channel, a file system without locks), so none
      // this process holds is let go by its closing either.
    }
    closeQuietly(channel);
  }

  /** Descriptors {@link #closeKeepingLocks} keeps open: closing one would let a held lock go. */
  private static final Set<FileChannel> KEPT = ConcurrentHashMap.newKeySet();

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
}
