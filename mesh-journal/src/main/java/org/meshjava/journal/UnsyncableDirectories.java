package org.meshjava.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recognises a directory sync that failed because the file system cannot sync directories at all
 * ({@code EINVAL}), and warns once per folder that its entries go unforced.
 *
 * <p>{@link java.nio.channels.FileChannel#force} reports a failed {@code fsync} as a bare {@link
 * IOException} whose message is only the C library's text for {@code errno}; no error number is
 * exposed. That text for {@code EINVAL} is {@value #EINVAL_TEXT} on glibc, musl and macOS, and an
 * exact match on it is used: a looser match ("contains invalid") could let off an unrelated error.
 * The JDK takes the text from {@code strerror_r} after setting the C locale from the environment at
 * start-up, so where {@code LC_MESSAGES} names a language whose C library translations are
 * installed the text is translated and not recognised: the sync then stays a failure ({@code IO}),
 * as before, never a silent skip of a real fault. Running the JVM with {@code LC_ALL=C} restores
 * the recognition.
 */
final class UnsyncableDirectories {
  /** What {@code FileChannel.force} says for {@code EINVAL} under the C and English locales. */
  static final String EINVAL_TEXT = "Invalid argument";

  private static final Logger LOG = LoggerFactory.getLogger(UnsyncableDirectories.class);

  /** Folders already warned about, so a journal's every archive does not warn again. */
  private static final Set<Path> WARNED = ConcurrentHashMap.newKeySet();

  private UnsyncableDirectories() {}

  /**
   * Whether {@code failure}, thrown by forcing the directory {@code dir}, says its file system
   * cannot sync directories; if so, warns once for {@code dir}.
   */
  static boolean cannotSync(Path dir, IOException failure) {
    if (!EINVAL_TEXT.equals(failure.getMessage())) {
      return false;
    }
    if (WARNED.add(dir.toAbsolutePath())) {
      LOG.warn(
          "the file system of {} cannot sync a directory (fsync: {}): the names of files created,"
              + " renamed or deleted in it are not forced to storage, and a power cut may lose"
              + " them; use a local file system for the journal and snapshots to keep them",
          dir,
          EINVAL_TEXT);
    }
    return true;
  }
}
