package org.meshjava.journal;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A journal file that one start of a steward created: until the start has succeeded ({@link
 * #keep}), closing it removes the file, and the snapshot folder made for it (through that folder's
 * {@link SnapshotFolderClaim}, which alone knows what it made), so that a start that failed (a port
 * in use, a missing setting) leaves nothing behind to confuse the next one, which would otherwise
 * find a journal it takes for an earlier one's. {@code mesh serve} and the Spring starter each wrap
 * the journal they open this way.
 *
 * <p>Both go while the journal still holds its lock ({@link FileJournal#closeAndRemove}): once the
 * lock is let go, another steward may open and lock the file, and removing it then would send that
 * steward's records to a file no name reaches. So the removal is this journal's close, which the
 * steward calls, and never a step after it.
 *
 * <p>Thread-safe, as every journal is; {@link #keep} and {@link #close} may be called from
 * different threads.
 */
public final class CreatedJournal extends ForwardingJournal {
  private final FileJournal file;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The noted claim's {@link SnapshotFolderClaim#closeRemovingSaved}, or null before one. */
  private volatile @Nullable Runnable snapshots;

  private volatile boolean kept;

  /**
   * Wraps {@code file}, which this start created. Not public: closed before {@link #keep}, the
   * wrapper removes the file, so callers outside this package go through {@link #ifCreated}, which
   * wraps only a file that was not there before and holds no record.
   */
  CreatedJournal(FileJournal file) {
    super(file);
    this.file = file;
  }

  /**
   * {@code opened} wrapped, if this start created it: the file was not there before it was opened
   * ({@code existed} false) and holds no record now that it is locked. Another steward may have
   * made the file in between; its file is not this start's to remove, so it is not wrapped.
   */
  public static Optional<CreatedJournal> ifCreated(FileJournal opened, boolean existed) {
    return !existed && opened.position().count() == 0
        ? Optional.of(new CreatedJournal(opened))
        : Optional.empty();
  }

  /**
   * Notes the claim on this journal's snapshot folder: if this start made the folder, the claim
   * removes it with this journal, the snapshots saved into it included, and the folders made to
   * hold it; a folder that was there before is left as it is.
   */
  public void snapshots(SnapshotFolderClaim claim) {
    snapshots(java.util.Objects.requireNonNull(claim, "claim")::closeRemovingSaved);
  }

  /**
   * Notes {@code closeRemovingSaved} as the step that lets the snapshot folder go: a claim's, or a
   * test's stand-in for one that fails.
   */
  void snapshots(Runnable closeRemovingSaved) {
    snapshots = closeRemovingSaved;
  }

  /** The journal file's name, as given. */
  public Path path() {
    return file.path();
  }

  /** The start has succeeded (the steward is serving): from now on, closing keeps the file. */
  public void keep() {
    kept = true;
  }

  /**
   * Closes the journal, releasing its lock; unless {@link #keep} was called, removes the file and
   * the snapshot folder its noted claim made first, under the lock, and lets that claim go. A
   * second call does nothing. The file is closed (and removed) even where letting the claim go
   * throws, which is then rethrown: else the journal's lock would stay held for every later start
   * in this process.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (kept) {
      file.close();
      return;
    }
    // Snapshots first: a steward that opened this file after the lock went would write its own
    // snapshots into the same folder.
    Runnable claim = snapshots;
    if (claim == null) {
      file.closeAndRemove();
      return;
    }
    try {
      claim.run();
    } catch (RuntimeException | Error e) {
      try {
        file.closeAndRemove();
      } catch (RuntimeException | Error closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    file.closeAndRemove();
  }
}
