package org.meshjava.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a text file the user named on the command line, turning every way it can fail into one
 * sentence that names the file and says why: missing, a folder, unreadable, or not text. The JDK's
 * own messages ({@code missing.hex}, {@code Input length = 1}) say neither.
 */
final class UserFile {
  private UserFile() {}

  /**
   * Returns the file's text.
   *
   * @param what how the message names the file, e.g. {@code "key file"}
   * @throws CliException naming the file and the reason it cannot be read as UTF-8 text
   */
  static String readText(Path path, String what) throws CliException {
    if (Files.isDirectory(path)) {
      throw new CliException("cannot read " + what + " " + path + ": it is a folder");
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (IOException e) {
      throw new CliException("cannot read " + what + " " + path + ": " + reason(e), e);
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      throw new CliException(what + " " + path + " is not text (binary data, or not UTF-8)", e);
    }
    // UTF-8 decodes NUL and other control bytes; no file these commands read holds them.
    if (text.chars().anyMatch(c -> c < 0x20 && c != '\n' && c != '\r' && c != '\t')) {
      throw new CliException(what + " " + path + " is not text (it holds control bytes)");
    }
    return text;
  }

  /** Why a file operation failed, in words: the JDK's message for these is only the path. */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
