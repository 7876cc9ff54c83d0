package org.meshjava.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Deque;
import org.meshjava.journal.internal.OwnerOnly;

/**
 * Forces a journal file, an archived segment, a snapshot or a directory entry to storage. A seam,
 * like {@link FileJournal.Syncer} for the group commit, so a test can see that each of these is
 * forced before the call that wrote it returns; power loss is what a test in one process cannot
 * stage.
 */
@FunctionalInterface
interface Forcer {
  /** The production forcer: {@link FileChannel#force(boolean)}. */
  Forcer OS = (channel, file, metaData) -> channel.force(metaData);

  /**
   * Forces {@code channel}, open on {@code file}.
   *
   * @param metaData whether the file's metadata (its length after a truncate) is forced too
   */
  void force(FileChannel channel, Path file, boolean metaData) throws IOException;

  /**
   * Forces the entries of the directory {@code dir}: a file created, renamed or removed in it is
   * durable only once its directory is, whatever was forced of the file itself.
   *
   * <p>Only a platform that cannot open a directory at all is let off: Windows refuses it ({@link
   * AccessDeniedException}), and a file system provider may not support it ({@link
   * UnsupportedOperationException}); there, nothing can be forced, and the rename or creation
   * stands as the platform keeps it. A directory that opens but whose sync fails (an I/O error from
   * the device) is a real failure, as for a file: the entry it should have made durable may be lost
   * to a power cut, so the caller reports it as its own typed failure rather than carry on as if it
   * were kept (swallowed with the rest, it would let a journal whose new file's name was never
   * forced go on serving).
   *
   * <p>A directory that opens but whose file system cannot sync a directory at all is let off too:
   * CIFS/SMB, some FUSE and network or overlay mounts answer {@code fsync} on a directory with
   * {@code EINVAL}, and NetBSD and some FUSE file systems with {@code EBADF}, the two PostgreSQL's
   * {@code fsync_fname_ext} allows for. There is nothing to retry or repair, and refusing would
   * keep the journal and snapshots off such a mount entirely; the skip is logged once per folder at
   * WARN. The JDK exposes no error number, only the C library's text, so the two are told apart by
   * an exact match on that text, in {@link UnsyncableDirectories} alone, which says why and what a
   * translated locale does (the sync stays a failure). Every other failure ({@code EIO} and the
   * rest), and either error from a file's force, stays a failure.
   *
   * @throws IOException if the directory opened but could not be forced
   */
  default void forceDirectory(Path dir) throws IOException {
    FileChannel d;
    try {
      d = FileChannel.open(dir, StandardOpenOption.READ);
    } catch (AccessDeniedException | UnsupportedOperationException cannotOpenDirectories) {
      return;
    }
    try (d) {
      force(d, dir, true);
    } catch (IOException failed) {
      if (!UnsyncableDirectories.LOGGED.cannotSync(dir, failed)) {
        throw failed;
      }
    }
  }

  /**
   * Makes {@code dir} and every folder missing above it, owner-only ({@link
   * OwnerOnly#createDirectories}), and forces each new folder's entry in the folder above it, from
   * the highest down. A new folder's name is durable only once the folder holding it is forced:
   * without this, a power cut after the first records forced into a journal made in a new folder
   * could take the folder's name, and with it the journal, though each record's sync succeeded.
   * Folders that were there are not forced (nothing in them changed but what the caller forces).
   *
   * @throws IOException if a folder cannot be made, or one that holds a new folder cannot be forced
   *     ({@link #forceDirectory})
   */
  default void createDirectories(Path dir) throws IOException {
    Path folder = dir.toAbsolutePath();
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = folder; p != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS); ) {
      missing.push(p);
      p = p.getParent();
    }
    OwnerOnly.createDirectories(folder);
    for (Path made : missing) {
      Path above = made.getParent();
      if (above != null) {
        forceDirectory(above);
      }
    }
  }
}
