package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The words a journal's message gives for the exception that failed it: the exception's message, or
 * its class's simple name when it has none. Many an I/O or driver exception carries no message
 * ({@code ClosedChannelException}, an {@code IOException} thrown bare by a device layer), and a
 * message built from it alone read "write to … failed: null", naming nothing an operator could act
 * on.
 */
public final class FailureWords {
  private FailureWords() {}

  /** {@code e}'s message, or its class's name when the message is null or blank. */
  public static String of(Throwable e) {
    String m = e.getMessage();
    if (m != null && !m.isBlank()) {
      return m;
    }
    // An anonymous class has no simple name.
    String simple = e.getClass().getSimpleName();
    return simple.isEmpty() ? e.getClass().getName() : simple;
  }

  /**
   * The words for {@code e}, which failed an operation on {@code where}, for a message that names
   * {@code where} already ("cannot read /j.log.segments/…jsonl: no such file"). The JDK's message
   * for a missing file, a denied one or one already there is the path alone, which said nothing and
   * repeated the path the message names; for other file system failures it is the path then the
   * reason. The file is named only where it is not {@code where} (a folder above it missing, say).
   */
  public static String about(Object where, Throwable e) {
    if (!(e instanceof FileSystemException f)) {
      return of(e);
    }
    String file = f.getFile();
    String elsewhere = file == null || file.equals(String.valueOf(where)) ? "" : file;
    return switch (f) {
      case NoSuchFileException n ->
          "no such file or folder" + (elsewhere.isEmpty() ? "" : " " + elsewhere);
      case AccessDeniedException a ->
          "permission denied" + (elsewhere.isEmpty() ? "" : ": " + elsewhere);
      case NotDirectoryException d -> inTheWay(file, true);
      case FileAlreadyExistsException x -> inTheWay(file, isOrIsAbove(file, where));
      default ->
          f.getReason() == null
              ? of(e)
              : f.getReason() + (elsewhere.isEmpty() ? "" : " (" + elsewhere + ")");
    };
  }

  /**
   * What to do about {@code e}, after "; ", where it is a permission denied; nothing otherwise.
   * "Permission denied" alone leaves an operator to guess what to change, and whether another place
   * would do: a journal's or a snapshot folder's refusal names the remedy for what it was doing.
   */
  public static String remedyIfDenied(Throwable e, String remedy) {
    return e instanceof AccessDeniedException ? "; " + remedy : "";
  }

  /**
   * The words for {@code file}, met where a name was to be made: what is there. Where a folder was
   * wanted ({@code folderWanted}), anything else there is named as not one; elsewhere (a marker, a
   * copy or a lock file to be made beside the journal) what is there is named and nothing more, for
   * a file there is no folder that was missing. A folder there stood where a file was to be made. A
   * link is named with where it leads. What is there is looked at now, after the failure: a thing
   * gone since, or a folder made since, is said to have been in the way then, not to be now. Safe
   * from any thread.
   */
  public static String inTheWay(@Nullable String file, boolean folderWanted) {
    if (file == null) {
      return "it exists";
    }
    Path at = Path.of(file);
    FileKind kind;
    try {
      kind = FileKind.of(at);
    } catch (IOException e) {
      return file + " exists, and what it is cannot be read (" + of(e) + ")";
    }
    return switch (kind) {
      case FOLDER ->
          folderWanted
              ? file + " was no folder when it was met, and is one since"
              : file + " exists and is a folder, where a file was to be made";
      case NONE -> file + " was in the way, and is gone since";
      default ->
          file + " exists and is " + FileKind.describe(at) + (folderWanted ? ", not a folder" : "");
    };
  }

  /**
   * Whether {@code file} names {@code where} or a folder above it: a name that must be a folder for
   * anything to be made at {@code where}, whatever was being made there.
   */
  private static boolean isOrIsAbove(@Nullable String file, Object where) {
    if (file == null) {
      return false;
    }
    try {
      return Path.of(String.valueOf(where))
          .toAbsolutePath()
          .startsWith(Path.of(file).toAbsolutePath());
    } catch (java.nio.file.InvalidPathException | java.io.IOError e) {
      return false; // where is not a path: nothing is known of what was wanted
    }
  }
}
