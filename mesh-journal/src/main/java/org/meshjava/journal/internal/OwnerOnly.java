package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The permissions a file journal gives what it creates (SPEC.md §78, "The operator's files"): on a
 * file system with POSIX permissions, files readable and writable by their owner alone (0600) and
 * folders usable by their owner alone (0700), whatever the process's umask, as PostgreSQL treats
 * its data folder and ssh its private files. The journal, its segments and snapshots hold no
 * secret, but they say who spent what and when, which is the operator's to share. Only what is
 * created gets these: an existing file or folder keeps its mode, and a file written to replace
 * another (an archive's new live file) takes the mode of the one it replaces ({@link #keepMode}),
 * so an operator's {@code chmod} stays. Elsewhere (Windows) nothing is asked. Stateless.
 */
public final class OwnerOnly {
  private OwnerOnly() {}

  private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> FOLDER =
      PosixFilePermissions.fromString("rwx------");

  /** What a file created at {@code path} is made with: 0600 where the file system has modes. */
  public static FileAttribute<?>[] file(Path path) {
    return posix(path)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)}
        : new FileAttribute<?>[0];
  }

  /**
   * Opens {@code path} for writing as a new file, created with {@link #file}: how the journal
   * writes a copy or a snapshot before renaming it into place. A file already at the name (a save
   * or an archive killed before its rename, by an older version that made it with the umask, or a
   * file put there) is removed first rather than emptied: emptied, it would keep its own mode and
   * any other name it has, and be renamed into place as the journal's with them.
   *
   * <p>Why a fixed name removed and made again, not a fresh unique temporary file renamed to it:
   * every caller writes under the lock of what it writes for (the journal's, or the snapshot
   * folder's claim), so only a process that ignores that lock can make the name between the two
   * steps, and the write then fails {@code IO} with nothing lost, which is right for such a
   * process. The fixed name is what recovery knows: an opening removes {@code .archiving} and
   * settles a pending segment by its name, and a save removes the {@code .tmp} files of earlier
   * counts; a unique name left by a kill would be known to nothing and stay. A name held open
   * elsewhere on Windows blocks the rename into place as much as the removal, so a unique name
   * would move that failure, not remove it.
   *
   * @throws IOException as {@link Files#deleteIfExists} and {@link FileChannel#open(Path, Set,
   *     FileAttribute[])}
   */
  public static FileChannel writeAfresh(Path path) throws IOException {
    Files.deleteIfExists(path);
    return createNew(path);
  }

  /**
   * Makes {@code path} a new file, created with {@link #file}, and opens it for writing, in one
   * step that follows no link: what is written goes to the file made, never to one put at the name
   * between a creation and an opening.
   *
   * @throws java.nio.file.FileAlreadyExistsException if anything is at the name, a link too
   * @throws IOException as {@link FileChannel#open(Path, Set, FileAttribute[])}
   */
  public static FileChannel createNew(Path path) throws IOException {
    return FileChannel.open(
        path,
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
        file(path));
  }

  /**
   * Makes {@code dir} and every missing folder above it, each usable by its owner alone; folders
   * that are there keep their modes.
   *
   * @throws java.nio.file.NotDirectoryException naming what is in the way, where something other
   *     than a folder is at {@code dir} or above it ({@link Folders#create})
   * @throws IOException as {@link Files#createDirectories}
   */
  public static void createDirectories(Path dir) throws IOException {
    if (posix(dir)) {
      Folders.create(dir, PosixFilePermissions.asFileAttribute(FOLDER));
    } else {
      Folders.create(dir);
    }
  }

  /**
   * Gives {@code to}, a file just written to replace {@code from} or to hold part of what it held,
   * the mode {@code from} has, so what its operator set outlives a rewrite. Nothing when {@code
   * from} is not there.
   *
   * <p>Best effort where that is safe: a mode that cannot be set is logged at WARN (once in a
   * process) and left, provided {@code to} grants nobody more than {@code from} does. A file system
   * mounted without modes (FAT, some CIFS and FUSE mounts) still reports POSIX permissions to the
   * JDK but answers {@code chmod} with an error; failing there would fail every archive, and every
   * snapshot save after the first, for a courtesy. A file made by {@link #writeAfresh} is
   * owner-only, and on such a mount every file reports the same mode, so this is the usual case.
   * One wider than {@code from} all the same (replaced at its name meanwhile) is refused: renamed
   * into place it would show the records to whoever the operator kept them from.
   *
   * @throws IOException when the mode cannot be set and {@code to} grants a permission {@code from}
   *     does not, or the modes cannot be read to tell
   */
  public static void keepMode(Path from, Path to) throws IOException {
    keepMode(from, to, Files::setPosixFilePermissions);
  }

  /** Sets a file's permissions: {@link Files#setPosixFilePermissions}, a fake in tests. */
  @FunctionalInterface
  interface ModeSetter {
    void set(Path file, Set<PosixFilePermission> mode) throws IOException;
  }

  static void keepMode(Path from, Path to, ModeSetter setter) throws IOException {
    if (!posix(to) || !Files.exists(from)) {
      return;
    }
    Set<PosixFilePermission> wanted = Files.getPosixFilePermissions(from);
    try {
      setter.set(to, wanted);
    } catch (IOException e) {
      Set<PosixFilePermission> has = Files.getPosixFilePermissions(to);
      if (!wanted.containsAll(has)) {
        throw new IOException(
            to
                + " is "
                + PosixFilePermissions.toString(has)
                + ", wider than "
                + from
                + " ("
                + PosixFilePermissions.toString(wanted)
                + "), and its mode cannot be set ("
                + FailureWords.of(e)
                + "); remove it, or give it the mode of "
                + from
                + ", and try again",
            e);
      }
      if (WARNED.compareAndSet(false, true)) {
        LOG.warn(
            "cannot give {} the mode of {} ({}); it keeps the mode it has, which grants no more."
                + " A file system mounted without modes answers so; not logged again",
            to,
            from,
            FailureWords.of(e));
      } else {
        LOG.debug("cannot give {} the mode of {}: {}", to, from, FailureWords.of(e));
      }
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(OwnerOnly.class);
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private static boolean posix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}
