package org.meshjava.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recognises a directory sync that failed because the file system cannot sync directories at all,
 * and warns once per folder that its entries go unforced.
 *
 * <p>Such a file system answers {@code fsync} on a directory with {@code EINVAL} (CIFS/SMB, some
 * FUSE, network and overlay mounts) or {@code EBADF} (NetBSD and some FUSE file systems, for a
 * directory opened read-only, the only way one opens); PostgreSQL's {@code fsync_fname_ext} lets
 * off the same two. {@link java.nio.channels.FileChannel#force} reports a failed {@code fsync} as a
 * bare {@link IOException} whose message is only the C library's text for {@code errno}; no error
 * number is exposed. So the two are told apart here, and only here, by an exact match on that text
 * ({@link #TEXTS}), the same on glibc, musl and macOS: a looser match ("contains invalid") could
 * let off an unrelated error. The JDK takes the text from {@code strerror_r} after setting the C
 * locale from the environment at start-up, so where {@code LC_MESSAGES} names a language whose C
 * library translations are installed the text is translated and not recognised: the sync then stays
 * a failure ({@code IO}), as any other error is, never a silent skip of a real fault. Running the
 * JVM with {@code LC_ALL=C} restores the recognition.
 */
final class UnsyncableDirectories {
  /**
   * The C library's text (C and English locales) for each error that says a directory cannot be
   * synced, to the error's name.
   */
  static final Map<String, String> TEXTS =
      Map.of("Invalid argument", "EINVAL", "Bad file descriptor", "EBADF");

  private static final Logger LOG = LoggerFactory.getLogger(UnsyncableDirectories.class);

  /** The one the file journal and the snapshot store use: it warns through the log. */
  static final UnsyncableDirectories LOGGED = new UnsyncableDirectories(LOG::warn);

  // Where a warning goes: the log, or a test's list.
  private final Consumer<String> warn;

  /** Folders already warned about, so a journal's every archive does not warn again. */
  private final Set<Path> warned = ConcurrentHashMap.newKeySet();

  /** One that gives its warnings to {@code warn}; tests read them there. */
  UnsyncableDirectories(Consumer<String> warn) {
    this.warn = Objects.requireNonNull(warn, "warn");
  }

  /**
   * The name of the error {@code failure} reports, if it is one that says a directory cannot be
   * synced ({@code EINVAL}, {@code EBADF}); empty for every other failure, and for a message that
   * is not exactly one of {@link #TEXTS}.
   */
  static Optional<String> unsyncable(IOException failure) {
    String message = failure.getMessage();
    return message == null ? Optional.empty() : Optional.ofNullable(TEXTS.get(message));
  }

  /**
   * Whether {@code failure}, thrown by forcing the directory {@code dir}, says its file system
   * cannot sync directories; if so, warns once for {@code dir}.
   */
  boolean cannotSync(Path dir, IOException failure) {
    Optional<String> errno = unsyncable(failure);
    if (errno.isEmpty()) {
      return false;
    }
    if (warned.add(dir.toAbsolutePath().normalize())) {
      warn.accept(
          "the file system of "
              + dir
              + " cannot sync a directory (fsync: "
              + errno.get()
              + ", "
              + failure.getMessage()
              + "): the names of files created, renamed or deleted in it are not forced to"
              + " storage, and a power cut may lose them; use a local file system for the journal"
              + " and snapshots to keep them");
    }
    return true;
  }
}
