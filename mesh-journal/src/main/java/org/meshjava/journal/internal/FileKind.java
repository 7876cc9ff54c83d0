package org.meshjava.journal.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What lies at a name, without following a symbolic link there, in the words a refusal names it by
 * ("a file", "a folder", "a symbolic link to …", "a named pipe"). A refusal that met something in
 * the way says what it met, so that an operator knows what to move: "exists and is not a folder"
 * for a link left pointing at nothing sent them looking for a file. Stateless.
 */
public enum FileKind {
  /** A regular file. */
  FILE("a file"),
  /** A folder. */
  FOLDER("a folder"),
  /** A symbolic link, whatever it leads to. */
  LINK("a symbolic link"),
  /** A named pipe ({@code mkfifo}): opening it waits for a peer, so it is never to be opened. */
  PIPE("a named pipe"),
  /** A character or block device ({@code /dev/null}): opening one may act on the device. */
  DEVICE("a device"),
  /** A Unix domain socket. */
  SOCKET("a socket"),
  /** Something else, or something whose kind this platform does not report. */
  OTHER("neither a file, a folder nor a link"),
  /** Nothing: the name is free (or was freed since it was met). */
  NONE("nothing");

  private final String words;

  FileKind(String words) {
    this.words = words;
  }

  // The file type bits of st_mode (sys/stat.h), as the JDK's "unix:mode" attribute gives them.
  private static final int TYPE_MASK = 0170000;
  private static final int FIFO = 0010000;
  private static final int CHAR_DEVICE = 0020000;
  private static final int BLOCK_DEVICE = 0060000;
  private static final int UNIX_SOCKET = 0140000;

  /**
   * The kind of what {@code path} names itself (a link is {@link #LINK}, not what it leads to).
   *
   * @throws IOException if it cannot be read for another reason than its absence
   */
  public static FileKind of(Path path) throws IOException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return NONE;
    }
    if (a.isRegularFile()) {
      return FILE;
    }
    if (a.isDirectory()) {
      return FOLDER;
    }
    if (a.isSymbolicLink()) {
      return LINK;
    }
    return special(path);
  }

  /**
   * A file that is neither regular, a folder nor a link, told apart by its mode where there is one.
   */
  private static FileKind special(Path path) {
    Object mode;
    try {
      mode = Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException noMode) {
      return OTHER;
    }
    if (!(mode instanceof Integer m)) {
      return OTHER;
    }
    return switch (m & TYPE_MASK) {
      case FIFO -> PIPE;
      case CHAR_DEVICE, BLOCK_DEVICE -> DEVICE;
      case UNIX_SOCKET -> SOCKET;
      default -> OTHER;
    };
  }

  /**
   * What is at {@code path} in words: this kind's, and for a link where it leads ("a symbolic link
   * to /x"); "nothing" where it is gone, and the failure's words where it cannot be read.
   */
  public static String describe(Path path) {
    try {
      FileKind k = of(path);
      if (k != LINK) {
        return k.words;
      }
      return k.words + " to " + Files.readSymbolicLink(path);
    } catch (IOException e) {
      return "unreadable (" + FailureWords.of(e) + ")";
    }
  }

  /** This kind in words: "a file", "a named pipe". */
  public String words() {
    return words;
  }
}
