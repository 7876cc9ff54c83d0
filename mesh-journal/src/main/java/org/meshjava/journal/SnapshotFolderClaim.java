package org.meshjava.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.internal.HeldJournals;
import org.meshjava.journal.internal.LockHolder;

/**
 * One steward's exclusive use of a snapshot folder ({@link FileSnapshotStore#claim()}), held until
 * {@link #close()} or the end of the process.
 *
 * <p>Why: the journal's own lock keeps two stewards off one journal, but two stewards on two
 * journals may be configured with one snapshot folder. Each then saves its snapshots there under
 * the same names (a snapshot is named by its record count) and deletes all but the newest two, the
 * other's included, so a restart finds the other steward's snapshot as the latest and refuses to
 * start. The claim refuses the second steward at start instead.
 *
 * <p>The lock is an OS record lock ({@code fcntl}) on the file {@value #LOCK_FILE} in the folder,
 * taken through one descriptor kept open, so the operating system drops it when the process dies
 * and a crash leaves nothing to clean up. As with the journal's lock, closing any other descriptor
 * of that file in this process would drop it, so a claim in this process is refused by an
 * in-process registry before a second descriptor is ever opened. A lock file removed or replaced
 * under a holder no longer keeps others out; {@link #intact()} says so, and the store stops saving
 * once it is false (see {@link FileSnapshotStore#save}).
 */
public final class SnapshotFolderClaim implements AutoCloseable {
  /** The name of the lock file in the claimed folder. */
  public static final String LOCK_FILE = "steward.lock";

  /** Claims held in this process, by the identity of their lock file. */
  private static final ConcurrentHashMap<Object, Boolean> HELD = new ConcurrentHashMap<>();

  /** How often a claim retries a lock file removed between its open and its lock. */
  private static final int ATTEMPTS = 3;

  private final Path dir;
  private final Path lockFile;
  // Whether this claim made the folder: removed again at close if nothing was saved into it.
  private final boolean madeFolder;
  private final Object identity;
  private final FileChannel channel;
  private final FileLock lock;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SnapshotFolderClaim(
      Path dir,
      Path lockFile,
      boolean madeFolder,
      Object identity,
      FileChannel channel,
      FileLock lock) {
    this.dir = dir;
    this.lockFile = lockFile;
    this.madeFolder = madeFolder;
    this.identity = identity;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Claims {@code dir}, creating it if absent.
   *
   * @throws SnapshotException {@code IN_USE} if another steward (in this process or another) holds
   *     it, {@code IO} if the folder or its lock file cannot be made or locked
   */
  static SnapshotFolderClaim take(Path dir) throws SnapshotException {
    Path lockFile = dir.resolve(LOCK_FILE);
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      SnapshotFolderClaim claim = takeOnce(dir, lockFile);
      if (claim != null) {
        return claim;
      }
    }
    throw new SnapshotException(
        SnapshotException.Reason.IO,
        "cannot lock snapshot folder "
            + dir
            + ": its lock file "
            + lockFile
            + " was removed each of "
            + ATTEMPTS
            + " times it was locked",
        null);
  }

  /** One attempt; null if the file locked was removed or replaced meanwhile. */
  private static @Nullable SnapshotFolderClaim takeOnce(Path dir, Path lockFile)
      throws SnapshotException {
    Object identity;
    boolean madeFolder = !Files.isDirectory(dir);
    try {
      Files.createDirectories(dir);
      try {
        // A new file: no descriptor of it can be open in this process yet, so closing this one
        // drops no lock (see the class note).
        Files.newByteChannel(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
            .close();
      } catch (FileAlreadyExistsException held) {
        // Left by a steward that was killed, or held by one running: the lock says which.
      }
      identity = HeldJournals.identity(lockFile);
    } catch (NoSuchFileException e) {
      return null; // removed between its creation and the stat: try again
    } catch (IOException e) {
      throw cannot(dir, e);
    }
    if (HELD.putIfAbsent(identity, Boolean.TRUE) != null) {
      throw inUse(dir, "another steward in this process");
    }
    FileChannel ch = null;
    try {
      ch = FileChannel.open(lockFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock = ch.tryLock();
      if (lock == null) {
        throw inUse(dir, "another steward process");
      }
      SnapshotFolderClaim claim =
          new SnapshotFolderClaim(dir, lockFile, madeFolder, identity, ch, lock);
      if (!claim.intact()) {
        // Locked, but no longer the file the folder names: its holder removed it as it let go.
        claim.close();
        return null;
      }
      return claim;
    } catch (SnapshotException e) {
      LockHolder.closeQuietly(ch);
      HELD.remove(identity);
      throw e;
    } catch (IOException | OverlappingFileLockException e) {
      LockHolder.closeQuietly(ch);
      HELD.remove(identity);
      if (e instanceof NoSuchFileException) {
        return null;
      }
      throw cannot(dir, e);
    }
  }

  /**
   * Whether the lock file is still the one locked: false once it was removed or replaced, after
   * which another steward may claim the folder too.
   */
  public boolean intact() {
    if (closed.get()) {
      return false;
    }
    try {
      return identity.equals(HeldJournals.identity(lockFile));
    } catch (IOException e) {
      return false;
    }
  }

  /** The lock file. */
  public Path lockFile() {
    return lockFile;
  }

  /**
   * Removes the lock file (while still locked, and only if it is still this claim's), and the
   * folder if this claim made it and nothing was saved into it, and lets the folder go. Idempotent.
   * A steward that opened the file just before its removal finds, once it has the lock, that the
   * folder no longer names it, and claims a new one.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      if (identity.equals(HeldJournals.identity(lockFile))) {
        Files.deleteIfExists(lockFile);
      }
    } catch (IOException ignored) {
      // Already gone, or the folder is read-only now: a lock file left behind locks nothing.
    }
    if (madeFolder) {
      try {
        // Refused unless empty: a folder a snapshot was saved into stays.
        Files.deleteIfExists(dir);
      } catch (IOException ignored) {
        // Not empty, or already gone.
      }
    }
    try {
      lock.release();
    } catch (IOException ignored) {
      // Closing the channel releases it too.
    }
    LockHolder.closeQuietly(channel);
    HELD.remove(identity);
  }

  private static SnapshotException inUse(Path dir, String holder) {
    return new SnapshotException(
        SnapshotException.Reason.IN_USE,
        "snapshot folder "
            + dir
            + " is in use by "
            + holder
            + " (it holds "
            + dir.resolve(LOCK_FILE)
            + "); give each steward a snapshot folder of its own",
        null);
  }

  private static SnapshotException cannot(Path dir, Exception e) {
    String why =
        e instanceof java.nio.file.FileSystemException f && f.getReason() != null
            ? f.getReason() + " (" + f.getFile() + ")"
            : String.valueOf(e.getMessage());
    return new SnapshotException(
        SnapshotException.Reason.IO, "cannot lock snapshot folder " + dir + ": " + why, e);
  }
}
