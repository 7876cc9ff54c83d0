package org.meshjava.journal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.HeldJournals;
import org.meshjava.journal.internal.JournalIo;
import org.meshjava.journal.internal.LineReader;
import org.meshjava.journal.internal.LockHolder;
import org.meshjava.journal.internal.OwnerOnly;
import org.meshjava.journal.internal.SequenceFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots kept as files in one directory (by default {@code <journal>.snapshots/} beside a file
 * journal): each named by the record count it covers (20 decimal digits, {@code .snapshot}),
 * written to a temporary file, forced, and renamed into place, so a crash leaves either the old
 * latest or the new one, never half of one (the half-written temporary file of a crash is deleted
 * by the next save; that of a save that fails, at once). The newest {@value #KEEP} are kept.
 * Thread-safe.
 *
 * <p>A file, once renamed into place, is never written again: a newer snapshot is a new file, and
 * an old one is deleted, not truncated. So {@link #latestBuffer()} maps the latest file read-only
 * instead of reading it into memory (a million receipts make a snapshot of about 150 MB, which a
 * restart then reads in place), and the mapping stays valid and unchanged even after the file is
 * replaced or deleted. Whoever edits a snapshot file in place while a steward runs changes what
 * that steward reads; copy it aside instead. A deleted file that is still mapped keeps its disk
 * space until it is unmapped: {@link #latestBuffer()}'s mapping when the garbage collector finds
 * the buffer unreachable, {@link #latestMapping()}'s as soon as its reader closes it. A running
 * steward reads each snapshot it saves back through the second, and closes the previous one once
 * nothing reads it, so it holds no deleted file's space (SPEC.md §60.9).
 */
public final class FileSnapshotStore implements SnapshotStore {
  private static final Logger LOG = LoggerFactory.getLogger(FileSnapshotStore.class);

  private static final String SUFFIX = ".snapshot";
  private static final String TMP = ".tmp";

  /** How many snapshots are kept: the latest, and the one before it. */
  public static final int KEEP = 2;

  private final Path dir;
  private final SequenceFiles files;
  // Where a save writes before its rename; one left behind is a save a crash cut short.
  private final SequenceFiles unfinished;
  // Whether the last save's dropOld could not list the folder (said once until one can); guarded
  // by this store's monitor, as save is.
  private boolean dropFailed;
  private final Forcer forcer;
  // The claim taken through this store, if any; saves stop once it no longer holds the folder.
  private volatile @Nullable SnapshotFolderClaim claim;
  // Whether that claim was taken for a steward being built (claimForSteward), not by claim().
  private boolean claimForSteward;
  // The hold of the steward built over this store and not yet closed, if any: one at a time.
  private @Nullable SnapshotFolderHold steward;

  /** The largest file saved or read: {@link Snapshot#MAX_BYTES}, smaller only in tests. */
  private final long maxBytes;

  /** A store in {@code dir}, created on the first save. */
  public FileSnapshotStore(Path dir) {
    this(dir, Forcer.OS);
  }

  FileSnapshotStore(Path dir, Forcer forcer) {
    this(dir, forcer, Snapshot.MAX_BYTES);
  }

  /** A store whose files are at most {@code maxBytes}: lets a test reach the limit cheaply. */
  FileSnapshotStore(Path dir, Forcer forcer, long maxBytes) {
    this(dir, forcer, maxBytes, file -> {});
  }

  /**
   * What a read does between a snapshot file's size check and reading it: nothing, but a seam, like
   * {@link Forcer}, so a test can swap or grow the file there.
   */
  @FunctionalInterface
  interface SizeChecked {
    /** Called once {@code file}'s size was checked, before its bytes are read. */
    void checked(Path file) throws IOException;
  }

  // See SizeChecked.
  private final SizeChecked sizeChecked;

  /** As {@link #FileSnapshotStore(Path, Forcer, long)}, calling {@code sizeChecked} as it reads. */
  FileSnapshotStore(Path dir, Forcer forcer, long maxBytes, SizeChecked sizeChecked) {
    this(dir, forcer, maxBytes, sizeChecked, SequenceFiles::list);
  }

  /**
   * How the store lists its snapshot files: {@link SequenceFiles#list()}, but a seam, like {@link
   * SizeChecked}, so a test can fail the listing as a folder this user may not read does (tests run
   * as root, whom no folder denies).
   */
  @FunctionalInterface
  interface Listing {
    /** The snapshot files in {@code files}' folder, oldest first. */
    List<Path> list(SequenceFiles files) throws IOException;
  }

  // See Listing.
  private final Listing listing;

  /** A store in {@code dir} that lists its files through {@code listing}. */
  FileSnapshotStore(Path dir, Listing listing) {
    this(dir, Forcer.OS, Snapshot.MAX_BYTES, file -> {}, listing);
  }

  private FileSnapshotStore(
      Path dir, Forcer forcer, long maxBytes, SizeChecked sizeChecked, Listing listing) {
    this.sizeChecked = Objects.requireNonNull(sizeChecked, "sizeChecked");
    this.listing = Objects.requireNonNull(listing, "listing");
    this.dir = Objects.requireNonNull(dir, "dir");
    this.files = new SequenceFiles(dir, SUFFIX);
    this.unfinished = new SequenceFiles(dir, SUFFIX + TMP);
    this.forcer = Objects.requireNonNull(forcer, "forcer");
    this.maxBytes = maxBytes;
  }

  /** The largest snapshot file this store saves or reads back, in bytes. */
  @Override
  public long maxBytes() {
    return maxBytes;
  }

  /** What {@link #beside} adds to the journal's file name. */
  static final String BESIDE = ".snapshots";

  /** The store a file journal at {@code journal} uses by default: {@code <journal>.snapshots/}. */
  public static FileSnapshotStore beside(Path journal) {
    return new FileSnapshotStore(SequenceFiles.beside(journal, BESIDE));
  }

  /** The directory. */
  public Path directory() {
    return dir;
  }

  /**
   * Refuses something other than a folder at {@link #directory()}; no folder there yet is fine (the
   * first save makes one). Every read and save checks this first, so a caller needs it only to
   * refuse early, as {@code mesh serve} does at start.
   *
   * <p>Why a refusal: read as a folder holding no snapshot, the path would make every restart
   * replay the whole journal, and every save would fail, so snapshots asked for would never be
   * kept.
   *
   * @throws SnapshotException {@code IO}, naming the path and saying what to do
   */
  public void checkFolder() throws SnapshotException {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new SnapshotException(
          SnapshotException.Reason.IO,
          "snapshot folder "
              + dir
              + ": it is not a folder; remove what is there, or keep the snapshots in another"
              + " folder",
          null);
    }
  }

  /**
   * Claims the folder for the one steward that saves here, creating it if absent: a second claim,
   * by another process or in this one, is refused until this one is closed or its process ends. A
   * steward that saves here should hold one for as long as it runs, as {@code mesh serve} does;
   * without it, two stewards on two journals configured with one folder would each delete the
   * other's snapshots and then refuse to restart from the one they find (see {@link
   * SnapshotFolderClaim}). A save first renews the claim ({@link SnapshotFolderClaim#renew()}): a
   * folder deleted while claimed is made and locked again, and one that another steward claimed
   * meanwhile is refused {@code IN_USE}. This claim names no journal; {@link #claim(Path)} also
   * keeps a folder that holds another journal's snapshots from the claimant.
   *
   * @throws SnapshotException {@code IN_USE} naming the folder if another steward holds it, {@code
   *     IO} if it is not a folder or cannot be made or locked
   */
  public synchronized SnapshotFolderClaim claim() throws SnapshotException {
    return take(null);
  }

  /**
   * Claims the folder, as {@link #claim()} does, for the steward of the file journal at {@code
   * journal}, and records that journal in the folder as the one its snapshots are (SPEC.md §60.8,
   * "One steward per folder"). A folder that holds snapshots recorded as another journal's, one
   * that still exists, is refused before its lock is even tried: so when two journals' stewards
   * start together on one folder, the steward of the journal whose snapshots are there is never
   * turned away by the lock of the other, which cannot start from them anyway; exactly one serves.
   *
   * @throws SnapshotException {@code IN_USE} naming the folder and the other journal if the folder
   *     holds that journal's snapshots, naming the folder if another steward holds it; {@code IO}
   *     as {@link #claim()}
   */
  public synchronized SnapshotFolderClaim claim(Path journal) throws SnapshotException {
    return take(SnapshotFolderOwner.of(dir, Objects.requireNonNull(journal, "journal"), files));
  }

  private SnapshotFolderClaim take(@Nullable SnapshotFolderOwner owner) throws SnapshotException {
    checkFolder();
    SnapshotFolderClaim taken = JournalIo.call(() -> SnapshotFolderClaim.take(dir, owner, forcer));
    claim = taken;
    claimForSteward = false;
    return taken;
  }

  /**
   * Claims the folder for a steward being built over this store, as {@link #claim()} does, unless
   * this store already holds a claim its caller took with {@link #claim()} (as {@code mesh serve}
   * and the Spring Boot starter do): that caller keeps it. Either way the store takes one steward
   * at a time: while the hold returned for one is open, another is refused {@code IN_USE}, so two
   * stewards built over this one store on two journals never delete each other's snapshots, even
   * under their caller's claim. {@code Steward.Builder.build()} calls this, and closes the hold at
   * the steward's close, or at once when the build fails.
   *
   * <p>The claim taken is for {@code journal}'s file where it is a {@link FileJournal} ({@link
   * #claim(Path)}), else for no journal ({@link #claim()}).
   *
   * @param journal the steward's journal
   * @return the steward's hold, carrying the claim taken for it unless its caller's claim stands
   * @throws SnapshotException {@code IN_USE} naming the folder if a steward built over this store
   *     is still open, another steward holds the folder, or it holds another journal's snapshots;
   *     as {@link #claim()} otherwise
   */
  public synchronized SnapshotFolderHold claimForSteward(Journal journal) throws SnapshotException {
    if (steward != null) {
      throw new SnapshotException(
          SnapshotException.Reason.IN_USE,
          "snapshot folder "
              + dir
              + " is in use by another steward built over this same store and not closed; close"
              + " that steward first, or give each steward a snapshot folder of its own",
          null);
    }
    SnapshotFolderClaim held = claim;
    SnapshotFolderClaim taken = null;
    if (held == null || !held.held() || claimForSteward) {
      // Held for a steward still open, the registry of claims in this process refuses this one.
      taken = journal instanceof FileJournal file ? claim(file.path()) : claim();
      claimForSteward = true;
    }
    SnapshotFolderHold hold = new SnapshotFolderHold(this, taken);
    steward = hold;
    return hold;
  }

  /** {@code hold}'s steward has closed, or its build failed: another may be built here. */
  synchronized void stewardClosed(SnapshotFolderHold hold) {
    if (steward == hold) {
      steward = null;
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws SnapshotException {@code TOO_LARGE}, before anything is written, if the snapshot is
   *     larger than {@link #maxBytes()}: a file that could not be read back would become the latest
   *     and make every start replay the whole journal; {@code IO} (where only the folder's sync
   *     after the rename failed, the new file is in place and read as the latest, though its name
   *     may not survive a power cut: it is a whole, signed snapshot either way)
   */
  @Override
  public synchronized void save(Snapshot snapshot) throws SnapshotException {
    long size = snapshot.encodedLength();
    if (size > maxBytes) {
      throw SnapshotException.tooLarge(
          "the snapshot at record " + snapshot.position().count(), size, maxBytes);
    }
    // Off the caller's thread: an interrupt would close the channel mid-write (see JournalIo), and
    // a steward closing on an interrupted thread still writes its last snapshot.
    JournalIo.run(() -> write(snapshot));
  }

  private void write(Snapshot snapshot) throws SnapshotException {
    // Else the JDK's refusal to make the folder names only the path, and not why.
    checkFolder();
    SnapshotFolderClaim held = claim;
    if (held != null) {
      // The folder deleted (and with it the lock file) is made and locked again; one that another
      // steward claimed meanwhile is refused.
      held.renew();
    }
    Path target = files.file(snapshot.position().count());
    Path tmp = unfinished.file(snapshot.position().count());
    try {
      // A folder made here has its name forced in the folder above it: else a power cut could
      // take the folder, and every snapshot forced into it, with it.
      forcer.createDirectories(dir);
      try (FileChannel ch = OwnerOnly.writeAfresh(tmp)) {
        // Written part by part: a snapshot's body refers to the state's large sections rather
        // than holding a copy of its hundreds of megabytes.
        for (ByteBuffer buf : snapshot.fileSegments()) {
          while (buf.hasRemaining()) {
            ch.write(buf);
          }
        }
        forcer.force(ch, tmp, true);
      }
      // A new snapshot replaces the latest one for its readers: it keeps the mode that one has,
      // so an operator's chmod of the snapshots outlives the next save.
      List<Path> saved = files();
      if (!saved.isEmpty()) {
        OwnerOnly.keepMode(saved.getLast(), tmp);
      }
      replace(tmp, target);
      forcer.forceDirectory(dir);
    } catch (IOException e) {
      // A save that failed (a full disk, an I/O error, a read-only folder) removes its part
      // written file at once. Left for the next successful save to delete, it would hold on to
      // the space it took, and on a full disk that is the space the journal needs for its next
      // record; each retry at a later count would leave one more.
      deleteQuietly(tmp);
      throw new SnapshotException(
          SnapshotException.Reason.IO,
          "cannot write "
              + target
              + ": "
              + FailureWords.about(target, e)
              + FailureWords.remedyIfDenied(e, writeDenied(dir)),
          e);
    }
    dropOld(snapshot.position().count());
  }

  /**
   * Deletes all but the newest {@value #KEEP}, and the temporary files of saves a crash cut short
   * before {@code saved} (a process killed while writing one leaves it, as large as a snapshot, and
   * no later save would overwrite it: the journal only grows, so their counts never come again).
   * Best effort: the new snapshot is saved by now, and an old file that cannot be deleted yet (a
   * platform that refuses to delete a mapped file) is only garbage, tried again on the next save.
   */
  private void dropOld(long saved) {
    try {
      List<Path> all = files();
      for (int i = 0; i < all.size() - KEEP; i++) {
        deleteQuietly(all.get(i));
      }
      for (Path cut : unfinished.list()) {
        if (unfinished.seq(cut) < saved) {
          deleteQuietly(cut);
        }
      }
      dropFailed = false;
    } catch (IOException | NumberFormatException e) {
      // The directory cannot be listed just now; the next save tries again. Said once until a
      // listing works again: the old snapshots pile up meanwhile, each as large as a snapshot, and
      // nothing else would say so before a read of the folder failed.
      if (!dropFailed) {
        dropFailed = true;
        LOG.warn(
            "cannot list snapshot folder {} to delete the snapshots older than the newest {}: {};"
                + " they are kept, and each later save tries again",
            dir,
            KEEP,
            FailureWords.about(dir, e));
      }
    }
  }

  /**
   * Moves the written file {@code tmp} into place as {@code target}, replacing what was there: in
   * one step where the file system can rename atomically, so a reader sees the old file or the new
   * one whole; otherwise as a plain move, which a file system without atomic renames makes anyway.
   * A snapshot and the folder's record of its journal are each put in place so.
   */
  static void replace(Path tmp, Path target) throws IOException {
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // Left for the next save; see dropOld.
    }
  }

  @Override
  public synchronized Optional<byte[]> latest() throws SnapshotException {
    // Off the caller's thread, as the other reads: an interrupt there would close the descriptor,
    // which may be of a held file swapped in under the name (see open).
    return readLatestOffThread(
        file -> {
          try (HeldJournals.ReadChannel read = open(file)) {
            return readChecked(file, read.channel());
          }
        });
  }

  /**
   * Opens the snapshot file {@code file} to read, after {@link #requireNotHeld} passed it. A held
   * file swapped in under its name since is closed only where that lets no lock of this process go
   * ({@link LockHolder#closeKeepingLocks}): it is read as a snapshot (and refused as one), and the
   * journal or snapshot folder it is stays locked.
   */
  private static HeldJournals.ReadChannel open(Path file) throws IOException {
    return LockHolder.openToRead(file);
  }

  /** Reads one snapshot file. */
  @FunctionalInterface
  private interface FileRead<T> {
    T read(Path file) throws IOException, SnapshotException;
  }

  /**
   * What {@code read} makes of the latest snapshot file, if any. A latest file that another process
   * deletes between listing and opening (it saved two newer ones meanwhile) is passed over for the
   * one now latest, up to {@link #LIST_ATTEMPTS} listings.
   */
  private <T> Optional<T> readLatest(FileRead<T> read) throws IOException, SnapshotException {
    for (int attempt = 1; ; attempt++) {
      List<Path> all = files();
      if (all.isEmpty()) {
        return Optional.empty();
      }
      Path latest = all.getLast();
      try {
        requireRegularFile(latest);
        requireNotHeld(latest);
        return Optional.of(read.read(latest));
      } catch (NoSuchFileException e) {
        if (attempt == LIST_ATTEMPTS) {
          throw e;
        }
        // Deleted since it was listed: a steward saved newer ones meanwhile (see LIST_ATTEMPTS).
      } catch (IOException e) {
        // Named here: the JDK says only "Is a directory" for a directory in its place, and the
        // caller's "cannot read <dir>" would then name the folder, which is one.
        throw new SnapshotException(
            SnapshotException.Reason.IO,
            "cannot read the latest snapshot " + latest + ": " + why(e, latest) + readDenied(e),
            e);
      }
    }
  }

  /**
   * Refuses a latest snapshot that is not a regular file, through any links: opening a named pipe
   * waits for a writer that never comes, and a device such as {@code /dev/zero} reports no size and
   * never ends, so a steward's start, {@code mesh journal verify} or an archive (holding the
   * journal's lock) would wait for ever, or fill the heap. A save never makes one.
   *
   * @throws NoSuchFileException if it is gone (deleted since it was listed)
   */
  private void requireRegularFile(Path latest) throws IOException, SnapshotException {
    java.nio.file.attribute.BasicFileAttributes a =
        Files.readAttributes(latest, java.nio.file.attribute.BasicFileAttributes.class);
    if (a.isRegularFile()) {
      return;
    }
    throw new SnapshotException(
        SnapshotException.Reason.IO,
        "cannot read the latest snapshot "
            + latest
            + ": "
            + (a.isDirectory() ? "it is a folder" : "it is not a regular file (a pipe or a device)")
            + ", which no save makes; move it out of "
            + dir,
        null);
  }

  /**
   * Refuses a latest snapshot that is another name (a hard link) of a file this process holds
   * locked, before it is opened: a snapshot folder's lock file or a journal a steward here holds
   * (or is opening). Closing any descriptor of a file lets go every lock this process holds on it,
   * so a read of it would let another process claim that folder or open that journal. A save never
   * makes one.
   */
  private void requireNotHeld(Path latest) throws IOException, SnapshotException {
    String heldAs = FileJournal.heldAs(FileJournal.identity(latest.toRealPath()));
    if (heldAs == null) {
      return;
    }
    throw new SnapshotException(
        SnapshotException.Reason.IO,
        "cannot read the latest snapshot "
            + latest
            + ": it is another name (a hard link) of "
            + heldAs
            + " that this process holds, and opening and closing it would let that lock go; it is"
            + " left as it is. A save never makes one: move it out of "
            + dir,
        null);
  }

  /**
   * What a denied save or claim of {@code dir} says to do: a steward's start claims the folder
   * before its first save, so both meet a folder it may not write.
   */
  static String writeDenied(Path dir) {
    return "grant this user write access to the snapshot folder "
        + dir
        + " (or, where it is yet to be made, to the folder it goes in), or keep the snapshots in"
        + " another folder";
  }

  /**
   * What a denied read says to do, after "; ": a steward's start, {@code mesh journal verify} and
   * an archive all read here, and each needs the folder and its files readable.
   */
  private String readDenied(IOException e) {
    return FailureWords.remedyIfDenied(
        e,
        "grant this user read access to the snapshot folder "
            + dir
            + " and the snapshots in it, or run as the user who owns them");
  }

  /** What went wrong reading {@code file}, without repeating its name as the JDK's messages do. */
  private static String why(IOException e, Path file) {
    if (e instanceof java.nio.file.AccessDeniedException) {
      return FailureWords.about(file, e); // it has no reason, only the file
    }
    if (e instanceof java.nio.file.FileSystemException f) {
      return f.getReason() != null ? f.getReason() : e.getClass().getSimpleName();
    }
    String m = e.getMessage();
    return m == null || m.equals(file.toString()) ? e.getClass().getSimpleName() : m;
  }

  /**
   * How often a read lists the directory again when the latest file it listed is gone before it is
   * opened. Another process (a steward, beside {@code mesh journal verify}) deletes all but the
   * newest {@value #KEEP} as it saves, so the file a reader listed as latest is deleted once two
   * newer ones are saved; it is then no longer the latest, and the next listing names the one that
   * is.
   */
  private static final int LIST_ATTEMPTS = 16;

  /**
   * The latest snapshot file mapped read-only (see the class note), if any; read into memory
   * instead on a file system that cannot map it. A latest file that another process deletes between
   * listing and opening (it saved two newer ones meanwhile) is passed over for the one now latest.
   *
   * @throws SnapshotException {@code TOO_LARGE} if it is larger than {@link #maxBytes()} (one a
   *     version without that limit on saves wrote); {@code IO} if it cannot be read
   */
  @Override
  public synchronized Optional<ByteBuffer> latestBuffer() throws SnapshotException {
    return readLatestOffThread(this::map);
  }

  /**
   * As {@link #latestBuffer()}, mapped into an arena of its own that {@link
   * SnapshotMapping#close()} closes: the file is unmapped then, and its disk space freed at once if
   * it was deleted meanwhile, instead of whenever the garbage collector finds the mapping
   * unreachable (see the class note). Read into memory instead on a file system that cannot map it;
   * that copy is the collector's to let go.
   *
   * @throws SnapshotException as {@link #latestBuffer()}
   */
  @Override
  public synchronized Optional<SnapshotMapping> latestMapping() throws SnapshotException {
    return readLatestOffThread(this::mapInArena);
  }

  /**
   * {@link #readLatest} in the folder checked first, off the caller's thread, as save is: an
   * interrupt would close the channel mid-read.
   */
  private <T> Optional<T> readLatestOffThread(FileRead<T> read) throws SnapshotException {
    checkFolder();
    return JournalIo.call(
        () -> {
          try {
            return readLatest(read);
          } catch (IOException e) {
            throw new SnapshotException(
                SnapshotException.Reason.IO,
                "cannot read " + dir + ": " + FailureWords.about(dir, e) + readDenied(e),
                e);
          }
        });
  }

  /**
   * The latest snapshot file's header, read through a small buffer whatever the file's size (see
   * {@link SnapshotHeader}); {@link #maxBytes()} does not apply.
   *
   * @throws SnapshotException {@code MALFORMED} if the file holds no snapshot header, {@code IO} if
   *     it cannot be read
   */
  @Override
  public synchronized Optional<SnapshotHeader> latestHeader() throws SnapshotException {
    return readLatestOffThread(
        file -> {
          try (HeldJournals.ReadChannel read = open(file)) {
            return SnapshotHeader.read(read.channel());
          }
        });
  }

  /** {@code file} mapped read-only, or read into memory where it cannot be mapped. */
  private ByteBuffer map(Path file) throws IOException, SnapshotException {
    try (HeldJournals.ReadChannel read = open(file)) {
      FileChannel ch = read.channel();
      long size = ch.size();
      checkSize(file, size);
      try {
        return ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
      } catch (IOException | UnsupportedOperationException e) {
        return ByteBuffer.wrap(readChecked(file, ch)).asReadOnlyBuffer();
      }
    }
  }

  /** As {@link #map}, into an arena of its own that the mapping's close closes. */
  private SnapshotMapping mapInArena(Path file) throws IOException, SnapshotException {
    try (HeldJournals.ReadChannel read = open(file)) {
      FileChannel ch = read.channel();
      long size = ch.size();
      checkSize(file, size);
      Arena arena = Arena.ofShared();
      MemorySegment segment;
      try {
        segment = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
      } catch (IOException | UnsupportedOperationException e) {
        arena.close();
        return SnapshotMapping.collected(ByteBuffer.wrap(readChecked(file, ch)).asReadOnlyBuffer());
      } catch (RuntimeException e) {
        arena.close();
        throw e;
      }
      // checkSize kept it within Snapshot.MAX_BYTES, so it fits one buffer.
      return SnapshotMapping.mapped(segment.asByteBuffer(), arena);
    }
  }

  /**
   * The whole of the snapshot file open on {@code ch}, read into memory after its size is checked,
   * through that one descriptor: read again by name, a file swapped in or grown since the check (a
   * hostile one planted in the folder) would be read whatever its size, and fill the heap. What it
   * holds past the size checked is left unread, and the file is refused if its size changed while
   * it was read.
   *
   * @throws SnapshotException {@code TOO_LARGE} as {@link #checkSize}
   * @throws IOException if it cannot be read, or changed size while it was read
   */
  private byte[] readChecked(Path file, FileChannel ch) throws IOException, SnapshotException {
    long size = ch.size();
    checkSize(file, size);
    sizeChecked.checked(file);
    ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(size));
    LineReader.readFully(ch, buf, 0);
    if (buf.hasRemaining() || ch.size() != size) {
      throw new IOException("its size changed while it was read (it is being written in place)");
    }
    return buf.array();
  }

  /** Refuses a snapshot file of {@code size} bytes that is larger than this store reads. */
  private void checkSize(Path file, long size) throws SnapshotException {
    if (size > maxBytes) {
      throw SnapshotException.tooLarge("the latest snapshot " + file, size, maxBytes);
    }
  }

  /** The snapshot files, oldest first. */
  List<Path> files() throws IOException {
    return listing.list(files);
  }

  @Override
  public String describe() {
    return dir.toString();
  }
}
