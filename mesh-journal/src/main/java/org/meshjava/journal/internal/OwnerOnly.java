package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

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
   * Opens {@code path} for writing from its start, emptied if it is there and created with {@link
   * #file} if not: how the journal writes a copy or a snapshot before renaming it into place.
   *
   * @throws IOException as {@link FileChannel#open(Path, Set, FileAttribute[])}
   */
  public static FileChannel writeAfresh(Path path) throws IOException {
    return FileChannel.open(
        path,
        Set.of(
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE),
        file(path));
  }

  /**
   * Makes {@code dir} and every missing folder above it, each usable by its owner alone; folders
   * that are there keep their modes.
   *
   * @throws IOException as {@link Files#createDirectories}
   */
  public static void createDirectories(Path dir) throws IOException {
    if (posix(dir)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(FOLDER));
    } else {
      Files.createDirectories(dir);
    }
  }

  /**
   * Gives {@code to}, a file just written to replace {@code from} or to hold part of what it held,
   * the mode {@code from} has, so what its operator set outlives a rewrite. Nothing when {@code
   * from} is not there.
   *
   * @throws IOException if the modes cannot be read or set
   */
  public static void keepMode(Path from, Path to) throws IOException {
    if (posix(to) && Files.exists(from)) {
      Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
    }
  }

  private static boolean posix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}
