package org.meshjava.journal.internal;

import org.jspecify.annotations.Nullable;

/**
 * What holds a journal writer's lock: the file journal's one descriptor on its file (the OS lock
 * goes with it) or the PostgreSQL journal's session (the advisory lock goes with it). Both journals
 * give it up the same way when they close or fail to open. Stateless.
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
   * Releases the OS file lock {@code lock} and closes {@code channel}, the descriptor it was taken
   * through, ignoring a failed release: closing the channel releases the lock as well.
   */
  public static void release(
      java.nio.channels.FileLock lock, java.nio.channels.FileChannel channel) {
    try {
      lock.release();
    } catch (java.io.IOException ignored) {
      // Closing the channel releases it too.
    }
    closeQuietly(channel);
  }
}
