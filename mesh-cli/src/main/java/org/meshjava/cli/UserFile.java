package org.meshjava.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.Folders;

/**
 * Reads a text file the user named on the command line, turning every way it can fail into one
 * sentence that names the file and says why: missing, a folder, unreadable, or not text. The JDK's
 * own messages ({@code missing.hex}, {@code Input length = 1}) say neither.
 */
final class UserFile {
  /**
   * The largest file read whole: keys, grants, configurations and revocation lists are kilobytes,
   * so a larger file is the wrong file, refused before it fills the heap.
   */
  static final int MAX_TEXT_BYTES = 64 << 20;

  /** The longest line {@link #forEachLine} reads; an envelope is a few kilobytes of hex. */
  static final int MAX_LINE_CHARS = 1 << 20;

  /**
   * The byte order mark some Windows editors put first in a UTF-8 file. Invisible in the editor, it
   * would make a key or an envelope that looks right "not hex"; it marks the encoding and is no
   * part of the text, so it is dropped (as JSON parsers may, RFC 8259 §8.1).
   */
  private static final char BOM = '\uFEFF';

  private UserFile() {}

  /** Takes the lines of a file one at a time. */
  @FunctionalInterface
  interface LineConsumer {
    /** Takes line {@code index} (from 0), without its ending. */
    void accept(long index, String line) throws CliException;
  }

  /**
   * Reads the file's lines one at a time (LF or CRLF endings; a leading byte order mark dropped),
   * as {@link #readText} reads its text, holding one line at a time: for files that may be long,
   * such as a steward's every receipt.
   *
   * @throws CliException naming the file and the reason, as {@link #readText}, or if a line is
   *     longer than {@link #MAX_LINE_CHARS}; or what {@code each} throws
   */
  static void forEachLine(Path path, String what, LineConsumer each) throws CliException {
    forEachLine(new InputFile.Named(path), what, each);
  }

