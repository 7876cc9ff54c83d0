package org.meshjava.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;

/**
 * A journal file that {@code mesh serve} created for this run: until the steward is serving ({@link
 * #keep}), closing it removes the file, and the snapshot folder made for it, so that a start that
 * failed (a port in use, say) leaves nothing behind to confuse the next one.
 *
 * <p>Both go while the journal still holds its lock ({@link FileJournal#closeAndRemove}): once the
 * lock is let go, another steward may open and lock the file, and removing it then would send that
 * steward's records to a file no name reaches. So the removal is this journal's close, which the
 * steward calls, and never a step after it.
 */
final class CreatedJournal extends ForwardingJournal {
  private final FileJournal file;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile @Nullable Path snapshots;
  private volatile boolean kept;

  CreatedJournal(FileJournal file) {
    super(file);
    this.file = file;
  }

  /** Notes the snapshot folder made for this journal, removed with it. */
  void snapshots(Path directory) {
    snapshots = directory;
  }

  /** The journal file's name, as given. */
  Path path() {
    return file.path();
  }

  /** The steward is serving: from now on, closing keeps the file. */
  void keep() {
    kept = true;
  }

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
    Path dir = snapshots;
    if (dir != null && Files.isDirectory(dir)) {
      try {
        try (var files = Files.list(dir)) {
          for (Path f : files.toList()) {
            Files.deleteIfExists(f);
          }
        }
        Files.deleteIfExists(dir);
      } catch (IOException ignored) {
        // The error that stopped the start matters more than a stray file.
      }
    }
    file.closeAndRemove();
  }
}
