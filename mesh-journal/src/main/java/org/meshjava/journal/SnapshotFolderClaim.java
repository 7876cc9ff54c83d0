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
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.FileKind;
import org.meshjava.journal.internal.HeldJournals;
import org.meshjava.journal.internal.LockHolder;
import org.meshjava.journal.internal.OwnerOnly;

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
 * under a holder (the whole folder deleted, say) no longer keeps others out; {@link #renew()} then
 * locks a new one, unless another steward claimed the folder meanwhile. Thread-safe.
 */
public final class SnapshotFolderClaim implements AutoCloseable {
  /** The name of the lock file in the claimed folder. */
  public static final String LOCK_FILE = "steward.lock";

  /**
   * The name of the file in a claimed folder that records the journal whose snapshots it holds (see
   * {@link FileSnapshotStore#claim(Path)}).
   */
  public static final String JOURNAL_FILE = "journal.path";

  /** Lock files held in this process, by their identity. */
  private static final ConcurrentHashMap<Object, Boolean> HELD = new ConcurrentHashMap<>();

  /**
   * Whether this process holds (or is taking) a snapshot folder's lock file whose identity is
   * {@code identity}: a journal's opening must not open another name of it ({@link FileJournal}).
   */
  static boolean holds(Object identity) {
    return HELD.containsKey(identity);
  }

  /** Whether this process holds, or is claiming, any snapshot folder's lock file. */
  static boolean holdsAny() {
    return !HELD.isEmpty();
  }

  /** How often a claim retries a lock file removed between its open and its lock. */
  private static final int ATTEMPTS = 3;

  private final Path dir;
  // The outermost folder this claim made: the claimed folder itself, or the first of its parents
  // that was missing too (a configured folder under folders not made yet). Null where the folder
  // was there. At close, what it made is removed again, innermost first, while each is empty.
  private final @Nullable Path madeFrom;
  // The journal this claim is for, recorded in the folder; null where the claimant named none.
  private final @Nullable SnapshotFolderOwner owner;
  // Forces the name of a folder the claim makes (at take, or again at renew) in the one above it.
  private final Forcer forcer;
  // The lock held now; null once closed.
  private @Nullable Held held;

  /** A lock file as locked: its identity, the one descriptor on it, and the lock. */
  private record Held(Object identity, FileChannel channel, FileLock lock) {
    /** Whether {@code lockFile} still names the file locked. */
    boolean names(Path lockFile) {
      try {
        return identity.equals(HeldJournals.identity(lockFile));
      } catch (IOException e) {
        return false;
      }
    }

    void release() {
      LockHolder.release(lock, channel);
      HELD.remove(identity);
    }
  }

  private SnapshotFolderClaim(
      Path dir,
      @Nullable Path madeFrom,
      @Nullable SnapshotFolderOwner owner,
      Forcer forcer,
      Held held) {
    this.dir = dir;
    this.madeFrom = madeFrom;
    this.owner = owner;
    this.forcer = forcer;
    this.held = held;
  }

  /**
   * Claims {@code dir}, creating it if absent, for the journal {@code owner} names (null: a
   * claimant that names none, whose claim neither checks nor records a journal). A folder made
   * here, and each parent made for it, has its name forced in the folder above it ({@link
   * Forcer#createDirectories}), so the snapshots later forced into it outlive a power cut.
   *
   * @throws SnapshotException {@code IN_USE} if another steward (in this process or another) holds
   *     it, or it holds the snapshots of another journal ({@link SnapshotFolderOwner}); {@code IO}
   *     if the folder or its lock file cannot be made or locked
   */
  static SnapshotFolderClaim take(Path dir, @Nullable SnapshotFolderOwner owner, Forcer forcer)
      throws SnapshotException {
    if (owner != null) {
      // Before the lock: a steward of another journal must not hold the folder even while it
      // finds out, or the steward whose snapshots these are, trying then, is refused by the lock
      // and neither serves.
      owner.check();
    }
    Path madeFrom = missingFrom(dir);
    SnapshotFolderClaim claim =
        new SnapshotFolderClaim(dir, madeFrom, owner, forcer, lock(dir, forcer));
    if (owner != null) {
      try {
        // Again under the lock: the folder's last holder may have recorded its journal since.
        owner.check();
        owner.recordIfFree(forcer);
      } catch (IOException e) {
        claim.close();
        throw cannot(dir, e);
      } catch (SnapshotException | RuntimeException e) {
        claim.close();
        throw e;
      }
    }
    return claim;
  }

  /**
   * The outermost of {@code dir} and its parents that is missing, which making {@code dir} makes;
   * null if {@code dir} is a folder already.
   */
  private static @Nullable Path missingFrom(Path dir) {
    if (Files.isDirectory(dir)) {
      return null;
    }
    Path top = dir;
    for (Path p = dir.getParent(); p != null && Files.notExists(p); p = p.getParent()) {
      top = p;
    }
    return top;
  }

  /** Locks the folder's lock file, making both if absent. */
  private static Held lock(Path dir, Forcer forcer) throws SnapshotException {
    Path lockFile = dir.resolve(LOCK_FILE);
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      Held h = lockOnce(dir, lockFile, forcer);
      if (h != null) {
        return h;
      }
    }
    throw lockFileRefusal(
        dir, lockFile, "was removed each of " + ATTEMPTS + " times it was locked");
  }

  /** One attempt; null if the file locked was removed or replaced meanwhile. */
  private static @Nullable Held lockOnce(Path dir, Path lockFile, Forcer forcer)
      throws SnapshotException {
    Object identity;
    try {
      forcer.createDirectories(dir);
      try {
        // A new file: no descriptor of it can be open in this process yet, so closing this one
        // drops no lock (see the class note).
        Files.createFile(lockFile, OwnerOnly.file(lockFile));
      } catch (FileAlreadyExistsException exists) {
        // Left by a steward that was killed, or held by one running: the lock says which.
      }
      requireRegular(dir, lockFile);
      identity = HeldJournals.identity(lockFile);
    } catch (NoSuchFileException e) {
      return null; // removed between its creation and the stat: try again
    } catch (IOException e) {
      throw cannot(dir, e);
    }
    if (HELD.putIfAbsent(identity, Boolean.TRUE) != null) {
      throw inUse(dir, "another steward in this process");
    }
    // After the entry, as a journal's opening checks this registry after making its own: of a lock
    // file and a journal that are one file, taken at once, one of the two sees the other.
    try {
      requireNotAHeldJournal(dir, lockFile, identity);
    } catch (SnapshotException e) {
      HELD.remove(identity);
      throw e;
    }
    FileChannel ch = null;
    try {
      // Not through a link put there since it was checked: the identity check below would refuse
      // its target only after opening it read-write.
      LockHolder.requireRoomToKeep();
      ch =
          FileChannel.open(
              lockFile,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE,
              java.nio.file.LinkOption.NOFOLLOW_LINKS);
      FileLock lock = LockHolder.tryLock(ch::tryLock);
      if (lock == null) {
        throw inUse(dir, "another steward process");
      }
      Held h = new Held(identity, ch, lock);
      if (!h.names(lockFile)) {
        // Locked, but no longer the file the folder names: its holder removed it as it let go.
        h.release();
        return null;
      }
      return h;
    } catch (SnapshotException e) {
      LockHolder.closeKeepingLocks(ch);
      HELD.remove(identity);
      throw e;
    } catch (IOException | OverlappingFileLockException e) {
      // Overlapping: a file this process holds was swapped in under the name since it was checked,
      // and closing this descriptor of it would let that lock go.
      LockHolder.closeKeepingLocks(ch);
      HELD.remove(identity);
      if (e instanceof NoSuchFileException) {
        return null;
      }
      throw cannot(dir, e);
    }
  }

  /**
   * Refuses a lock file that is not a regular file: it is opened read-write to be locked, and a
   * named pipe put there (which Linux opens read-write at once, and locks) or a device would be
   * opened as one, a link's target, somewhere else, written to. Whatever it is stays as it is.
   *
   * @throws SnapshotException {@code IO}, naming what is there
   */
  private static void requireRegular(Path dir, Path lockFile)
      throws SnapshotException, IOException {
    FileKind kind = FileKind.of(lockFile);
    if (kind == FileKind.FILE || kind == FileKind.NONE) {
      // None: removed since it was made; the identity read next fails and the lock is tried again.
      return;
    }
    throw lockFileRefusal(
        dir,
        lockFile,
        "is "
            + FileKind.describe(lockFile)
            + ", and a lock file must be a regular file, for it is opened read-write to be"
            + " locked; it is left as it is. Remove it, and the next claim makes a file there");
  }

  /**
   * Refuses a lock file that is another name (a hard link) of a journal file this process holds,
   * before it is opened: the JDK would refuse its lock as overlapping the journal's, and closing
   * the claim's descriptor then drops every lock this process holds on that file, the journal's
   * too, so a second steward could open the journal while this one serves. (A lock file with other
   * names that no journal here holds is locked as any: held by another process, it is refused
   * {@code IN_USE}.)
   *
   * @throws SnapshotException {@code IO}, saying so
   */
  private static void requireNotAHeldJournal(Path dir, Path lockFile, Object identity)
      throws SnapshotException {
    if (FileJournal.holds(identity)) {
      throw lockFileRefusal(
          dir,
          lockFile,
          "is another name (a hard link) of a journal file this process holds, and opening and"
              + " closing it would let that journal's lock go; it is left as it is. Remove it, and"
              + " the next claim makes a file there");
    }
  }

  /** An {@code IO} refusal of {@code dir} for what is wrong with its lock file. */
  private static SnapshotException lockFileRefusal(Path dir, Path lockFile, String what) {
    return new SnapshotException(
        SnapshotException.Reason.IO,
        "cannot lock snapshot folder " + dir + ": its lock file " + lockFile + " " + what,
        null);
  }

  /**
   * Whether the lock file is still the one locked: false once it was removed or replaced (the
   * folder deleted, say), after which another steward may claim the folder too, and once closed.
   */
  public synchronized boolean intact() {
    Held h = held;
    return h != null && h.names(lockFile());
  }

  /**
   * Makes sure the folder is still held, before a save: if its lock file was removed or replaced,
   * locks a new one (making the folder again if it was deleted) and lets the old one go; and, for a
   * claim made for a journal, records that journal as the folder's ({@link SnapshotFolderOwner}):
   * its steward runs on what the folder held, so what it saves there is that journal's.
   *
   * @throws SnapshotException {@code IN_USE} if another steward claimed the folder meanwhile,
   *     {@code IO} if it cannot be locked again or this claim was closed
   */
  public synchronized void renew() throws SnapshotException {
    relock();
    SnapshotFolderOwner o = owner;
    if (o != null) {
      try {
        o.recordOnSave(forcer);
      } catch (IOException e) {
        throw cannot(dir, e);
      }
    }
  }

  private void relock() throws SnapshotException {
    Held h = held;
    if (h == null) {
      throw new SnapshotException(
          SnapshotException.Reason.IO, "snapshot folder " + dir + ": its claim was let go", null);
    }
    if (h.names(lockFile())) {
      return;
    }
    Held renewed;
    try {
      renewed = lock(dir, forcer);
    } catch (SnapshotException e) {
      if (e.reason() != SnapshotException.Reason.IN_USE) {
        throw e;
      }
      throw new SnapshotException(
          SnapshotException.Reason.IN_USE,
          "snapshot folder "
              + dir
              + ": its lock file "
              + lockFile()
              + " was removed or replaced while this steward held it, and another steward has"
              + " claimed the folder since; not saving here, lest one delete the other's"
              + " snapshots. Give each steward a snapshot folder of its own",
          e);
    }
    h.release();
    held = renewed;
  }

  /** Whether this claim is still held: not yet closed. */
  synchronized boolean held() {
    return held != null;
  }

  /** The lock file. */
  public Path lockFile() {
    return dir.resolve(LOCK_FILE);
  }

  /**
   * Removes the lock file (while still locked, and only if it is still this claim's), and the
   * folder if this claim made it and nothing was saved into it, with the parents made for it that
   * are empty then, and lets the folder go. Idempotent. A steward that opened the file just before
   * its removal finds, once it has the lock, that the folder no longer names it, and claims a new
   * one.
   */
  @Override
  public synchronized void close() {
    Held h = held;
    if (h == null) {
      return;
    }
    held = null;
    if (h.names(lockFile())) {
      try {
        Files.deleteIfExists(lockFile());
      } catch (IOException ignored) {
        // The folder is read-only now: a lock file left behind locks nothing.
      }
      Path top = madeFrom;
      if (top != null) {
        try {
          // Refused unless empty: a folder a snapshot was saved into stays, and so does the
          // record of whose snapshots they are.
          if (owner != null && owner.snapshots().list().isEmpty()) {
            Files.deleteIfExists(dir.resolve(SnapshotFolderOwner.FILE));
          }
          Files.deleteIfExists(dir);
          // Then the parents it was made under, up to the first that was there before: a failed
          // start on a configured folder under new ones left those behind.
          Path made = dir;
          while (!made.equals(top)) {
            Path parent = made.getParent();
            if (parent == null) {
              break;
            }
            Files.deleteIfExists(parent);
            made = parent;
          }
        } catch (IOException ignored) {
          // Not empty (something else was put there meanwhile), or already gone.
        }
      }
    }
    h.release();
  }

  /**
   * Closes as {@link #close()} does, removing first what was saved into the folder if this claim
   * made it: the snapshots of a journal that the same start created and is removing ({@link
   * CreatedJournal}). They are no one else's: the folder was not there before this claim, and no
   * other steward could save into it while it was held. The folder, and the parents made for it,
   * then go with the lock file, as for any claim that made them.
   */
  synchronized void closeRemovingSaved() {
    Held h = held;
    if (h != null && madeFrom != null && h.names(lockFile())) {
      try (var files = Files.list(dir)) {
        for (Path f : files.toList()) {
          if (!f.equals(lockFile())) {
            Files.deleteIfExists(f);
          }
        }
      } catch (IOException ignored) {
        // The error that stopped the start matters more than a stray file; close removes what
        // it can.
      }
    }
    close();
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
            + ")"
            + SnapshotFolderOwner.describe(dir)
            + "; give each steward a snapshot folder of its own",
        null);
  }

  private static SnapshotException cannot(Path dir, Exception e) {
    // A missing, denied or taken name has no reason, only its path: its words say what it is
    // (what stands there, for a name taken), as the journal's own refusals do.
    String why =
        e instanceof java.nio.file.FileSystemException f && f.getReason() != null
            ? f.getReason() + " (" + f.getFile() + ")"
            : FailureWords.about(dir, e);
    return new SnapshotException(
        SnapshotException.Reason.IO,
        "cannot lock snapshot folder "
            + dir
            + ": "
            + why
            + FailureWords.remedyIfDenied(e, FileSnapshotStore.writeDenied(dir)),
        e);
  }
}
