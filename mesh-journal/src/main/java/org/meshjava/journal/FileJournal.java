package org.meshjava.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.ChainedReader;
import org.meshjava.journal.internal.EmptyLine;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.GroupCommit;
import org.meshjava.journal.internal.HeldJournals;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalIo;
import org.meshjava.journal.internal.JournalSegments;
import org.meshjava.journal.internal.LineReader;
import org.meshjava.journal.internal.LockHolder;
import org.meshjava.journal.internal.OwnerOnly;
import org.meshjava.journal.internal.RecordChain;
import org.meshjava.journal.internal.RecordCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference journal (§2.2): an append-only file of one JSON record per line.
 *
 * <p><b>Exclusive access.</b> Opening takes an OS-level exclusive lock ({@link
 * FileChannel#tryLock()}, {@code fcntl} on Linux and macOS) on the journal file itself, through one
 * descriptor that stays open for as long as the journal does. The operating system releases the
 * lock when the process dies, so a crash leaves nothing to clean up. A second opener, in this
 * process or another, fails with {@link JournalException.Reason#LOCKED}; where the platform cannot
 * lock at all, opening fails with {@link JournalException.Reason#UNLOCKABLE} rather than run
 * unprotected.
 *
 * <p>Design note: the lock follows the file, not the name. A lock keyed by path (a {@code
 * <journal>.lock} sidecar beside the name the journal was given, say) lets a second steward in
 * through a symlink, a hard link, or after the sidecar is deleted, and two stewards then spend one
 * grant. A record lock on the journal's own inode holds whatever name reaches it. Its one hazard is
 * that a POSIX record lock belongs to the (process, inode) pair and is dropped when <em>any</em>
 * descriptor of that inode closes in the process. So:
 *
 * <ul>
 *   <li>this class never opens a second descriptor on a journal it holds: recovery reads through
 *       the locked channel, and an in-process registry keyed by the file's identity ({@link
 *       BasicFileAttributes#fileKey()}: device and inode on Linux and macOS, read by {@code stat},
 *       which opens nothing) refuses a second opener <em>before</em> it opens a descriptor whose
 *       closing would release the holder's lock;
 *   <li>{@link JournalFile#read} on a file this process holds reads through the holder's channel
 *       for the same reason;
 *   <li>and because other code in the process could still open and close the file, the journal does
 *       not trust the lock alone: before every write it checks that the file is still the inode it
 *       locked (its path still names it) and still the size it wrote. Any difference (another
 *       writer appended or truncated, the file was replaced or removed) fails the journal ({@link
 *       JournalException.Reason#FAILED}): it writes nothing more, so a second writer can never
 *       interleave records with it.
 * </ul>
 *
 * <p><b>Recovery.</b> Opening reads every record and checks the chain; a final line without a
 * newline is an append cut short and is dropped (with a log line): it is left out of every read,
 * and cut from the file just before the first append. Not at opening: a steward that opens the
 * journal and then refuses to start (its snapshot covers that line, say) leaves the file as it
 * found it, so no line is lost to a start that did not happen. A broken chain refuses to open,
 * naming the record.
 *
 * <p><b>Group commit.</b> {@link #enqueue} fixes a record's sequence and chain under a short lock
 * and queues its bytes; {@link Pending#await()} makes them durable through {@link GroupCommit}: one
 * waiter at a time leads, writes every queued line and calls {@link FileChannel#force(boolean)}
 * once, so concurrent appends share a sync; none returns before its own bytes were forced. A failed
 * write or sync fails the journal: every append not yet durable, and every later one, throws {@link
 * JournalException.Reason#FAILED}. The failed batch's lines are cut from the file again (a full
 * disk leaves a part line; a failed sync may leave lines the kernel will not keep), so a restart
 * does not read records whose appends were refused. The sync is never retried: after one fails, one
 * that succeeds proves nothing.
 *
 * <p><b>Interrupts.</b> Every read, write and sync through the locked channel runs on a thread of
 * its own ({@link JournalIo}), so interrupting a caller (a cancelled serve) neither closes the
 * channel, which would fail the journal and release its lock, nor is lost: the caller waits for its
 * I/O and keeps its interrupt.
 *
 * <p>Thread-safe.
 */
public final class FileJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(FileJournal.class);

  /**
   * The file a journal's opening on this thread has locked, until the opening ends: its recovery
   * reads its segments, and one of them that is this file is read through this descriptor ({@link
   * #heldChannel}).
   */
  private static final ThreadLocal<@Nullable LockedFile> OPENING = new ThreadLocal<>();

  /** Journals open in this process, by file identity (see the design note). */
  private static final ConcurrentHashMap<Object, AtomicReference<FileJournal>> HELD =
      new ConcurrentHashMap<>();

  static {
    // JournalFile (internal) reads a held journal through its holder's channel.
    HeldJournals.register(
        FileJournal::readHeld,
        new HeldJournals.Holds() {
          @Override
          public @Nullable String heldAs(Object identity) {
            return FileJournal.heldAs(identity);
          }

          @Override
          public @Nullable FileChannel channel(Object identity) {
            return heldChannel(identity);
          }

          @Override
          public boolean any() {
            return !HELD.isEmpty() || SnapshotFolderClaim.holdsAny();
          }
        });
  }

  /** Takes the OS lock; a seam so the cannot-lock path can be tested. */
  @FunctionalInterface
  interface Locker {
    /** Returns the lock, or null if another process holds one. */
    FileLock tryLock(FileChannel channel) throws IOException;

    /**
     * Opens the journal's file {@code real} to be locked, after its identity was checked; a seam so
     * a test can put another file under the name in between.
     */
    default FileChannel open(Path real) throws IOException {
      return FileChannel.open(real, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }
  }

  /**
   * Makes the bytes written so far durable. A seam, like {@link Locker}, so a test can observe each
   * sync point of the group commit (the crash model in {@code GroupCommitCrashModelTest}).
   */
  @FunctionalInterface
  interface Syncer {
    /** The production syncer: {@link FileChannel#force(boolean)} of the data. */
    Syncer FORCE = (channel, length) -> channel.force(false);

    /** Forces {@code channel}, whose first {@code length} bytes this journal has now written. */
    void sync(FileChannel channel, long length) throws IOException;
  }

  /**
   * Removes the journal's file for {@link #closeAndRemove}. A seam, like {@link Locker}, so a test
   * can check what is still held at the moment the file goes.
   */
  @FunctionalInterface
  interface Remover {
    /** The production remover: {@link Files#delete}. */
    Remover DELETE = Files::delete;

    /** Removes the name {@code path}. */
    void remove(Path path) throws IOException;
  }

  private final Path path;

  /**
   * The name the journal was opened by, made absolute ({@link #path} is where it led at open, every
   * symbolic link followed). The checks around each write follow this name afresh, not {@link
   * #path}: a link (the journal's own, or a folder's above it) pointed elsewhere while this runs
   * makes the name its operator restarts on lead to another file.
   */
  private final Path named;

  private final LockedFile file;
  private final Syncer syncer;
  private final Forcer forcer;

  /** The sequence and {@code prev} of the live file's first record (after archiving, not 0). */
  private final long firstSeq;

  /** The chains this journal has read or written: an append records a new one first. */
  private final RecordCodec codec;

  /** Advanced only by {@link #commits}, under its append lock. */
  private final RecordChain chain;

  private final GroupCommit<RecordChain.Encoded> commits;

  /** Appends are not forced ({@link #openUnsynced}); set once, right after opening. */
  private volatile boolean unsynced;

  /** The file's length as this journal wrote it; written by the sync leader only. */
  private long length;

  /**
   * Bytes of a final line without a newline that opening found after {@link #length}; cut from the
   * file before the first append writes (guarded by the group commit's single writer).
   */
  private long torn;

  /** The durable end: every record written and forced, and the file length after it. */
  private volatile JournalPosition durable;

  private FileJournal(
      Path path, Path named, LockedFile file, Tail tail, Syncer syncer, Forcer forcer) {
    this.path = path;
    this.named = named;
    this.file = file;
    this.syncer = syncer;
    this.forcer = forcer;
    this.firstSeq = tail.firstSeq();
    this.codec = new RecordCodec();
    this.chain = new RecordChain(codec, tail.end().count(), tail.end().lastHash());
    this.durable = tail.end();
    this.commits =
        new GroupCommit<>(
            path.toString(),
            tail.end().count() - 1L,
            chain::advance,
            RecordChain.Encoded::record,
            this::writeBatch);
    this.length = tail.end().locator();
    this.torn = tail.torn();
  }

  /**
   * Opens (creating if absent, with any folder missing above it, each folder's name and then the
   * file's forced to storage before this returns) the journal at {@code path}, locks it, and
   * recovers its records. Any name of the file will do (a symlink, a hard link): the lock is the
   * file's. A symlink that points at nothing yet is followed, and the journal created where it
   * points (in a folder that exists). A file replaced under the path while this waited for its lock
   * ({@code mesh journal archive} renames a new file over the journal) is let go and the new one
   * opened, so appends never go to a file with no name. Once the lock is held, what an archive
   * stopped midway left is settled (SPEC.md 60.8): a {@code <journal>.archiving} file is removed, a
   * pending segment written before the archive's cut is removed and one written before it is named;
   * an opening refused {@code LOCKED} leaves them to the holder.
   *
   * @throws JournalException {@code LOCKED} if another steward holds it, {@code UNLOCKABLE} if no
   *     lock can be had, {@code CORRUPT} naming the first bad record, or when {@code path} leads to
   *     one of a journal's archived segments rather than a live journal, or to a live file older
   *     than the segments archived beside it (it holds no record after their last, begins before
   *     the last one, or, where the journal carries the archive's marker, begins where the last one
   *     begins), or a pending segment no archive leaves lies among them, {@code IO}. Checked, as
   *     throughout the journal's API. A steward's builder that meets the same causes while it
   *     replays the records reports them as the unchecked {@code StewardStartException}, which
   *     carries this exception and its reason, as it does every refusal to start
   */
  public static FileJournal open(Path path) throws JournalException {
    return open(path, FileChannel::tryLock);
  }

  /**
   * Opens the journal at {@code path} as {@link #open(Path)} does, for a steward that keeps its
   * snapshots in {@code snapshotFolder} rather than beside the journal. The folder tells one case
   * apart: a one-line file whose first bytes were overwritten is refused {@code CORRUPT} naming its
   * record, as it is with a snapshot or segment folder beside it, when the folder records this
   * journal as its own; without that proof it is "not a mesh journal", as {@link #open(Path)} says.
   *
   * @throws JournalException as {@link #open(Path)}
   */
  public static FileJournal open(Path path, Path snapshotFolder) throws JournalException {
    // Checked first: the folder is read only when the journal is refused, so a null would
    // otherwise pass every healthy open and surface later as a NullPointerException in a refusal.
    Objects.requireNonNull(snapshotFolder, "snapshotFolder");
    try {
      return open(path);
    } catch (JournalException e) {
      throw withSnapshotFolder(e, path, snapshotFolder);
    }
  }

  /**
   * {@code e}, the refusal of the journal at {@code path}, as it reads when its steward keeps its
   * snapshots in {@code snapshotFolder}: a one-line file refused as no journal is refused {@code
   * CORRUPT} at its record when that folder records this file as its journal ({@link #open(Path,
   * Path)}); any other refusal is {@code e} itself. The one rule for a lock-taking open and a
   * read-only check alike, so that both reach the same verdict.
   */
  private static JournalException withSnapshotFolder(
      JournalException e, Path path, Path snapshotFolder) {
    if (e.reason() == JournalException.Reason.CORRUPT && e.seq().isEmpty()) {
      Optional<JournalException> damaged = onlyRecordDamagedFor(path, snapshotFolder);
      if (damaged.isPresent()) {
        return damaged.get();
      }
    }
    return e;
  }

  /**
   * The refusal of {@code path} as a journal of one record damaged in its first bytes, when {@code
   * folder} records it as its journal ({@link SnapshotFolderOwner}) and its one line has a record's
   * shape past those bytes; empty otherwise, or if the file cannot be read.
   */
  private static Optional<JournalException> onlyRecordDamagedFor(Path path, Path folder) {
    // On a journal I/O thread: an interrupt on the caller's would close the descriptor, which may
    // be of a file this process holds locked swapped in under the name, and let that lock go; and
    // it would fail the read of the folder's record, changing the verdict.
    return JournalIo.call(() -> onlyRecordDamagedHere(path, folder));
  }

  /** {@link #onlyRecordDamagedFor} on this thread. */
  private static Optional<JournalException> onlyRecordDamagedHere(Path path, Path folder) {
    Optional<Path> recorded = SnapshotFolderOwner.recorded(folder);
    if (recorded.isEmpty()
        || !SnapshotFolderOwner.realPath(recorded.get())
            .equals(SnapshotFolderOwner.realPath(path))) {
      return Optional.empty();
    }
    try (HeldJournals.ReadChannel read = LockHolder.openToRead(path)) {
      FileChannel ch = read.channel();
      long size = ch.size();
      if (size < 2 || size > LineReader.MAX_LINE_BYTES + 1L) {
        return Optional.empty();
      }
      byte[] all = readRange(ch, 0, size);
      byte[] line = Arrays.copyOf(all, all.length - 1);
      for (byte b : line) {
        if (b == '\n') {
          return Optional.empty();
        }
      }
      if (all[all.length - 1] != '\n' || regionIs(line, 0, SEQ_PREFIX) || !shapedAsARecord(line)) {
        return Optional.empty();
      }
      return Optional.of(
          onlyRecordDamaged(
              path,
              onlyRecordSeq(path),
              folder + ", its snapshot folder, records it as its journal"));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Why a new journal at {@code path} should not be started there: its folder does not exist
   * ({@link #open(Path)} would create it), or a file stands where a folder of the path should be.
   * Empty when the folder exists. For a caller that takes the path from a person ({@code mesh
   * serve}'s {@code --journal}, the Spring starter's {@code mesh.journal}): a mistyped folder name
   * would otherwise start a steward on a new, empty journal with every grant's spend back at zero,
   * so such a caller refuses a new journal whose folder is missing and leaves making it to the
   * operator. The text names the folder, or the file in the way, and what to do.
   */
  public static Optional<String> missingFolder(Path path) {
    Path folder = path.toAbsolutePath().getParent();
    if (folder == null || Files.isDirectory(folder)) {
      return Optional.empty();
    }
    // mkdir -p cannot make a folder where a file stands: say which file is in the way.
    for (Path above = folder; above != null; above = above.getParent()) {
      if (Files.exists(above)) {
        if (!Files.isDirectory(above)) {
          return Optional.of(
              above
                  + " is a file, not a folder, so no journal can be made under it; check the"
                  + " path");
        }
        break;
      }
    }
    return Optional.of(
        "its folder "
            + folder
            + " does not exist, and a new journal is not started in a folder made on the spot"
            + " (a mistyped folder would start one with every grant's spend back at zero); check"
            + " the path, or create the folder first (mkdir -p "
            + folder
            + ")");
  }

  /**
   * Opens the journal at {@code path} as {@link #open(Path)} does, for writing many records fast
   * where durability per record does not matter (generating a journal for a benchmark, an import):
   * appends are written but not forced, so an append returns before its record is on storage, and
   * {@link #close()} forces them all. Never give one to a steward that serves: {@link #durable()}
   * says false.
   *
   * @throws JournalException as {@link #open(Path)}
   */
  public static FileJournal openUnsynced(Path path) throws JournalException {
    return openUnsynced(path, Forcer.OS);
  }

  static FileJournal openUnsynced(Path path, Forcer forcer) throws JournalException {
    FileJournal j = open(path, FileChannel::tryLock, Syncer.FORCE, forcer);
    j.unsynced = true;
    return j;
  }

  static FileJournal open(Path path, Locker locker) throws JournalException {
    return open(path, locker, Syncer.FORCE);
  }

  static FileJournal open(Path path, Locker locker, Syncer syncer) throws JournalException {
    return open(path, locker, syncer, Forcer.OS);
  }

  static FileJournal open(Path path, Locker locker, Syncer syncer, Forcer forcer)
      throws JournalException {
    // Opening reads through the locked channel: off the caller's thread, as every use of it is.
    return JournalIo.call(() -> openRetrying(path, locker, syncer, forcer));
  }

  private static FileJournal openRetrying(Path path, Locker locker, Syncer syncer, Forcer forcer)
      throws JournalException {
    for (int attempt = 1; ; attempt++) {
      FileJournal j = openOnce(path, locker, syncer, forcer);
      if (j != null) {
        return j;
      }
      if (attempt == REOPEN_ATTEMPTS) {
        throw new JournalException(
            JournalException.Reason.IO,
            "cannot open "
                + path
                + ": the file was replaced each of "
                + REOPEN_ATTEMPTS
                + " times it was locked",
            null);
      }
    }
  }

  /** How often an open retries a file replaced between its open and its lock. */
  private static final int REOPEN_ATTEMPTS = 3;

  /**
   * One attempt at {@link #open}; null if the file locked is no longer the one {@code path} names
   * (see there).
   */
  private static @Nullable FileJournal openOnce(
      Path path, Locker locker, Syncer syncer, Forcer forcer) throws JournalException {
    // Before anything is created: a new file in a segment folder would itself be taken for a
    // segment, one holding no record.
    JournalSegments.requireNotSegment(path);
    if (!Files.isSymbolicLink(path)) {
      // Before a folder is made for it; a link's target is checked where it is resolved.
      JournalSegments.requireNameFits(path, path);
    }
    Path real;
    Object identity;
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        forcer.createDirectories(parent);
      }
      if (!Files.exists(path)) {
        // A name that is a symlink to nothing yet: the file is made where the link points (the
        // lock is the file's, whatever name reached it), and CREATE_NEW on that final name, for
        // the reason below.
        Path create = Files.isSymbolicLink(path) ? danglingTarget(path) : path;
        JournalSegments.requireNameFits(path, create);
        // Checked before the file is made: a new journal beside segments would be refused at once
        // (below), and an empty file left behind would then stand where the live one is missing.
        requireAfterArchive(path, 0, 0);
        try {
          // A new file: no descriptor of it can be open in this process yet. Never open without
          // CREATE_NEW here: closing a descriptor of a file this process holds drops its lock.
          Files.createFile(create, OwnerOnly.file(create));
          // The new name is durable only once its folder is: without this, the first records
          // could be forced into a file that a power cut then leaves with no name.
          Path folder = create.toAbsolutePath().getParent();
          if (folder != null) {
            forcer.forceDirectory(folder);
          }
        } catch (FileAlreadyExistsException raced) {
          // Someone else created it; go on and take the lock like any opener.
        } catch (java.nio.file.NoSuchFileException e) {
          if (create.equals(path)) {
            throw e;
          }
          throw new JournalException(
              JournalException.Reason.IO,
              "cannot open "
                  + path
                  + ": it is a symbolic link to "
                  + create
                  + ", which does not exist, and its folder does not either; create the folder,"
                  + " or point the link at an existing journal",
              e);
        }
      }
      real = path.toRealPath();
      JournalSegments.requireNameFits(path, real);
      if (!Files.isRegularFile(real)) {
        // /dev/null would take every record and "sync" it, so grants would be honoured on a
        // journal that keeps nothing; a pipe would block the first read for ever.
        throw new JournalException(
            JournalException.Reason.IO,
            "cannot open "
                + path
                + ": not a regular file; a journal must be a file whose synced writes are kept"
                + " (§2.2)",
            null);
      }
      identity = identity(real);
    } catch (IOException e) {
      throw openRefused(path, e);
    }
    AtomicReference<FileJournal> slot = new AtomicReference<>();
    if (HELD.putIfAbsent(identity, slot) != null) {
      throw held(path, real, "another steward in this process");
    }
    try {
      requireNotAClaimedLockFile("cannot open", path, identity);
    } catch (JournalException e) {
      HELD.remove(identity, slot);
      throw e;
    }
    FileChannel ch = null;
    FileLock lock = null;
    try {
      LockHolder.requireRoomToKeep();
      ch = locker.open(real);
      if (!identity.equals(identity(real))) {
        throw new IOException("the file was replaced while it was being opened");
      }
    } catch (IOException e) {
      throw abandon(ch, identity, slot, openRefused(path, e));
    }
    try {
      FileChannel opened = ch;
      lock = LockHolder.tryLock(() -> locker.tryLock(opened));
    } catch (IOException | UnsupportedOperationException | OverlappingFileLockException e) {
      throw abandon(
          ch,
          identity,
          slot,
          new JournalException(
              JournalException.Reason.UNLOCKABLE,
              "cannot take an exclusive lock on journal "
                  + path
                  + " ("
                  + FailureWords.of(e)
                  + "); refusing to run without one (§2.2)",
              e));
    }
    if (lock == null) {
      throw abandon(ch, identity, slot, held(path, real, "another steward process"));
    }
    LockedFile locked = new LockedFile(identity, ch, lock);
    if (!stillNamed(real, identity)) {
      // Locked, but not the file the path names now: an archive renamed its new file over it
      // (under the lock we waited out), or a first start that failed removed it. Records appended
      // here would go to a file with no name; the caller opens again, whatever is there now.
      locked.release();
      return null;
    }
    OPENING.set(locked);
    try {
      // Left by an archive killed before its rename. Only a holder of this file's lock writes it
      // (an archive's rename ends its writing), and that is this opener now: a steward starting as
      // well as an archive, so no stale copy of the journal's tail outlives the next start.
      removeArchivingCopy(path, real);
      Tail tail = endOf(ch, path);
      // An archive killed before it named its segment left it pending: finished or removed here,
      // under the lock, before anything reads the segments (SPEC.md 60.8).
      settlePending(path, real, tail.firstSeq(), tail.end().count(), forcer);
      requireAfterArchive(path, tail.firstSeq(), tail.end().count());
      if (tail.torn() > 0) {
        LOG.warn(
            "journal {}: dropping a final line of {} bytes with no newline (an append cut short);"
                + " it is cut from the file before the first append",
            path,
            tail.torn());
      }
      ch.position(tail.end().locator());
      FileJournal journal =
          new FileJournal(real, path.toAbsolutePath(), locked, tail, syncer, forcer);
      slot.set(journal);
      return journal;
    } catch (JournalException e) {
      locked.release();
      throw e;
    } catch (IOException e) {
      locked.release();
      throw recoveryRefused(real, path, e);
    } finally {
      OPENING.remove();
    }
  }

  /**
   * How many symbolic links {@link #danglingTarget} follows, as Linux does before {@code ELOOP}.
   */
  private static final int MAX_LINK_HOPS = 40;

  /**
   * The name that the symbolic link {@code link}, pointing at nothing that exists, leads to once
   * every link on the way is followed: where a file created through it appears. Each link's target
   * is taken relative to that link's folder, as the kernel does, and not normalised ({@code ..}
   * after a link is the kernel's to resolve).
   */
  private static Path danglingTarget(Path link) throws IOException {
    Path at = link;
    for (int hops = 0; Files.isSymbolicLink(at); hops++) {
      if (hops == MAX_LINK_HOPS) {
        throw new java.nio.file.FileSystemException(
            link.toString(), null, "too many levels of symbolic links");
      }
      Path to = Files.readSymbolicLink(at);
      Path folder = at.toAbsolutePath().getParent();
      at = folder == null ? to : folder.resolve(to);
    }
    return at;
  }

  /**
   * Refuses a journal with no record reached through {@code link}, a symbolic link, where the name
   * of the link, or of any link it leads through, has an archive's files beside it: its segment
   * folder, its marker or the marker's twin (SPEC.md 60.8). That name was then an archived
   * journal's live file, and a link was put in its place, to nothing (a new journal would be made
   * where it points) or to an empty file; the journal there begins afresh, beside none of them, and
   * every presentation and budget spent in the archived records could be spent again, as the live
   * file removed or emptied is refused for ({@link #requireAfterArchive}). Every link on the way
   * counts: a journal archived through a link keeps its archive beside the file the link led to,
   * and that file replaced by a link leaves the first link's name with nothing beside it.
   */
  private static void requireNoArchiveBesideLink(Path link) throws JournalException {
    List<Path> left = new java.util.ArrayList<>();
    Path at = link;
    Path besideOf = link;
    boolean onTheWay = false;
    try {
      for (int hops = 0; hops < MAX_LINK_HOPS && Files.isSymbolicLink(at); hops++) {
        Path name = at.getFileName();
        if (name != null && left.isEmpty()) {
          for (Path f :
              List.of(
                  at.resolveSibling(name + JournalSegments.EXTENSION),
                  at.resolveSibling(name + JournalSegments.MARKER),
                  at.resolveSibling("." + name + JournalSegments.MARKER))) {
            if (Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
              left.add(f);
              besideOf = at;
              onTheWay = hops > 0;
            }
          }
        }
        Path folder = at.toAbsolutePath().getParent();
        Path to = Files.readSymbolicLink(at);
        at = folder == null ? to : folder.resolve(to);
      }
    } catch (IOException unreadable) {
      // A link that cannot be read: the open that follows it fails, naming it.
    }
    if (left.isEmpty()) {
      return;
    }
    throw new JournalException(
        JournalException.Reason.CORRUPT,
        "cannot open "
            + link
            + ": it is a symbolic link to "
            + at
            + (Files.exists(at) ? ", which holds no record" : ", which does not exist")
            + ", and beside "
            + (onTheWay ? besideOf + ", a link on the way," : "the link")
            + " lie "
            + left
            + ", which an archive of a journal of that name leaves; a journal where the"
            + " link points would begin without the records archived from it, and every"
            + " presentation and budget spent in them could be spent again. Put back the"
            + " journal's live file (SPEC.md 60.8)",
        null);
  }

  /** Whether {@code real} still names the file of {@code identity}. */
  private static boolean stillNamed(Path real, Object identity) {
    try {
      return identity.equals(identity(real));
    } catch (IOException e) {
      return false; // removed, or its folder is gone: not the journal's file any more
    }
  }

  /**
   * What a denied opening says to do. Worded for every opener: a steward's start ({@code mesh
   * serve}, an application's), and a {@code mesh journal} command run on a steward's journal, for
   * which another path is no remedy (an earlier wording named only {@code mesh serve --journal}).
   * The journal is not told who opens it.
   */
  static final String OPEN_DENIED_REMEDY =
      "grant this user write access to the journal and its folder, or run as the user who owns"
          + " them (a steward starting afresh may be given another journal path instead)";

  /**
   * The refusal of an opening of {@code path} that {@code e} failed. A denied file or folder also
   * says what to do: "permission denied" alone left an operator to guess whether the journal, its
   * folder or a folder above was at fault.
   */
  private static JournalException openRefused(Path path, IOException e) {
    return refused("cannot open", path, e, OPEN_DENIED_REMEDY);
  }

  /**
   * What a denied archive of the journal at {@code path} says to do. An archive writes beside the
   * journal (its marker, the marker's twin, the live file's new beginning) and in its segment
   * folder, so both must be writable; "permission denied" and a path alone left an operator to
   * guess which (the journal's file itself was writable, or the archive's opening would have been
   * refused first).
   */
  private static String archiveDenied(Path path) {
    Path folder = path.toAbsolutePath().getParent();
    return "grant this user write access to the journal's folder "
        + (folder == null ? path : folder)
        + " and to its segment folder "
        + JournalSegments.directory(path)
        + ", or run as the user who owns them";
  }

  /**
   * The refusal of an opening of the journal whose file is {@code real} that {@code e} failed as it
   * settled what an archive stopped midway left ({@code at}: the journal, for its {@code
   * .archiving} copy, or a pending segment). A denied one says what to do, as a denied archive
   * does: the files to remove or name lie in the journal's folder and its segment folder, and an
   * operator told "cannot recover J: permission denied: J.archiving" alone had to guess which
   * folder to open up.
   */
  static JournalException recoveryRefused(Path real, Path at, IOException e) {
    return refused("cannot recover", at, e, archiveDenied(real));
  }

  /**
   * The {@code IO} refusal ({@link #io}) of {@code what} on {@code path} that {@code e} failed,
   * followed by {@code remedy} where {@code e} is a permission denied.
   */
  private static JournalException refused(String what, Path path, IOException e, String remedy) {
    JournalException refused = io(what, path, e);
    String ifDenied = FailureWords.remedyIfDenied(e, remedy);
    return ifDenied.isEmpty()
        ? refused
        : new JournalException(refused.reason(), refused.detail() + ifDenied, e);
  }

  /** An {@code IO} failure: {@code what} (e.g. "cannot read") {@code where}, and why. */
  private static JournalException io(String what, Object where, IOException e) {
    // A line longer than any record is damage to the file, not a failing disk.
    JournalException.Reason reason =
        e instanceof LineReader.TooLong
            ? JournalException.Reason.CORRUPT
            : JournalException.Reason.IO;
    return new JournalException(
        reason, what + " " + where + ": " + FailureWords.about(where, e), e);
  }

  /**
   * Whether this process holds (or is opening) the journal file whose identity is {@code identity}:
   * a snapshot folder's claim must not open another name of it ({@link SnapshotFolderClaim}).
   */
  static boolean holds(Object identity) {
    return HELD.containsKey(identity);
  }

  /**
   * The descriptor of the journal file of identity {@code identity} that a read of it as something
   * else (a segment) may use with positional reads, never closing it: the held journal's, or the
   * one an opening on this thread has locked; null where neither is (another thread's opening may
   * hold it, unpublished: {@link #heldAs} refuses that).
   */
  static @Nullable FileChannel heldChannel(Object identity) {
    LockedFile opening = OPENING.get();
    if (opening != null && opening.identity().equals(identity)) {
      return opening.channel();
    }
    AtomicReference<FileJournal> slot = HELD.get(identity);
    FileJournal j = slot == null ? null : slot.get();
    return j == null ? null : j.file.channel();
  }

  /**
   * What this process holds the file of identity {@code identity} as, locked: "a snapshot folder's
   * lock file", "a journal" (one held or being opened), or null. A file that is either must not be
   * opened by a read of something else, whose closing would let that lock go ({@link
   * HeldJournals#openToRead}, {@link FileSnapshotStore}'s reads).
   */
  static @Nullable String heldAs(Object identity) {
    if (SnapshotFolderClaim.holds(identity)) {
      return "a snapshot folder's lock file";
    }
    return holds(identity) ? "a journal" : null;
  }

  /**
   * Refuses the file {@code path} names, of identity {@code identity}, where it is a snapshot
   * folder's lock file that this process holds (a hard link of it): before it is opened, by a
   * steward's opening and by every read that takes no lock alike. The JDK would refuse a lock on it
   * as overlapping the claim's, and closing any descriptor of it drops every lock this process
   * holds on the file, the claim's too, so another steward could take the folder and delete this
   * one's snapshots.
   *
   * @param what what was refused, as the refusal begins ("cannot open", "cannot read")
   * @throws JournalException {@code IO}, saying so
   */
  private static void requireNotAClaimedLockFile(String what, Path path, Object identity)
      throws JournalException {
    if (SnapshotFolderClaim.holds(identity)) {
      throw new JournalException(
          JournalException.Reason.IO,
          what
              + " "
              + path
              + ": it is another name (a hard link) of a snapshot folder's lock file that this"
              + " process holds, and opening and closing it would let that folder's lock go; it"
              + " is left as it is. Give the journal a file of its own",
          null);
    }
  }

  /**
   * The journal this process holds at the file {@code path} names, if one is open; null if none,
   * and the caller then reads the file through a descriptor of its own. Refused where closing that
   * descriptor would let a lock of this process go: a snapshot folder's lock file held here ({@link
   * #requireNotAClaimedLockFile}), or a journal a steward here is still opening (its lock may be
   * taken already).
   *
   * @throws JournalException {@code IO} or {@code LOCKED}, as above
   */
  private static @Nullable FileJournal holder(Path path) throws IOException, JournalException {
    Object identity = identity(path.toRealPath());
    AtomicReference<FileJournal> held = HELD.get(identity);
    if (held == null) {
      requireNotAClaimedLockFile("cannot read", path, identity);
      return null;
    }
    FileJournal j = held.get();
    if (j == null) {
      throw beingOpened();
    }
    return j;
  }

  /** A {@code LOCKED} refusal of a read: a steward in this process is opening the journal. */
  private static JournalException beingOpened() {
    return new JournalException(
        JournalException.Reason.LOCKED,
        "the journal is being opened by a steward in this process; read it again shortly",
        null);
  }

  /** A {@code LOCKED} refusal: the journal {@code path} (the file {@code real}) is held. */
  private static JournalException held(Path path, Path real, String holder) {
    return new JournalException(
        JournalException.Reason.LOCKED,
        "journal "
            + path
            + " is held by "
            + holder
            + (real.equals(path.toAbsolutePath()) ? "" : " (it is " + real + ")"),
        null);
  }

  /**
   * Undoes a failed opening before its lock was taken, and returns {@code failure} to throw. The
   * descriptor may be of a file swapped in under the name since its identity was checked, one this
   * process holds locked (refused then as replaced, or its lock as overlapping): it is closed only
   * where that lets no lock of this process go ({@link LockHolder#closeKeepingLocks}).
   */
  private static JournalException abandon(
      @Nullable FileChannel ch,
      Object identity,
      AtomicReference<FileJournal> slot,
      JournalException failure) {
    LockHolder.closeKeepingLocks(ch);
    HELD.remove(identity, slot);
    return failure;
  }

  /**
   * The journal file as opened and locked: its identity (see the design note), the one descriptor
   * this journal keeps on it, and the OS lock taken through that descriptor. Released together.
   */
  private record LockedFile(Object identity, FileChannel channel, FileLock lock) {
    /** Releases the lock, closes the descriptor, and lets this process open the file again. */
    void release() {
      LockHolder.release(lock, channel);
      HELD.remove(identity);
    }
  }

  /**
   * Where the live file ends, found from its last lines only, so opening costs the same whatever
   * the journal's length: the end (count, hash of the last whole line, its byte length), a torn
   * final line's length, and the first record's sequence. The records themselves are checked by
   * {@link #read}, from wherever a restart starts.
   */
  private record Tail(JournalPosition end, int torn, long firstSeq) {}

  private static Tail tail(FileChannel ch, Path path) throws IOException, JournalException {
    Tail tail = endOf(ch, path);
    requireAfterArchive(path, tail.firstSeq(), tail.end().count());
    return tail;
  }

  /**
   * Refuses the live file {@code path}, holding records {@code firstSeq} to {@code count - 1}, when
   * the segments archived beside it show it is not the file they were cut from but an older one: it
   * holds no record after the last one archived, or it begins before the last segment does.
   *
   * <p>Why: a segment, a copy or hard link of one, or a copy of the journal taken before its last
   * archive, put in the live file's place, is a valid stretch of the chain, so every record check
   * passes, and a start without a snapshot (or with the snapshots removed) replays it alone: every
   * spend recorded after its end comes back. An archive always leaves at least its last record in
   * the live file, and the live file then begins where the last segment ends (or, when an archive
   * was killed before its rename, at the first record of the segment it was writing, which is then
   * a copy of the live file's first lines); so the live file always holds a record past the last
   * one archived, and never begins before the last segment. One listing of the segment folder and
   * the last segment's last line, so opening still costs the same for any length.
   *
   * <p>A copy of the journal taken before its last archive that still holds records after the
   * archived ones and begins at the last segment's first record is refused where the journal
   * carries the marker beside it (an archive there names a segment only after its cut, so no crash
   * leaves that); without the marker (a journal an older version archived) it reads as that
   * version's archive killed before its rename, and opens. Pending segments are judged first, as an
   * opening under the lock leaves them ({@link #pendingVerdicts}), so {@code mesh journal verify}
   * agrees.
   *
   * <p>What this cannot see: a copy of the live file taken since the last archive; and anything
   * with the segment folder moved away or renamed, or restored with the live file from the same
   * copy.
   */
  private static void requireAfterArchive(Path path, long firstSeq, long count)
      throws JournalException {
    if (count == 0 && Files.isSymbolicLink(path)) {
      requireNoArchiveBesideLink(path);
    }
    List<JournalSegments.Segment> segments;
    try {
      segments = JournalSegments.list(path);
    } catch (JournalException notAFolder) {
      // Something else where the folder goes: a read that needs the segments refuses it, naming
      // it; the records after them are still read (JournalArchiveTest), so it proves nothing here.
      return;
    }
    // Judged as an opening under the lock leaves them (verify, which does not lock, included): a
    // pending segment to be removed is left out, one to be finished stands for its segment.
    List<JournalSegments.Segment> removed =
        pendingVerdicts(path, segments, firstSeq, count).stream()
            .filter(v -> !v.finish())
            .map(PendingVerdict::segment)
            .toList();
    segments = segments.stream().filter(s -> !removed.contains(s)).toList();
    if (segments.isEmpty()) {
      return;
    }

    // Not held to a readable last line here: a segment cut or edited is refused by the read that
    // needs it, in that read's words (a steward's start reports it as a refusal to start), so this
    // says only what a last line that reads as a record shows (and, below, what its first shows
    // of its name).
    JournalSegments.Segment last = segments.getLast();
    // What an archive killed before its cut leaves in a folder archived by a version that named the
    // segment first; under the marker, no crash leaves it, whatever the segment holds.
    boolean copyUnderTheMarker =
        count > 0 && !last.pending() && last.firstSeq() == firstSeq && JournalSegments.marked(path);
    long lastArchived;
    try {
      lastArchived = lastArchived(last);
    } catch (JournalException unreadable) {
      if (copyUnderTheMarker) {
        throw beginsWhereTheLastSegmentBegins(path, last, firstSeq);
      }
      return;
    }
    if (count > 0 && firstSeq > last.firstSeq() && firstSeq <= lastArchived) {
      // The last segment holds lines past where the live file begins: added to the segment after
      // the archive (SegmentOverlapTest), which a read of it refuses naming the segment.
      return;
    }
    boolean beginsBefore = firstSeq < last.firstSeq();
    if (!beginsBefore && count > lastArchived + 1) {
      if (copyUnderTheMarker) {
        JournalSegments.refuseIfMisnamed(last);
        throw beginsWhereTheLastSegmentBegins(path, last, firstSeq);
      }
      return;
    }
    // Before the live file is blamed: a last segment renamed to a later record than its first
    // makes a sound live file look as if it began before the last cut. The segment's name is then
    // what is wrong, and the refusal names it.
    JournalSegments.refuseIfMisnamed(last);
    throw new JournalException(
        JournalException.Reason.CORRUPT,
        "journal "
            + path
            + " is older than the records archived from it: the live file "
            + (count == 0 ? "holds no record" : "holds records " + firstSeq + " to " + (count - 1))
            + ", but archived segment "
            + last.file()
            + (lastArchived < last.firstSeq()
                ? " begins at record " + last.firstSeq()
                : " holds records " + last.firstSeq() + " to " + lastArchived)
            + (beginsBefore
                ? ", so the live file begins before the last archive cut it"
                : ", so the live file holds nothing after what was archived")
            + " (an archived segment, a copy of one, or an earlier copy of the journal was put in"
            + " its place); serving from it would let every presentation and budget spent after"
            + " its last record be spent again. Put back the live file that goes on from the"
            + " segments (restore it from a copy); to roll the journal back to this copy on"
            + " purpose, move "
            + JournalSegments.directory(path)
            + " away and put back the segments saved with this copy",
        null);
  }

  /**
   * The refusal of a live file that begins at record {@code firstSeq}, where {@code last}, the last
   * segment under its final name beside a journal that carries the marker, begins too. An archive
   * there names a segment only once the live file was cut past it, so no crash leaves this: the
   * live file is a copy of the journal taken before that archive (SPEC.md 60.8).
   */
  private static JournalException beginsWhereTheLastSegmentBegins(
      Path path, JournalSegments.Segment last, long firstSeq) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        "journal "
            + path
            + " is older than the records archived from it: the live file begins at record "
            + firstSeq
            + ", where archived segment "
            + last.file()
            + " begins, and where "
            + JournalSegments.marker(path)
            + " or its twin "
            + JournalSegments.markerTwin(path)
            + " is there (an archive writes both before its first segment) an archive names a"
            + " segment only once the live file has been cut past it, so the live file"
            + " is a copy of the journal taken before that archive; serving from it would let"
            + " every presentation and budget spent after the copy was taken be spent again. Put"
            + " back the live file that goes on from the segments (restore it from a copy); to"
            + " roll the journal back to this copy on purpose, move "
            + JournalSegments.directory(path)
            + " away and put back the segments saved with this copy",
        null);
  }

  /**
   * What an opening under the journal's lock does with a pending segment: {@code finish} it (give
   * it its final name: the archive that wrote it had cut the live file, so it holds the only copy
   * of its records) or remove it (the archive was killed before its cut, and the live file still
   * holds every record it copied).
   */
  private record PendingVerdict(JournalSegments.Segment segment, boolean finish) {}

  /**
   * The verdict on each pending segment among {@code segments}, for a live file holding records
   * {@code firstSeq} to {@code count - 1}. An archive writes the marker, forces it, then writes the
   * pending segment whole and forces it before it cuts the live file, and names the segment only
   * after the cut is forced; so a pending segment is one of two things. Named for the live file's
   * first record, it was written before the cut and is removed. Holding the records just before the
   * live file's first, it was cut from it and is finished. Anything else (no marker, a final
   * segment of the same name, not a file, records that do not reach the live file, a live file that
   * holds nothing or begins before it) no archive leaves: {@code CORRUPT}, naming it, and left
   * where it is, for it may hold the only copy of its records.
   */
  private static List<PendingVerdict> pendingVerdicts(
      Path path, List<JournalSegments.Segment> segments, long firstSeq, long count)
      throws JournalException {
    List<PendingVerdict> out = new java.util.ArrayList<>();
    for (JournalSegments.Segment s : segments) {
      if (!s.pending()) {
        continue;
      }
      if (!Files.isRegularFile(s.file(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        throw strayPending(path, s, "is not a file");
      }
      if (!JournalSegments.marked(path)) {
        throw strayPending(
            path,
            s,
            "lies beside a journal without "
                + JournalSegments.marker(path)
                + " or its twin "
                + JournalSegments.markerTwin(path)
                + ", which an archive writes before its first pending segment");
      }
      if (Files.exists(
          JournalSegments.file(path, s.firstSeq()), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        throw strayPending(path, s, "lies beside a segment of the same name");
      }
      if (count > 0 && s.firstSeq() == firstSeq) {
        out.add(new PendingVerdict(s, false));
        continue;
      }
      if (count == 0) {
        throw strayPending(path, s, "holds archived records, but the live file holds none");
      }
      if (s.firstSeq() > firstSeq) {
        throw strayPending(
            path,
            s,
            "holds records after the live file's first, " + firstSeq + ": the live file is older");
      }
      JournalSegments.checkNamed(s);
      long last = lastArchived(s);
      if (last != firstSeq - 1) {
        throw strayPending(
            path,
            s,
            "holds records "
                + s.firstSeq()
                + " to "
                + last
                + ", but the live file begins at record "
                + firstSeq
                + " (an archive's pending segment ends just before it)");
      }
      out.add(new PendingVerdict(s, true));
    }
    return out;
  }

  /** The refusal of a pending segment that no archive leaves ({@link #pendingVerdicts}). */
  private static JournalException strayPending(Path path, JournalSegments.Segment s, String what) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        "journal "
            + path
            + ": pending segment "
            + s.file()
            + " "
            + what
            + ", which no archive leaves (an archive writes a segment under that name until the"
            + " live file is cut, then names it); it may hold the only copy of its records, so it"
            + " is left where it is: restore the segment folder and the live file from one copy,"
            + " or move it away once its records are found elsewhere",
        null);
  }

  /**
   * Finishes or removes the pending segments an archive killed midway left ({@link
   * #pendingVerdicts}), forcing the segment folder after each, under the lock of the journal at
   * {@code path} (the file {@code real}).
   *
   * <p>A segment to finish was left by an archive that renamed its cut over the journal, and it may
   * have been stopped before it forced the journal's folder: the cut is forced here first, as the
   * archive forces it before naming the segment. Otherwise a power cut could undo the cut and keep
   * the name, and would take with the cut file every record this opening's steward goes on to
   * append and sync into it.
   */
  private static void settlePending(Path path, Path real, long firstSeq, long count, Forcer forcer)
      throws JournalException {
    List<JournalSegments.Segment> segments;
    try {
      segments = JournalSegments.list(path);
    } catch (JournalException notAFolder) {
      return; // refused by the read that needs the segments, as requireAfterArchive says
    }
    boolean cutForced = false;
    for (PendingVerdict v : pendingVerdicts(path, segments, firstSeq, count)) {
      Path pending = v.segment().file();
      try {
        Path folder = real.getParent();
        if (v.finish() && !cutForced && folder != null) {
          forcer.forceDirectory(folder);
          cutForced = true;
        }
        if (v.finish()) {
          nameSegment(pending, JournalSegments.file(path, v.segment().firstSeq()));
          LOG.warn(
              "journal {}: named the segment {} that an archive stopped after cutting the live"
                  + " file left pending",
              path,
              pending);
        } else {
          Files.delete(pending);
        }
        forcer.forceDirectory(JournalSegments.directory(path));
      } catch (IOException e) {
        throw recoveryRefused(real, pending, e);
      }
    }
  }

  /**
   * Gives the pending segment {@code pending} its final name {@code segment}. Once the archive's
   * cut is renamed into place, the new live file is not under the archive's lock, so a steward
   * starting then may name the segment first (as its opening settles what it finds); the name is
   * then there, which is all either wanted.
   */
  private static void nameSegment(Path pending, Path segment) throws IOException {
    try {
      Files.move(pending, segment, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (java.nio.file.NoSuchFileException e) {
      if (!Files.isRegularFile(segment)) {
        throw e;
      }
    }
  }

  /**
   * The sequence of the last whole record in {@code segment}, read from its last line alone; the
   * record before its first when it holds none (an archive killed as it began to write it).
   */
  private static long lastArchived(JournalSegments.Segment segment) throws JournalException {
    Path file = segment.file();
    try (HeldJournals.ReadChannel read = HeldJournals.openToRead(file)) {
      FileChannel ch = read.channel();
      long good = lastNewline(ch, ch.size());
      if (good == 0) {
        return segment.firstSeq() - 1;
      }
      long start = lastNewline(ch, good - 1);
      if (start == good - 1) {
        throw start == 0
            ? EmptyLine.refused(file, 0, segment.firstSeq() - 1)
            : emptyLineAtTheEnd(ch, file, start);
      }
      LineReader.checkLength(start, good - 1 - start);
      return seqOf(readRange(ch, start, good - 1), lineAt(start, file));
    } catch (IOException e) {
      throw io("cannot read", file, e);
    }
  }

  private static Tail endOf(FileChannel ch, Path path) throws IOException, JournalException {
    long size = ch.size();
    long good = lastNewline(ch, size);
    // An append writes one record line, so a final line cut short is shorter than any record can
    // be; a longer one is damage (a file filled or grown by something else), not a torn write, and
    // dropping it would cut what may be records without a word. scan and inspect refuse it too.
    LineReader.checkLength(good, size - good);
    int torn = (int) (size - good);
    if (good == 0) {
      // A first append cut short begins as a record does, for as many bytes as it has; anything
      // else without a newline (JSON written without one) is no torn record, and the first append
      // would cut it away. A power loss can leave zeros where the append's bytes were to go (the
      // length written before the data), so zeros may follow whatever of the prefix it holds,
      // and nothing but zeros: other bytes after them are no append's.
      byte[] start = readRange(ch, 0, Math.min(size, SEQ_PREFIX.length));
      boolean asARecord = Arrays.equals(start, 0, start.length, SEQ_PREFIX, 0, start.length);
      if (!asARecord && !(beginsAsATornRecord(start) && zeros(ch, start.length, size))) {
        throw notAJournal(path);
      }
      return new Tail(JournalPosition.GENESIS, torn, 0);
    }
    // The first line first: a file that is no journal at all (a README, an image) is said to be
    // none, not named by what a JSON parser finds wrong with its last line.
    byte[] first = java.util.Objects.requireNonNull(new LineReader(ch, 0, good).next());
    if (first.length == 0 && good > 1) {
      // An empty line before the first record is the edit an empty line is anywhere else, said in
      // the same words, not a file that is no journal.
      byte[] next = readRange(ch, 1, Math.min(good, 1 + NEXT_HEAD_MAX));
      int digits = regionIs(next, 0, SEQ_PREFIX) ? seqEnd(next) - SEQ_PREFIX.length : 0;
      if (digits > 0 && digits <= 18) {
        long seq =
            Long.parseLong(new String(next, SEQ_PREFIX.length, digits, StandardCharsets.US_ASCII));
        throw EmptyLine.refused(path, 0, seq - 1);
      }
    }
    if (!regionIs(first, 0, SEQ_PREFIX)) {
      // A journal whose first bytes were damaged is still a journal: told apart by the line after
      // its first, which begins as a record after the first does (record 1, or in a live file whose
      // first records were archived, the one after its first). Refused as not a journal, its
      // operator would look for the right file rather than restore this one.
      long second = first.length + 1L;
      long next = secondRecordSeq(readRange(ch, second, Math.min(good, second + NEXT_HEAD_MAX)));
      if (next > 0) {
        throw firstRecordDamaged(path, next - 1);
      }
      if (second == good && shapedAsARecord(first)) {
        // One line, so no next record to tell it by: a record's shape past its first bytes, and a
        // folder beside the file that only a journal has, say it is one.
        Optional<Path> folder = journalFolderBeside(path);
        if (folder.isPresent()) {
          throw onlyRecordDamaged(path, onlyRecordSeq(path), folder.get() + " is beside it");
        }
      }
      throw notAJournal(path);
    }
    long lastStart = lastNewline(ch, good - 1);
    if (lastStart == good - 1) {
      throw emptyLineAtTheEnd(ch, path, lastStart);
    }
    LineReader.checkLength(lastStart, good - 1 - lastStart);
    byte[] last = readRange(ch, lastStart, good - 1);
    long lastSeq = seqOf(last, lineAt(lastStart, path));
    long firstSeq = lastSeq;
    if (lastStart > 0) {
      firstSeq = seqOf(first, lineAt(0, path));
    }
    return new Tail(
        new JournalPosition(lastSeq + 1, Optional.of(ContentId.ofBytes(last)), good),
        torn,
        firstSeq);
  }

  /**
   * The refusal of a file whose last line, starting at {@code lastStart}, is empty: names the first
   * of the empty lines that end the file and the record before them. The first line is a record's
   * (checked before), so a non-empty line precedes them.
   */
  private static JournalException emptyLineAtTheEnd(FileChannel ch, Path path, long lastStart)
      throws IOException, JournalException {
    long first = lastStart;
    long before = lastNewline(ch, first - 1);
    while (before == first - 1) {
      first = before;
      before = lastNewline(ch, first - 1);
    }
    LineReader.checkLength(before, first - 1 - before);
    return EmptyLine.refused(
        path, first, seqOf(readRange(ch, before, first - 1), lineAt(before, path)));
  }

  /**
   * How every record's line begins ({@link RecordCodec#encode} writes {@code seq} first, and
   * decoding accepts only that encoding). A file whose first line does not is no damaged journal
   * but another kind of file (a README, an image, other JSON): {@link #notAJournal}.
   */
  private static final byte[] SEQ_PREFIX = "{\"seq\":".getBytes(StandardCharsets.US_ASCII);

  /** What follows a later record's {@code seq}: the hash of the record before ({@code prev}). */
  private static final byte[] PREV_AFTER_SEQ = ",\"prev\":\"".getBytes(StandardCharsets.US_ASCII);

  /**
   * The most bytes {@link #secondRecordSeq} reads: the prefix, 19 digits, {@link #PREV_AFTER_SEQ}.
   */
  private static final int NEXT_HEAD_MAX = SEQ_PREFIX.length + 19 + PREV_AFTER_SEQ.length;

  /**
   * The {@code seq} a line beginning with {@code head} holds when it begins as a record after a
   * journal's first does: {@link #SEQ_PREFIX}, a sequence above 0 without leading zeros, then
   * {@link #PREV_AFTER_SEQ}; 0 when it does not.
   */
  private static long secondRecordSeq(byte[] head) {
    int at = SEQ_PREFIX.length;
    if (!regionIs(head, 0, SEQ_PREFIX) || head.length <= at || head[at] == '0') {
      return 0;
    }
    int end = seqEnd(head);
    if (end == at || end - at > 18 || !regionIs(head, end, PREV_AFTER_SEQ)) {
      return 0;
    }
    long seq = 0;
    for (int i = at; i < end; i++) {
      seq = seq * 10 + (head[i] - '0');
    }
    return seq;
  }

  /**
   * Where the digits of the {@code seq} end in {@code line}, which begins with {@link #SEQ_PREFIX}.
   */
  private static int seqEnd(byte[] line) {
    int at = SEQ_PREFIX.length;
    while (at < line.length && line[at] >= '0' && line[at] <= '9') {
      at++;
    }
    return at;
  }

  /** Whether {@code line} holds {@code expected} from index {@code at}. */
  private static boolean regionIs(byte[] line, int at, byte[] expected) {
    return line.length >= at + expected.length
        && Arrays.equals(line, at, at + expected.length, expected, 0, expected.length);
  }

  /**
   * The refusal of a journal whose first line does not begin as a record does, while its second
   * line is record {@code seq + 1}: record {@code seq} was damaged after it was written (its first
   * bytes overwritten), and the file is to be restored, not replaced by another.
   */
  private static JournalException firstRecordDamaged(Path path, long seq) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        seq,
        "the first line of "
            + path
            + " is damaged: it does not begin {\"seq\":"
            + seq
            + ", as record "
            + seq
            + " does, while the line after it is record "
            + (seq + 1)
            + ", so the file is a journal whose first bytes were overwritten; restore it from a"
            + " copy",
        null);
  }

  /** How a record's line goes on after its {@code seq} and {@code prev}: its entry's type. */
  private static final byte[] ENTRY_TYPE =
      ",\"entry\":{\"type\":\"".getBytes(StandardCharsets.US_ASCII);

  /**
   * Whether {@code line}, whose first bytes are not a record's, holds what every record's line
   * holds after them: its entry and that entry's type, near its start (after {@code seq} and {@code
   * prev}), and the two closing braces at its end.
   */
  private static boolean shapedAsARecord(byte[] line) {
    int end = line.length;
    if (end < 2 || line[end - 1] != '}' || line[end - 2] != '}') {
      return false;
    }
    int within = Math.min(end, NEXT_HEAD_MAX + 66 + ENTRY_TYPE.length);
    for (int at = 0; at + ENTRY_TYPE.length <= within; at++) {
      if (regionIs(line, at, ENTRY_TYPE)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The folder beside the journal file {@code path} that is named for it and that only a journal
   * has: its snapshot folder or its segment folder (SPEC.md §60.8); empty if neither is there.
   */
  private static Optional<Path> journalFolderBeside(Path path) {
    for (Path folder :
        List.of(FileSnapshotStore.beside(path).directory(), JournalSegments.directory(path))) {
      if (Files.isDirectory(folder)) {
        return Optional.of(folder);
      }
    }
    return Optional.empty();
  }

  /**
   * The sequence of the one record of the live file {@code path}: 0, or, where records were
   * archived, the one after the last segment's records (an archive leaves the live file beginning
   * there); 0 if the segments cannot be read, whose own refusal a read of them gives.
   */
  private static long onlyRecordSeq(Path path) {
    try {
      List<JournalSegments.Segment> segments = JournalSegments.list(path);
      if (segments.isEmpty()) {
        return 0;
      }
      JournalSegments.Segment last = segments.getLast();
      try (HeldJournals.ReadChannel read = HeldJournals.openToRead(last.file())) {
        FileChannel ch = read.channel();
        LineReader lines = new LineReader(ch, 0, ch.size());
        long seq = last.firstSeq();
        while (lines.skip()) {
          seq++;
        }
        return seq;
      }
    } catch (JournalException | IOException e) {
      return 0;
    }
  }

  /**
   * The refusal of a one-line journal file whose line does not begin as a record does but has a
   * record's shape after its first bytes, and {@code folderProof}, what says it is a journal's (a
   * folder only a journal has beside it, or a snapshot folder elsewhere that records it): record
   * {@code seq} was damaged after it was written. The proof is said as it stands: a snapshot folder
   * kept elsewhere was named as "beside it", sending the operator to look for it there.
   */
  private static JournalException onlyRecordDamaged(Path path, long seq, String folderProof) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        seq,
        "the only line of "
            + path
            + " is damaged: it does not begin {\"seq\":"
            + seq
            + ", as record "
            + seq
            + " does, though it ends as a record does and "
            + folderProof
            + ", so the file is a journal whose first bytes were overwritten; restore"
            + " it from a copy",
        null);
  }

  /**
   * The refusal of a file that does not begin as a journal does: {@code CORRUPT}, as other
   * unreadable journals are, in words that say it is none, not a JSON parser's about one of its
   * lines.
   */
  private static JournalException notAJournal(Path path) {
    return new JournalException(
        JournalException.Reason.CORRUPT,
        path
            + " is not a mesh journal: its first line does not begin as a journal record does (a"
            + " journal's first line is record 0, a JSON object that begins {\"seq\":0,\"entry\":);"
            + " name the journal file",
        null);
  }

  /**
   * Whether {@code start}, the first bytes of a file with no newline, is what a first append cut
   * short leaves: as much of {@link #SEQ_PREFIX} as it holds, then zeros only (a power loss can
   * leave the file's new length with no data written in it).
   */
  private static boolean beginsAsATornRecord(byte[] start) {
    int written = 0;
    while (written < start.length && start[written] != 0) {
      written++;
    }
    if (!Arrays.equals(start, 0, written, SEQ_PREFIX, 0, written)) {
      return false;
    }
    for (int i = written; i < start.length; i++) {
      if (start[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether bytes {@code from} to {@code to} of the file are all zeros: what a power loss leaves
   * after an append's first bytes, where other data would be a file that is no journal.
   */
  private static boolean zeros(FileChannel ch, long from, long to) throws IOException {
    for (long at = from; at < to; ) {
      long end = Math.min(to, at + (64 << 10));
      byte[] chunk = readRange(ch, at, end);
      for (byte b : chunk) {
        if (b != 0) {
          return false;
        }
      }
      at = end;
    }
    return true;
  }

  /** The line starting at byte {@code start} of {@code path}, as a message names it. */
  private static String lineAt(long start, Path path) {
    return "the line at byte " + start + " of " + path;
  }

  /**
   * The {@code seq} of a record line. Every line this project writes begins with an open brace,
   * {@code "seq":}, the digits and a comma, and that is read here directly: opening a journal then
   * needs no JSON mapper, whose first use costs a cold JVM more than the rest of a restart from a
   * snapshot at the journal's end. Any other line is read by {@link RecordCodec#seqOf}, which also
   * says what is wrong with it.
   */
  static long seqOf(byte[] line, Object where) throws JournalException {
    int at = SEQ_PREFIX.length;
    if (line.length > at + 1 && Arrays.equals(line, 0, at, SEQ_PREFIX, 0, at)) {
      long seq = 0;
      int digits = 0;
      while (at < line.length && line[at] >= '0' && line[at] <= '9' && digits < 18) {
        seq = seq * 10 + (line[at++] - '0');
        digits++;
      }
      boolean leadingZero = digits > 1 && line[SEQ_PREFIX.length] == '0';
      if (digits > 0 && !leadingZero && at < line.length && line[at] == ',') {
        return seq;
      }
    }
    return RecordCodec.seqOf(line, where);
  }

  /** The offset just after the last newline before {@code before}, or 0 if there is none. */
  private static long lastNewline(FileChannel ch, long before) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
    long at = before;
    while (at > 0) {
      int n = (int) Math.min(buf.capacity(), at);
      buf.clear().limit(n);
      long from = at - n;
      int read = LineReader.readFully(ch, buf, from);
      for (int i = read - 1; i >= 0; i--) {
        if (buf.get(i) == '\n') {
          return from + i + 1;
        }
      }
      at = from;
    }
    return 0;
  }

  private static byte[] readRange(FileChannel ch, long from, long to) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(to - from));
    LineReader.readFully(ch, buf, from);
    return Arrays.copyOf(buf.array(), buf.position());
  }

  /** The identity of the file {@code real} names ({@link HeldJournals#identity}). */
  static Object identity(Path real) throws IOException {
    return HeldJournals.identity(real);
  }

  /**
   * What {@code read} returns from the channel of the journal this process holds as {@code
   * identity}; empty if this process holds no such journal.
   *
   * @throws JournalException {@code LOCKED} while the journal is still being opened, {@code IO},
   *     {@code CORRUPT} for a line longer than any record, or what {@code read} throws
   */
  static <T> Optional<T> readHeld(Path path, Object identity, HeldJournals.ChannelRead<T> read)
      throws JournalException {
    AtomicReference<FileJournal> held = HELD.get(identity);
    if (held == null) {
      requireNotAClaimedLockFile("cannot read", path, identity);
      return Optional.empty();
    }
    FileJournal j = held.get();
    if (j == null) {
      throw beingOpened();
    }
    return Optional.of(
        JournalIo.call(
            () -> {
              try {
                return read.read(j.file.channel());
              } catch (IOException e) {
                throw io("cannot read", j.path, e);
              }
            }));
  }

  /**
   * Reads every record into a list (see {@link Journal#recovered()}): for tools and tests. A
   * steward streams them with {@link #read} instead, so nothing is retained.
   */
  @Override
  public List<JournalRecord> recovered() {
    return Journal.readAll(this);
  }

  @Override
  public JournalPosition position() {
    return durable;
  }

  @Override
  public void read(
      JournalPosition from,
      java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains,
      RecordSink sink)
      throws JournalException {
    JournalPosition end = durable;
    // The sink runs on the I/O thread too; the caller waits for the whole read.
    JournalIo.run(() -> readFrom(file.channel(), path, firstSeq, end, from, chains, sink));
    learn(end, chains);
  }

  /**
   * Streams the records of the file on {@code ch} from {@code from} to {@code end}: from the
   * segments first when {@code from} precedes the live file's first record ({@code firstSeq}).
   */
  private static void readFrom(
      FileChannel ch,
      Path path,
      long firstSeq,
      JournalPosition end,
      JournalPosition from,
      java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains,
      RecordSink sink)
      throws JournalException {
    if (from.count() > end.count()) {
      throw new JournalException(
          JournalException.Reason.POSITION_MISMATCH,
          from + " is beyond the end of journal " + path + " (" + end.count() + " records)",
          null);
    }
    if (from.count() == end.count()) {
      if (!from.lastHash().equals(end.lastHash())) {
        throw new JournalException(
            JournalException.Reason.POSITION_MISMATCH,
            from + " is not in journal " + path + ": its last record hashes to " + end.lastHash(),
            null);
      }
      if (from.locator() != end.locator()) {
        // The end is found from the last line alone, and a copy of that line ends a file with
        // the same count and hash: where the file no longer ends where the position said, its
        // lines are counted (once; a position taken before an archive is the lawful case).
        try {
          requireEnd(locate(ch, path, firstSeq, end.count(), -1, end.locator()), path, end);
        } catch (IOException e) {
          throw io("cannot read", path, e);
        }
      }
      return;
    }
    if (from.count() < firstSeq) {
      from = JournalSegments.read(path, from, firstSeq, chains, sink);
    }
    ChainedReader reader = new ChainedReader(from, chains);
    try {
      LineReader lines = locate(ch, path, firstSeq, from.count(), from.locator(), end.locator());
      while (reader.next() < end.count()) {
        byte[] line = lines.next();
        if (line == null) {
          throw new JournalException(
              JournalException.Reason.CORRUPT, reader.next(), "is missing from " + path, null);
        }
        if (line.length == 0) {
          throw EmptyLine.refused(path, lines.offset() - 1, reader.next() - 1);
        }
        sink.accept(reader.take(line, path));
      }
      requireEnd(lines, path, end);
    } catch (IOException e) {
      throw io("cannot read", path, e);
    }
  }

  /**
   * Refuses a file with lines past its last record: {@code lines} has just passed record {@code
   * end.count() - 1}, the sequence of the file's last line, so it must be at the file's end. A
   * duplicated or inserted last line would otherwise go unread, and the next append would chain
   * after it, leaving a journal no verify accepts.
   */
  private static void requireEnd(LineReader lines, Path path, JournalPosition end)
      throws JournalException {
    if (lines.offset() != end.locator()) {
      throw new JournalException(
          JournalException.Reason.CORRUPT,
          end.count() - 1,
          "is followed by "
              + (end.locator() - lines.offset())
              + " bytes of lines, but it is the last record by its sequence: "
              + path
              + " holds more than its "
              + end.count()
              + " records (a line copied or inserted at its end)",
          null);
    }
  }

  /**
   * Streams the records of the journal at {@code path} from {@code from} without locking or
   * changing it (for {@code mesh journal verify}); a journal this process holds is read through its
   * holder. A torn final line is left out. The read and every call of {@code sink} run on a journal
   * I/O thread ({@link JournalIo}) while the caller waits, as a held journal's {@link #read} runs
   * them: an interrupt of the caller neither reaches the sink nor stops the scan, and is set again
   * when it returns or throws.
   *
   * @throws JournalException as {@link Journal#read}; {@code CORRUPT} also where {@code path} leads
   *     to one of a journal's archived segments, as {@link #open(Path)} refuses it
   */
  public static void scan(
      Path path,
      JournalPosition from,
      java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains,
      RecordSink sink)
      throws JournalException {
    JournalSegments.requireNotSegment(path); // refused as an open refuses it
    try {
      FileJournal holder = holder(path);
      if (holder != null) {
        holder.read(from, chains, sink);
        return;
      }
      // Closed keeping locks: a journal held here swapped in under the name after holder() looked.
      // On a journal I/O thread, the sink too, as the holder's read runs it: an interrupt on the
      // caller's would close the descriptor, which may be of that held file, and let its lock go.
      JournalIo.run(
          () -> {
            try (HeldJournals.ReadChannel read = LockHolder.openToRead(path)) {
              FileChannel ch = read.channel();
              Tail tail = tail(ch, path);
              readFrom(ch, path, tail.firstSeq(), tail.end(), from, chains, sink);
            } catch (IOException e) {
              throw io("cannot read", path, e);
            }
          });
    } catch (IOException e) {
      throw io("cannot read", path, e);
    }
  }

  /**
   * Moves the records before {@code upTo} (a position a verified snapshot covers) out of the live
   * file into a segment ({@link JournalSegments}), with no steward running: takes the journal's
   * lock, checks that {@code upTo} is in this journal, writes the segment as pending and forces it,
   * writes the rest to a new file and renames it over the journal, forces that, and only then gives
   * the segment its final name (SPEC.md 60.8, the pending-segment protocol). The last record always
   * stays in the live file (appends chain from it). A crash midway leaves the journal whole: before
   * the cut, the pending segment duplicates records the live file still holds, and the next opening
   * removes it; after it, the next opening names it. An archive that fails before the cut (a full
   * disk) removes the pending segment and the new file it was writing before it throws, so the
   * space they took is free again at once.
   *
   * @param chains the grant chains recorded before {@code upTo} (the snapshot's)
   * @return how many records were archived (0 when none could be)
   * @throws JournalException {@code POSITION_MISMATCH} if {@code upTo} is not in the journal,
   *     {@code LOCKED} if a steward holds it, {@code IO}, or {@code HARD_LINKED} before anything is
   *     written when the journal's file has a second name (a hard link), which the archive would
   *     leave on the old records
   */
  public static long archive(
      Path path, JournalPosition upTo, java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains)
      throws JournalException {
    return archive(path, upTo, chains, Forcer.OS);
  }

  static long archive(
      Path path,
      JournalPosition upTo,
      java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains,
      Forcer forcer)
      throws JournalException {
    try (FileJournal j = open(path, FileChannel::tryLock, Syncer.FORCE, forcer)) {
      return archiveHeld(j, upTo, chains, forcer);
    }
  }

  /**
   * Finds the snapshot an archive cuts at ({@link #archive(Path, SnapshotLookup)}).
   *
   * @param <X> what the lookup throws besides what a snapshot store does, for its own refusals
   */
  @FunctionalInterface
  public interface SnapshotLookup<X extends Exception> {
    /** The latest verified snapshot of the journal, or empty if it has none. */
    Optional<Snapshot> latest() throws X;
  }

  /**
   * Archives, as {@link #archive(Path, JournalPosition, java.util.Map)} does, the records the
   * snapshot {@code lookup} finds covers, with that snapshot's grant chains. The lookup runs only
   * once the journal's lock is held, so a journal a steward holds is refused {@code LOCKED} whether
   * or not it has a snapshot yet: the operator learns first that the journal is in use.
   *
   * @return how many records were archived, or empty (and nothing moved) if {@code lookup} found no
   *     snapshot
   * @throws JournalException as {@link #archive(Path, JournalPosition, java.util.Map)}
   * @throws X what {@code lookup} throws
   */
  public static <X extends Exception> java.util.OptionalLong archive(
      Path path, SnapshotLookup<X> lookup) throws JournalException, X {
    try (FileJournal j = open(path, FileChannel::tryLock, Syncer.FORCE, Forcer.OS)) {
      Optional<Snapshot> snap = lookup.latest();
      if (snap.isEmpty()) {
        return java.util.OptionalLong.empty();
      }
      java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains = new java.util.HashMap<>();
      snap.get().state().chains().forEach(c -> chains.put(ContentId.ofBytes(c.encode()), c));
      return java.util.OptionalLong.of(archiveHeld(j, snap.get().position(), chains, Forcer.OS));
    }
  }

  /** The body of an archive, run while {@code j} holds the journal's lock. */
  private static long archiveHeld(
      FileJournal j,
      JournalPosition upTo,
      java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains,
      Forcer forcer)
      throws JournalException {
    // It reads and copies through the locked channel: off the caller's thread (see JournalIo).
    return JournalIo.call(() -> archiveLocked(j, upTo, chains, forcer));
  }

  private static long archiveLocked(
      FileJournal j,
      JournalPosition upTo,
      java.util.Map<ContentId, org.meshjava.jcp.GrantChain> chains,
      Forcer forcer)
      throws JournalException {
    // Any file here an archive killed before its rename left was removed when j was opened.
    Path tmp = archiving(j.path);
    JournalPosition end = j.durable;
    j.read(upTo, new java.util.HashMap<>(chains), r -> {});
    long cut = Math.min(upTo.count(), end.count() - 1);
    if (cut <= j.firstSeq) {
      return 0;
    }
    requireOneName(j.path);
    Path segments = JournalSegments.directory(j.path);
    Path pending = JournalSegments.pendingFile(j.path, j.firstSeq);
    Path segment = JournalSegments.file(j.path, j.firstSeq);
    Path folder = j.path.getParent();
    try {
      long hint = cut == upTo.count() ? upTo.locator() : -1;
      long offset = locate(j.file.channel(), j.path, j.firstSeq, cut, hint, end.locator()).offset();
      forcer.createDirectories(segments);
      mark(j.path, segment, j.file.channel(), forcer);
      copy(j.file.channel(), 0, offset, pending, forcer);
      // A segment is the journal's history as much as the live file: readable by whom it is.
      OwnerOnly.keepMode(j.path, pending);
      // The pending segment's name must be durable before the rename cuts its records from the
      // live file: a power cut must not keep the cut and lose the copy.
      forcer.forceDirectory(segments);
      copy(j.file.channel(), offset, end.locator(), tmp, forcer);
      // The live file rewritten keeps the mode its operator gave it.
      OwnerOnly.keepMode(j.path, tmp);
      // The lock is on the file this archive read, not on its name: a file put in its place since
      // (a copy put back, with a steward started on it) would be replaced by a cut of the one read
      // here, and whatever was written to it lost. Refused, the file there is left as it is.
      if (!stillNamed(j.path, j.file.identity())) {
        throw new IOException(
            j.path
                + " was replaced by another file while it was archived; that file is left as it"
                + " is, and nothing archived");
      }
      Files.move(
          tmp,
          j.path,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      // Nothing was moved: the live file still holds every record, so the copies this archive
      // made are only duplicates, part written on a full disk. They go at once, before the
      // refusal, rather than at the next archive or open: they hold the space a full disk lacks,
      // and the steward's next start needs it for its first record.
      removeQuietly(tmp, e);
      removeQuietly(pending, e);
      throw refused("cannot archive", j.path, e, archiveDenied(j.path));
    }
    // From here the live file no longer holds the archived records, so the pending segment, which
    // does, stays whatever fails: the next opening finishes it, as it finds the live file cut.
    try {
      if (folder != null) {
        // The cut itself, before the segment is named: a segment under its final name must never
        // outlive a power cut that undoes the cut, or it would read as an older copy's.
        forcer.forceDirectory(folder);
      }
    } catch (IOException e) {
      throw io("archived, but could not force the rename of", j.path, e);
    }
    try {
      nameSegment(pending, segment);
      forcer.forceDirectory(segments);
    } catch (IOException e) {
      throw io("archived (the next opening names the segment), but could not name", pending, e);
    }
    return cut - j.firstSeq;
  }

  /**
   * Refuses to archive the journal at {@code path} when its file has more than one name (a hard
   * link). An archive renames the journal's new beginning over this name only: every other name
   * would stay on the old file, which holds the archived records and none appended after, and
   * beside which no segment lies, so a steward started through that name would open a complete
   * looking journal missing every later spend and serve them again, and nothing could tell (SPEC.md
   * 60.8). Where the file system keeps no link count, nothing is asked.
   */
  private static void requireOneName(Path path) throws JournalException {
    Object links;
    try {
      links = Files.getAttribute(path, "unix:nlink");
    } catch (UnsupportedOperationException | IllegalArgumentException noLinkCount) {
      return;
    } catch (IOException e) {
      throw io("cannot archive", path, e);
    }
    if (links instanceof Integer n && n > 1) {
      throw new JournalException(
          JournalException.Reason.HARD_LINKED,
          "cannot archive "
              + path
              + ": the file has "
              + n
              + " names (hard links), and an archive replaces it under this name only, leaving"
              + " the others on a file that holds the archived records and none after them; a"
              + " steward started through one of them would spend again what was spent since."
              + " Remove the other names (find -samefile "
              + path
              + "), or reach the journal through a symbolic link, then archive",
          null);
    }
  }

  /**
   * Writes the journal's marker and its twin ({@link JournalSegments#marked}) beside it before the
   * first pending segment goes into its segment folder, and forces their folder, also when both
   * were there already: a pending segment found without them is refused as no archive's. Either one
   * missing (removed by hand) is written again. A folder archived by a version that named segments
   * first (neither there) may hold what that version's killed archive left, the segment {@code
   * killed} named for the live file's first record (a copy of its first lines, which the live file
   * still holds); it is removed, and that forced, before the marker is written, for under the
   * marker it would read as an older copy's segment. A file there that is not a copy of the live
   * file's first bytes ({@code live}) holds records the live file does not: it is kept, and the
   * archive refused.
   */
  private static void mark(Path journal, Path killed, FileChannel live, Forcer forcer)
      throws IOException, JournalException {
    Path marker = JournalSegments.marker(journal);
    Path twin = JournalSegments.markerTwin(journal);
    boolean hasMarker = Files.exists(marker, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    boolean hasTwin = Files.exists(twin, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    if (!hasMarker && !hasTwin) {
      if (Files.exists(killed, java.nio.file.LinkOption.NOFOLLOW_LINKS)
          && !copiesTheStartOf(killed, live)) {
        throw new JournalException(
            JournalException.Reason.CORRUPT,
            "cannot archive "
                + journal
                + ": segment "
                + killed
                + " is named for the live file's first record but is not a copy of the live"
                + " file's first lines, as an archive of a version that named its segment before"
                + " its cut leaves; it holds records the live file does not, so it is left as it"
                + " is. Find which history is the journal's before archiving (SPEC.md 60.8)",
            null);
      }
      if (Files.deleteIfExists(killed)) {
        forcer.forceDirectory(JournalSegments.directory(journal));
      }
    }
    if (!hasMarker) {
      writeMarker(marker, journal);
    }
    if (!hasTwin) {
      writeMarker(twin, journal);
    }
    // Forced even when both were there: an archive killed after it wrote them and before it forced
    // their folder left names a power cut may still take, and the pending segment this archive
    // forces next would then outlive them and be refused as no archive's.
    Path folder = marker.toAbsolutePath().getParent();
    if (folder != null) { // null only for a journal named as a root, which cannot be a file
      forcer.forceDirectory(folder);
    }
  }

  /**
   * Writes the marker, or its twin, at {@code file}, saying what it stands for. One opening makes
   * the file and writes it, and follows no link: a name made and then opened again to be written
   * would write whatever was swapped in between (a link's target elsewhere, a named pipe that
   * blocks the archive for ever). Anything at the name already is refused, left as it is.
   */
  private static void writeMarker(Path file, Path journal) throws IOException {
    byte[] text =
        ("The segments in "
                + JournalSegments.directory(journal).getFileName()
                + " are named only once the live journal file has been cut past them (SPEC.md"
                + " 60.8). Keep this file and its twin ("
                + JournalSegments.marker(journal).getFileName()
                + ", ."
                + JournalSegments.marker(journal).getFileName()
                + ") beside the journal.\n")
            .getBytes(StandardCharsets.UTF_8);
    try (FileChannel ch = OwnerOnly.createNew(file)) {
      ByteBuffer b = ByteBuffer.wrap(text);
      while (b.hasRemaining()) {
        ch.write(b);
      }
    }
  }

  /** Whether the bytes of {@code copy} are the first bytes of {@code live}, however many. */
  private static boolean copiesTheStartOf(Path copy, FileChannel live)
      throws IOException, JournalException {
    try (HeldJournals.ReadChannel read = HeldJournals.openToRead(copy)) {
      FileChannel c = read.channel();
      long size = c.size();
      if (size > live.size()) {
        return false;
      }
      for (long at = 0; at < size; ) {
        long to = Math.min(size, at + 64 * 1024);
        if (!Arrays.equals(readRange(c, at, to), readRange(live, at, to))) {
          return false;
        }
        at = to;
      }
      return true;
    }
  }

  /** Removes {@code file} if it is there; a failure is added to {@code failure}, not thrown. */
  private static void removeQuietly(Path file, IOException failure) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Removes what an archive killed before its rename left at {@code .archiving} beside the journal
   * {@code path} (the file {@code real}). An archive only ever makes a file there; a folder holding
   * anything is not its, and is refused, kept as it is, with what to do: removing it would take
   * what it holds, and leaving it would block every archive's copy. (A link there is removed, not
   * its target, as an empty folder is: neither holds anything of the operator's.)
   *
   * @throws JournalException {@code IO}, naming what is in the way
   * @throws IOException if it cannot be removed for another reason
   */
  private static void removeArchivingCopy(Path path, Path real)
      throws IOException, JournalException {
    Path copy = archiving(real);
    try {
      Files.deleteIfExists(copy);
    } catch (java.nio.file.DirectoryNotEmptyException notEmpty) {
      throw new JournalException(
          JournalException.Reason.IO,
          "cannot open "
              + path
              + ": "
              + copy
              + " is a folder that is not empty; an archive writes the journal's new beginning as"
              + " a file of that name, and a start removes what a killed archive left there, so"
              + " the name must be free. It is left as it is: move it elsewhere (it is nothing of"
              + " the journal's) and start again",
          notEmpty);
    }
  }

  /**
   * Where an archive writes the live file's new beginning before renaming it over the journal at
   * {@code real} (its real path).
   */
  private static Path archiving(Path real) {
    return real.resolveSibling(real.getFileName() + JournalOwnedName.ARCHIVING);
  }

  /** Copies {@code [from, to)} of {@code ch} into a new file {@code target}, forced. */
  private static void copy(FileChannel ch, long from, long to, Path target, Forcer forcer)
      throws IOException {
    try (FileChannel out = OwnerOnly.writeAfresh(target)) {
      long at = from;
      while (at < to) {
        at += ch.transferTo(at, to - at, out);
      }
      forcer.force(out, target, true);
    }
  }

  /**
   * Checks the live file's lines before record {@code count} by their links alone, for a journal
   * whose earlier records were archived without their segments: a snapshot covering them lets a
   * start and {@code mesh journal verify} read on without those records, and this still holds the
   * live file's own lines to one chain (SPEC.md §60.8, "The records a snapshot covers"). Decoding
   * them is not needed and not always possible (an {@code Authorised} line may name a grant chain
   * recorded in a segment that is gone): with each line's {@code prev} the hash of the line before,
   * and the last one's hash checked against the snapshot by whoever reads on from it, every line is
   * the one the steward wrote.
   *
   * @throws JournalException {@code CORRUPT} naming the first line that does not hold the next
   *     sequence or does not link to the line before, {@code IO}
   */
  @Override
  public void checkHeldLinksBefore(long count) throws JournalException {
    JournalPosition end = durable;
    JournalIo.run(() -> checkLinks(file.channel(), path, firstSeq, count, end.locator()));
  }

  /**
   * Warns when the segments kept beside this journal begin after record 0 and before {@code count}.
   * One listing of the segment folder, apart from {@link #checkHeldLinksBefore}: a start from a
   * snapshot too large to check its covered records still says which ones are gone.
   */
  @Override
  public void warnFirstSegmentsMissingBefore(long count) throws JournalException {
    long kept = firstSeq == 0 ? -1 : JournalSegments.keptFrom(path, firstSeq);
    if (kept > 0 && kept < count) {
      // Lawful (an operator may remove the oldest segments a snapshot covers), but not silently:
      // the records before the kept ones are now only in the snapshot.
      LOG.warn(
          "journal {}: records 0 to {} were archived and their segment is missing from {} (the"
              + " first segment there begins at record {}); the snapshot covering {} records"
              + " stands for them",
          path,
          kept - 1,
          JournalSegments.directory(path),
          kept,
          count);
    }
  }

  /**
   * As {@link #checkHeldLinksBefore}, for the journal at {@code path} without locking or changing
   * it (for {@code mesh journal verify}); a journal this process holds is read through its holder.
   *
   * @return where the journal ends when that is before record {@code count}, which is for the
   *     caller to refuse in its own words; empty when it holds every record before {@code count}
   * @throws JournalException as {@link #checkHeldLinksBefore}
   */
  public static Optional<JournalPosition> checkLinksBefore(Path path, long count)
      throws JournalException {
    try {
      FileJournal holder = holder(path);
      if (holder != null) {
        JournalPosition end = holder.durable;
        return JournalIo.call(
            () -> checkLinks(holder.file.channel(), path, holder.firstSeq, count, end.locator()));
      }
      // On a journal I/O thread as well: an interrupt on the caller's would close the descriptor,
      // which may be of a file this process holds locked, swapped in under the name.
      return JournalIo.call(
          () -> {
            try (HeldJournals.ReadChannel read = LockHolder.openToRead(path)) {
              FileChannel ch = read.channel();
              Tail tail = tail(ch, path);
              return checkLinks(ch, path, tail.firstSeq(), count, tail.end().locator());
            } catch (IOException e) {
              throw io("cannot read", path, e);
            }
          });
    } catch (IOException e) {
      throw io("cannot read", path, e);
    }
  }

  private static Optional<JournalPosition> checkLinks(
      FileChannel ch, Path path, long firstSeq, long count, long end) throws JournalException {
    // Segments kept after earlier ones were removed hold covered records too: their links are
    // checked on into the live file's, which the position's hash then proves unchanged. Skipped,
    // an edit there passed, and the gap before them went unsaid (SPEC.md §60.8).
    long kept = firstSeq == 0 ? -1 : JournalSegments.keptFrom(path, firstSeq);
    HeldLinks links = new HeldLinks(kept >= 0 && kept < count ? kept : firstSeq);
    if (kept >= 0 && kept < count) {
      JournalSegments.lines(
          path,
          kept,
          Math.min(count, firstSeq),
          firstSeq,
          (line, segment) -> links.take(line, segment, "a line of " + segment));
    }
    try {
      LineReader lines = new LineReader(ch, 0, end);
      for (long s = firstSeq; s < count; s++) {
        byte[] line = lines.next();
        if (line == null) {
          // Shorter than the position: not a link that fails, and the caller's check of the
          // position against the journal's end says so in its own words.
          if (links.before == null || s == firstSeq) {
            throw new JournalException(
                JournalException.Reason.CORRUPT, s, "is missing from " + path, null);
          }
          return Optional.of(
              new JournalPosition(s, Optional.of(ContentId.ofBytes(links.before)), -1));
        }
        if (line.length == 0 && s > firstSeq) {
          throw EmptyLine.refused(path, lines.offset() - 1, s - 1);
        }
        links.take(line, path, lineAt(lines.offset() - line.length - 1, path));
      }
      return Optional.empty();
    } catch (IOException e) {
      throw io("cannot read", path, e);
    }
  }

  /**
   * Checks lines, in order, by their links alone ({@link #checkHeldLinksBefore}): each holds the
   * next sequence and names the line before it as its {@code prev}. The first line's {@code prev}
   * is not checked: the record before it is archived without its segment.
   */
  private static final class HeldLinks {
    private byte @Nullable [] before;
    private long next;

    HeldLinks(long first) {
      this.next = first;
    }

    void take(byte[] line, Object file, String where) throws JournalException {
      long seq = seqOf(line, where);
      if (seq != next) {
        throw new JournalException(
            JournalException.Reason.CORRUPT,
            next,
            "holds seq " + seq + " in " + file + "; records do not form one chain",
            null);
      }
      if (before != null && !linksTo(line, ContentId.ofBytes(before))) {
        throw new JournalException(
            JournalException.Reason.CORRUPT,
            next,
            "prev does not match the hash of record "
                + (seq - 1)
                + " in "
                + file
                + "; records do not form one chain",
            null);
      }
      before = line;
      next = seq + 1;
    }
  }

  /** Whether {@code line}, whose {@code seq} was read, names {@code prev} as its {@code prev}. */
  private static boolean linksTo(byte[] line, ContentId prev) {
    int at = seqEnd(line);
    byte[] hash = (prev.hex() + "\",").getBytes(StandardCharsets.US_ASCII);
    return regionIs(line, at, PREV_AFTER_SEQ) && regionIs(line, at + PREV_AFTER_SEQ.length, hash);
  }

  /**
   * The sequence of the first record in the live file at {@code path} (0 unless archived).
   *
   * @throws JournalException {@code IO} if it cannot be read, {@code CORRUPT} if its records are
   *     damaged, and also where {@code path} leads to one of a journal's archived segments, as
   *     {@link #open(Path)} refuses it
   */
  public static long firstSequence(Path path) throws JournalException {
    JournalSegments.requireNotSegment(path); // refused as an open refuses it
    try {
      FileJournal holder = holder(path);
      if (holder != null) {
        return holder.firstSeq;
      }
    } catch (IOException e) {
      throw io("cannot read", path, e);
    }
    // On a journal I/O thread: an interrupt on the caller's would close the descriptor, which may
    // be of a file this process holds locked, swapped in under the name, and let that lock go.
    return JournalIo.call(
        () -> {
          try (HeldJournals.ReadChannel read = LockHolder.openToRead(path)) {
            return tail(read.channel(), path).firstSeq();
          } catch (IOException e) {
            throw io("cannot read", path, e);
          }
        });
  }

  /**
   * As {@link #firstSequence(Path)}, for a journal whose steward keeps its snapshots in {@code
   * snapshotFolder}: without locking it, a one-line file damaged in its first bytes is refused as
   * {@link #open(Path, Path)} refuses it, {@code CORRUPT} at its record when the folder records
   * this file as its journal (for {@code mesh journal verify --snapshots}).
   *
   * @throws JournalException as {@link #firstSequence(Path)}
   */
  public static long firstSequence(Path path, Path snapshotFolder) throws JournalException {
    Objects.requireNonNull(snapshotFolder, "snapshotFolder"); // as open(Path, Path)
    try {
      return firstSequence(path);
    } catch (JournalException e) {
      throw withSnapshotFolder(e, path, snapshotFolder);
    }
  }

  /**
   * After a read through to {@code end}: if nothing was appended since, the chains read are the
   * ones recorded, so an append does not record one of them again.
   */
  private void learn(JournalPosition end, java.util.Map<ContentId, org.meshjava.jcp.GrantChain> c) {
    commits.whileNoAppend(
        () -> {
          if (chain.next() == end.count()) {
            codec.rememberAll(c);
          }
        });
  }

  /**
   * A reader positioned at record {@code count} of the live file: at the locator hint when a record
   * of that sequence starts there, else found by counting lines from the file's start.
   */
  private static LineReader locate(
      FileChannel channel, Path path, long firstSeq, long count, long hint, long end)
      throws IOException, JournalException {
    if (hint > 0 && hint < end && readRange(channel, hint - 1, hint)[0] == '\n') {
      LineReader at = new LineReader(channel, hint, end);
      byte[] line = at.next();
      if (line != null && seqOf(line, lineAt(hint, path)) == count) {
        return new LineReader(channel, hint, end);
      }
    }
    LineReader lines = new LineReader(channel, 0, end);
    for (long s = firstSeq; s < count; s++) {
      long at = lines.offset();
      if (!lines.skip()) {
        throw new JournalException(
            JournalException.Reason.CORRUPT, s, "is missing from " + path, null);
      }
      if (lines.offset() == at + 1) {
        // Counted as a record, it would put every later one a line out, refused as a wrong seq.
        throw EmptyLine.refused(path, at, s - 1);
      }
    }
    return lines;
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    return commits.enqueue(entry);
  }

  /** Writes and syncs a batch of queued lines: the group commit's step. */
  private void writeBatch(List<RecordChain.Encoded> batch, long seq) throws JournalException {
    int size = 0;
    for (RecordChain.Encoded e : batch) {
      size += e.line().length + 1;
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    for (RecordChain.Encoded e : batch) {
      buf.put(e.line()).put((byte) '\n');
    }
    buf.flip();
    boolean writing = false;
    try {
      cutTornLine();
      checkUnchanged();
      long at = length;
      writing = true;
      while (buf.hasRemaining()) {
        at += file.channel().write(buf, at);
      }
      if (!unsynced) {
        syncer.sync(file.channel(), at);
      }
      // Again once the batch is forced: renamed away or replaced between the check before the
      // write and now, the file took the batch under a name that is no longer the journal's, and
      // the operator restarts on the file the name leads to now, which lacks it. Refused, the
      // batch is cut from the locked file below, as a failed sync's is.
      if (!stillNamed(named, file.identity())) {
        throw new IOException(
            named
                + " was renamed or replaced while this batch was written, so it went to a file no"
                + " longer named as the journal; refusing it and every later append");
      }
      length = at;
      RecordChain.Encoded lastWritten = batch.getLast();
      durable =
          new JournalPosition(
              lastWritten.record().seq() + 1,
              Optional.of(ContentId.ofBytes(lastWritten.line())),
              at);
    } catch (IOException ex) {
      JournalException f =
          new JournalException(
              JournalException.Reason.FAILED,
              seq,
              "write to " + path + " failed: " + FailureWords.of(ex),
              ex);
      LOG.error("journal {}: write failed; no further appends until reopened", path, ex);
      if (writing) {
        cutUndurable(ex);
      }
      throw f;
    }
  }

  /**
   * After this journal's own write or sync of a batch failed: cuts the file back to {@link
   * #length}, the end of the last batch that was written and synced, and forces that, so the
   * batch's lines are not in the file a restart reads.
   *
   * <p>Why: every waiter of the batch was told its record is not written, and the steward acted on
   * that (a serve refused {@code NOT_RECORDED}, its reservation released, no receipt handed out).
   * Lines left behind would contradict it at the next start: an {@code Authorised} line of a
   * refused serve would spend its presentation again and hold its reservation as unresolved for
   * ever. And they may not be there for long: a full disk leaves a part line, and after a failed
   * sync the kernel may have dropped the pages it could not write ("fsyncgate"), so the file reads
   * back lines that storage does not hold; appends chained after them would leave a hole in the
   * middle of the journal once those pages are gone. What lies before {@link #length} was synced by
   * an earlier batch and is not touched.
   *
   * <p>Best effort: if the cut fails too (the device is gone), it is logged and the lines stay, to
   * be read as records (or dropped as a torn final line) by the next start. The journal stays
   * failed either way: a sync that succeeds after one that failed proves nothing, so it never
   * writes again until reopened.
   */
  private void cutUndurable(IOException cause) {
    try {
      if (file.channel().size() > length) {
        file.channel().truncate(length);
        forcer.force(file.channel(), path, true);
      }
    } catch (IOException e) {
      cause.addSuppressed(e);
      LOG.error(
          "journal {}: could not cut the records that failed back to byte {}; the next start may"
              + " read them as written",
          path,
          length,
          e);
    }
  }

  /**
   * Cuts the final line without a newline that opening found, once, before the first append: the
   * file must still be exactly what was opened, or another writer changed it.
   */
  private void cutTornLine() throws IOException {
    if (torn == 0) {
      return;
    }
    long size = file.channel().size();
    if (size != length + torn) {
      throw new IOException(
          "the journal is "
              + size
              + " bytes where it was opened with "
              + (length + torn)
              + "; another writer changed it, refusing to write");
    }
    file.channel().truncate(length);
    forcer.force(file.channel(), path, true);
    torn = 0;
  }

  /**
   * Refuses to write to a file that changed under this journal: its path no longer names the inode
   * locked at open, or its length is not what this journal wrote (see the design note).
   */
  private void checkUnchanged() throws IOException {
    Object now;
    try {
      now = identity(named);
    } catch (IOException e) {
      throw new IOException(
          "the journal file is gone from "
              + named
              + " ("
              + FailureWords.of(e)
              + "); refusing to write to a file no name reaches",
          e);
    }
    if (!now.equals(file.identity())) {
      throw new IOException(
          named
              + " now names another file than the one this steward locked;"
              + " refusing to write");
    }
    long size = file.channel().size();
    if (size != length) {
      throw new IOException(
          "the journal is "
              + size
              + " bytes where this steward wrote "
              + length
              + "; another writer changed it, refusing to write");
    }
  }

  @Override
  public boolean durable() {
    return !unsynced;
  }

  @Override
  public String describe() {
    return path.toString();
  }

  @Override
  public Optional<String> refusesAppends() {
    return commits.refusesAppends();
  }

  /** Locked from opening until closed: the OS lock is held for exactly that long. */
  @Override
  public boolean locked() {
    return !commits.closed() && file.lock().isValid();
  }

  /** The journal's file. */
  public Path path() {
    return path;
  }

  /**
   * Closes the journal and removes its file: for a journal that should not outlive a failed start
   * (a command that created it and then could not serve). The file is removed while this journal
   * still holds its lock, and only if its path still names the file that was locked. Removed after
   * the lock was let go, it could be a file another steward had opened and locked in between, whose
   * records would then go to a file that no name reaches. A journal already closed is left alone:
   * with its lock went the knowledge that nobody else holds the file.
   *
   * <p>The file removed is the one the journal's lock is on ({@link #path()}): opened through a
   * symlink, the file it pointed to, not the link.
   *
   * @return whether the file was removed; false if the journal was closed already, the path names
   *     another file now, or the file could not be removed (logged)
   */
  public boolean closeAndRemove() {
    return closeAndRemove(Remover.DELETE);
  }

  boolean closeAndRemove(Remover remover) {
    AtomicBoolean removed = new AtomicBoolean();
    commits.close(
        () -> {
          try {
            if (stillNamed(path, file.identity())) {
              remover.remove(path);
              removed.set(true);
            }
          } catch (IOException e) {
            LOG.warn("journal {}: could not remove it: {}", path, e.toString());
          } finally {
            file.release();
          }
        });
    return removed.get();
  }

  @Override
  public void close() {
    commits.close(
        () -> {
          try {
            if (unsynced) {
              JournalIo.run(
                  () -> {
                    try {
                      forcer.force(file.channel(), path, true);
                    } catch (IOException e) {
                      LOG.error(
                          "journal {}: forcing the unsynced appends on close failed", path, e);
                    }
                  });
            }
          } finally {
            file.release();
          }
        });
  }
}
