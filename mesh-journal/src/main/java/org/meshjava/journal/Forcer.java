package org.meshjava.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

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
   * durable only once its directory is, whatever was forced of the file itself. Best effort: not
   * every platform can open a directory to sync it (Windows cannot), and the rename or creation
   * stands regardless; so a failure here is not reported.
   */
  default void forceDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
      force(d, dir, true);
    } catch (IOException | UnsupportedOperationException ignored) {
      // See above: the platform cannot sync a directory, or the sync failed; nothing to undo.
    }
  }
}