  /**
   * Reads the lines of a file, or of standard input, as {@link #forEachLine(Path, String,
   * LineConsumer)} reads a file's.
   */
  static void forEachLine(InputFile path, String what, LineConsumer each) throws CliException {
    if (path.isFolder()) {
      throw new CliException("cannot read " + what + " " + path + ": it is a folder");
    }
    try (java.io.Reader in = new java.io.InputStreamReader(path.open(), strictUtf8())) {
      StringBuilder line = new StringBuilder();
      long index = 0;
      char[] buf = new char[8192];
      boolean first = true;
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        for (int i = 0; i < n; i++) {
          char c = buf[i];
          if (first) {
            first = false;
            if (c == BOM) {
              continue;
            }
          }
          if (c == '\n') {
            int end = line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? 1 : 0;
            line.setLength(line.length() - end);
            each.accept(index++, checked(line.toString(), path, what));
            line.setLength(0);
          } else if (line.length() == MAX_LINE_CHARS) {
            throw new CliException(
                what + " " + path + ": line " + (index + 1) + " is longer than " + MAX_LINE_CHARS);
          } else {
            line.append(c);
          }
        }
      }
      if (line.length() > 0) {
        each.accept(index, checked(line.toString(), path, what));
      }
    } catch (CharacterCodingException e) {
      throw notUtf8(what, path, e);
    } catch (IOException e) {
      throw new CliException("cannot read " + what + " " + path + ": " + reason(e), e);
    }
  }

  /**
   * A decoder that refuses what is not UTF-8 rather than replacing it with U+FFFD, so that a binary
   * or wrongly encoded file is refused as not text instead of being read as something else. A new
   * one per read, as a decoder keeps state.
   */
  private static CharsetDecoder strictUtf8() {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
  }

  /** The refusal of a file that {@link #strictUtf8()} could not decode. */
  private static CliException notUtf8(String what, Object path, CharacterCodingException e) {
    return new CliException(what + " " + path + " is not text (binary data, or not UTF-8)", e);
  }

  /** {@code text}, refused if it holds control bytes, which no file these commands read holds. */
  private static String checked(String text, Object path, String what) throws CliException {
    // UTF-8 decodes NUL and other control bytes; no file these commands read holds them.
    if (text.chars().anyMatch(c -> c < 0x20 && c != '\n' && c != '\r' && c != '\t')) {
      throw new CliException(what + " " + path + " is not text (it holds control bytes)");
    }
    return text;
  }

  /**
   * Returns the file's bytes, at most {@link #MAX_TEXT_BYTES} of them.
   *
   * @param what how the message names the file, e.g. {@code "body"}
   * @throws CliException naming the file and the reason it cannot be read, or that it is larger
   */
  static byte[] readBytes(Path path, String what) throws CliException {
    return readBytes(new InputFile.Named(path), what);
  }

  /** Returns the bytes of a file, or of standard input, as {@link #readBytes(Path, String)}. */
  static byte[] readBytes(InputFile path, String what) throws CliException {
    if (path.isFolder()) {
      throw new CliException("cannot read " + what + " " + path + ": it is a folder");
    }
    byte[] bytes;
    try {
      // A regular file's size is known before reading: a larger one was read up to the bound
      // (64 MiB held in memory, and as long to read from a slow disk) only to be refused.
      if (path instanceof InputFile.Named named && Files.isRegularFile(named.path())) {
        long size = Files.size(named.path());
        if (size > MAX_TEXT_BYTES) {
          throw tooLarge(path, what, ": it holds " + size + " bytes");
        }
      }
      // Still bounded: the file may grow after its size was read, and a FIFO or stdin has none.
      try (java.io.InputStream in = path.open()) {
        bytes = in.readNBytes(MAX_TEXT_BYTES + 1);
      }
    } catch (IOException e) {
      throw new CliException("cannot read " + what + " " + path + ": " + reason(e), e);
    }
    if (bytes.length > MAX_TEXT_BYTES) {
      throw tooLarge(path, what, "");
    }
    return bytes;
  }

  /** The refusal of a file larger than {@link #MAX_TEXT_BYTES}; {@code held} says by how much. */
  private static CliException tooLarge(InputFile path, String what, String held) {
    return new CliException(
        what
            + " "
            + path
            + " is larger than "
            + MAX_TEXT_BYTES
            + " bytes (64 MiB)"
            + held
            + "; is it the right file?");
  }

  /**
   * Returns the file's text, without a leading byte order mark ({@link #BOM}).
   *
   * @param what how the message names the file, e.g. {@code "key file"}
   * @throws CliException naming the file and the reason it cannot be read as UTF-8 text
   */
  static String readText(Path path, String what) throws CliException {
    return readText(new InputFile.Named(path), what);
  }

  /** Returns the text of a file, or of standard input, as {@link #readText(Path, String)}. */
  static String readText(InputFile path, String what) throws CliException {
    byte[] bytes = readBytes(path, what);
    String text;
    try {
      text = strictUtf8().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw notUtf8(what, path, e);
    }
    return checked(text.startsWith(String.valueOf(BOM)) ? text.substring(1) : text, path, what);
  }

  /**
   * Writes {@code bytes} to {@code path} whole or not at all: to a file beside it first (created
   * with {@code attributes}, such as an owner-only mode), forced to disk, then renamed onto it. A
   * reader never sees it half written, a write cut short (a full disk, SIGTERM) leaves what was
   * there before, and a file replaced is never deleted before its successor is on disk. Missing
   * folders above it are created. Each call writes its own file beside {@code path} (named by the
   * process and thread), so writers racing for one name never write into each other's. Such files
   * that a killed process left beside {@code path} are removed first ({@link
   * #removeLeftoverPartials}).
   *
   * @param replace whether an existing file is replaced; if not, it is refused with {@link
   *     java.nio.file.FileAlreadyExistsException}, also when another writer puts the file there at
   *     the same moment ({@link #publishNew})
   */
  static void writeWhole(
      Path path,
      byte[] bytes,
      boolean replace,
      java.nio.file.attribute.FileAttribute<?>... attributes)
      throws IOException {
    Path target = path.toAbsolutePath();
    if (target.getParent() != null) {
      Folders.create(target.getParent());
    }
    writeWholeInFolder(target, bytes, replace, attributes);
  }

  /**
   * Writes {@code bytes} to {@code path} whole or not at all, as {@link #writeWhole}, but only into
   * a folder that exists: a missing one is refused ({@link NoSuchFileException}), never made.
   */
  static void writeWholeInFolder(
      Path path,
      byte[] bytes,
      boolean replace,
      java.nio.file.attribute.FileAttribute<?>... attributes)
      throws IOException {
    Path target = path.toAbsolutePath();
    Path partial = partialOf(target);
    removeLeftoverPartials(target);
    Files.deleteIfExists(partial);
    try {
      Files.createFile(partial, attributes);
      try (java.nio.channels.FileChannel ch =
          java.nio.channels.FileChannel.open(partial, java.nio.file.StandardOpenOption.WRITE)) {
        writeFully(ch, bytes);
        ch.force(true);
      }
      if (replace) {
        Files.move(
            partial,
            target,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      } else {
        publishNew(partial, target);
      }
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  /** Numbers the partial files of this process, so no two writes share one. */
  private static final java.util.concurrent.atomic.AtomicLong PARTIALS =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * A new name for the file a write of {@code target} puts its bytes in first ({@link
   * #writeWholeInFolder}, {@code mesh journal export}), named for this process and a number no
   * other write in it was given: two writes of one target from one JVM (an embedder's threads, or
   * one started while another writes on the same thread) each have their own, so neither fails on
   * or removes the other's, and the one that publishes second is refused because the target exists.
   * {@link #removeLeftoverPartials} reads the process from the name.
   */
  static Path partialOf(Path target) {
    return target
        .toAbsolutePath()
        .resolveSibling(
            "."
                + target.getFileName()
                + ".partial-"
                + ProcessHandle.current().pid()
                + "-"
                + PARTIALS.incrementAndGet());
  }

  /**
   * Fails, with the file system's reason, where {@link #writeWholeInFolder} could not write {@code
   * path}: the file that it creates first is created and removed. Permissions alone do not tell:
   * root may write in any folder but one the file system refuses (a read-only mount, {@code /sys}).
   */
  static void checkCanWrite(Path path) throws IOException {
    Path partial = partialOf(path.toAbsolutePath());
    Files.deleteIfExists(partial);
    Files.createFile(partial);
    Files.delete(partial);
  }

  /**
   * Writes all of {@code bytes} to {@code out}. One {@code write} may take fewer bytes than it was
   * given without failing: on a disk with less room than the file needs, Linux writes what fits and
   * returns that count, and only the next call fails with "No space left on device". Taking one
   * call's count as the whole file published a cut-off grant chain as written, and the command said
   * it wrote it (found on a full tmpfs: 4096 of 11 933 bytes, exit 0).
   */
  static void writeFully(java.nio.channels.WritableByteChannel out, byte[] bytes)
      throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    while (buf.hasRemaining()) {
      out.write(buf);
    }
  }

  /** The end of a partial file's name after {@code .NAME.partial-}: the writer's PID, a thread. */
  private static final java.util.regex.Pattern PARTIAL_WRITER =
      java.util.regex.Pattern.compile("([0-9]{1,18})(-[0-9]{1,19})?");

  /**
   * Removes what writes of {@code target} left beside it when their process was killed (SIGKILL, a
   * power cut) before it could clean up: {@code .NAME.partial-PID-THREAD} ({@link #writeWhole}) and
   * {@code .NAME.partial-PID} ({@code mesh journal export}), whose process {@code PID} is no longer
   * alive. Such a file may hold a key's seed. One whose PID is alive is left alone, whoever has
   * that PID now (this process's other threads, another write, an unrelated process that reused
   * it), so a write in progress is never removed.
   *
   * <p>The writer is judged by this machine's process table, so writers of one folder are assumed
   * to see each other's processes (not so across containers with their own PID namespaces sharing a
   * folder, or where {@code /proc} hides other users' processes). Should a live writer's file be
   * removed all the same, its write fails with an error: it finishes by renaming or linking that
   * file, which is then gone, so nothing half written ever takes the name.
   *
   * <p>Failures are ignored: a leftover that cannot be removed stays where it is.
   */
  static void removeLeftoverPartials(Path target) {
    Path folder = target.toAbsolutePath().getParent();
    if (folder == null) {
      return;
    }
    String prefix = "." + target.getFileName() + ".partial-";
    try (var names = Files.newDirectoryStream(folder)) {
      for (Path f : names) {
        String name = f.getFileName().toString();
        if (!name.startsWith(prefix)) {
          continue;
        }
        java.util.regex.Matcher writer = PARTIAL_WRITER.matcher(name.substring(prefix.length()));
        if (writer.matches() && !alive(Long.parseLong(writer.group(1)))) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException | java.nio.file.DirectoryIteratorException ignored) {
      // A leftover that cannot be listed or removed stays; the write itself goes on.
    }
  }

  /**
   * The file whose write {@code file} would be a partial file of, by its name alone ({@code
   * .NAME.partial-PID} or {@code .NAME.partial-PID-N}, as {@link #partialOf} names them): {@link
   * #removeLeftoverPartials} removes such a file once no process of that PID runs, so nothing else
   * may be written under such a name.
   */
  static java.util.Optional<Path> partialTarget(Path file) {
    Path absolute = file.toAbsolutePath();
    Path name = absolute.getFileName();
    if (name == null) {
      return java.util.Optional.empty();
    }
    java.util.regex.Matcher m = PARTIAL_NAME.matcher(name.toString());
    return m.matches() && PARTIAL_WRITER.matcher(m.group(2)).matches()
        ? java.util.Optional.of(absolute.resolveSibling(m.group(1)))
        : java.util.Optional.empty();
  }

  /** A partial file's name: {@code .NAME.partial-} then what {@link #PARTIAL_WRITER} matches. */
  private static final java.util.regex.Pattern PARTIAL_NAME =
      java.util.regex.Pattern.compile("\\.(.+)\\.partial-(.+)", java.util.regex.Pattern.DOTALL);

  /** Whether a process with {@code pid} is running on this machine. */
  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /**
   * Gives the finished file {@code partial} the name {@code target}, which must not exist: refused
   * with {@link java.nio.file.FileAlreadyExistsException} if it does, at that very moment. {@link
   * Files#move} without {@code REPLACE_EXISTING} cannot promise that: it checks that the name is
   * free and then renames, and a rename replaces whatever a second writer put there in between, so
   * two {@code mesh key generate --out k.key} started together could both say they wrote it. A hard
   * link is refused by the file system itself when the name is taken. {@code partial} stays (the
   * caller deletes it); where the file system has no hard links, it is moved with {@link
   * Files#move} instead, with the gap that leaves.
   */
  static void publishNew(Path partial, Path target) throws IOException {
    try {
      Files.createLink(target, partial);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      throw e;
    } catch (UnsupportedOperationException | IOException noHardLinks) {
      Files.move(partial, target);
    }
  }

  /**
   * Refuses to write {@code path} where something is there already, unless {@code force}: a key, a
   * grant or a saved checkpoint overwritten by a repeated command is lost for good, so replacing
   * one is asked for by name ({@code --force}). A dangling link counts as there.
   *
   * @param what what the file holds, for the message: {@code "a key"}, {@code "a grant chain"}
   * @throws CliException naming the file, if it exists and {@code force} is false
   */
  static void refuseToOverwrite(Path path, String what, boolean force) throws CliException {
    if (!force && Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw overwriteRefused(path, what, null);
    }
  }

  /** The refusal {@link #refuseToOverwrite} throws, also for a file that appeared meanwhile. */
  static CliException overwriteRefused(
      Path path,
      String what,
      java.nio.file.@org.jspecify.annotations.Nullable FileAlreadyExistsException cause) {
    String message = path + " exists; refusing to overwrite " + what + " (use --force)";
    return cause == null ? new CliException(message) : new CliException(message, cause);
  }

  /**
   * Writes {@code bytes} to the file a command was told to write, whole or not at all ({@link
   * #writeWhole}), refusing one that exists unless {@code force} ({@link #refuseToOverwrite}), also
   * when it appears between the check and the write.
   *
   * @throws CliException naming the file: it exists, is a folder, or cannot be written
   */
  static void writeOutput(Path path, byte[] bytes, String what, boolean force) throws CliException {
    if (Files.isDirectory(path)) {
      throw new CliException("cannot write " + path + ": it is a folder");
    }
    refuseToOverwrite(path, what, force);
    try {
      writeWhole(path, bytes, force);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      if (!force && Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        throw overwriteRefused(path, what, e);
      }
      throw new CliException("cannot write " + path + ": " + reason(e), e);
    } catch (IOException e) {
      throw new CliException("cannot write " + path + ": " + reason(e), e);
    }
  }

  /** Why a file operation failed, in words: the JDK's message for these is only the path. */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.NotDirectoryException f && f.getFile() != null) {
      // Something else where a folder must be made (Folders.create), or must be listed: named for
      // what it is, so the operator knows what to move (a link to nothing is no file to look for);
      // one gone since, or a folder made since, in the journal's words for that race.
      return FailureWords.inTheWay(f.getFile(), true);
    }
    if (e instanceof java.nio.file.FileAlreadyExistsException f && f.getFile() != null) {
      // Where it is not a refusal to overwrite: a file that was to be new (a partial file another
      // writer made meanwhile, a name taken between the check and the write). What is there is
      // named, and nothing more: no folder was wanted there.
      return FailureWords.inTheWay(f.getFile(), false);
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
